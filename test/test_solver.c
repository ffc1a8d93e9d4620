/* test/test_solver.c: CG/PCG/BiCGSTAB/PBiCGSTAB and Jacobi on small
 * problems built here (1D/2D Laplacians, a badly scaled SPD matrix, a
 * random diagonally dominant nonsymmetric one). Every converged solve is
 * checked by recomputing ||b - A x|| with the CSR SpMV below, written from
 * the arrays (not the library's). Also: failure statuses, history, b = 0,
 * -norm r0, -atol, -divtol, and the public preconditioner API. */
#include "solver_helpers.h"

START_TEST(cg_and_pcg_converge_on_lap2d)
{
  tcsr T;
  lap2d(&T, 20);
  double *b = malloc(T.n * sizeof(double)), *x = calloc(T.n, sizeof(double));
  ng_test_random(b, T.n);
  const char *opts[] = {"-solver cg -precond none -tol 1e-10", "-solver pcg -tol 1e-10", "-solver pcg -precond none -tol 1e-10",
                        "-solver pcg -jacobi_omega 0.7 -tol 1e-10"};
  for (int k = 0; k < 4; k++) {
    memset(x, 0, T.n * sizeof(double));
    result R = run(&T, opts[k], b, x);
    check_converged(&R, 1e-10, opts[k]);
    ck_assert_double_eq_tol(R.h0, norm(b, T.n), 1e-12 * R.h0); /* x0 = 0: r0 = b */
    /* monotone enough: CG's residual may wobble, not grow much */
    ck_assert(R.hmax <= 10 * R.h0);
    ck_assert_int_lt(R.its, T.n);
  }
  free(b); free(x);
  tcsr_free(&T);
}
END_TEST

START_TEST(jacobi_helps_on_bad_scaling)
{
  /* S L S with S spanning 10^-1.5 .. 10^1.5: SPD, badly scaled */
  tcsr T;
  lap2d(&T, 16);
  double *s = malloc(T.n * sizeof(double));
  for (int32_t i = 0; i < T.n; i++) s[i] = pow(10.0, 1.5 * sin(0.37 * i));
  for (int32_t i = 0; i < T.n; i++)
    for (int64_t k = T.rp[i]; k < T.rp[i + 1]; k++) T.val[k] *= s[i] * s[T.col[k]];
  double *b = malloc(T.n * sizeof(double)), *x = calloc(T.n, sizeof(double));
  ng_test_random(b, T.n);
  result cg = run(&T, "-solver cg -precond none -tol 1e-10 -maxit 20000", b, x);
  check_converged(&cg, 1e-10, "cg, badly scaled");
  memset(x, 0, T.n * sizeof(double));
  result pcg = run(&T, "-solver pcg -precond jacobi -tol 1e-10", b, x);
  check_converged(&pcg, 1e-10, "pcg+jacobi, badly scaled");
  ck_assert_int_le(pcg.its, cg.its);
  free(s); free(b); free(x);
  tcsr_free(&T);
}
END_TEST

START_TEST(bicgstab_on_nonsymmetric)
{
  tcsr T;
  nonsym(&T, 500);
  double *b = malloc(T.n * sizeof(double)), *x = calloc(T.n, sizeof(double));
  ng_test_random(b, T.n);
  const char *opts[] = {"-solver bicgstab -precond none -tol 1e-10", "-solver pbicgstab -tol 1e-10",
                        "-solver pbicgstab -precond none -tol 1e-10"};
  for (int k = 0; k < 3; k++) {
    memset(x, 0, T.n * sizeof(double));
    result R = run(&T, opts[k], b, x);
    check_converged(&R, 1e-10, opts[k]);
  }
  /* and on the SPD Laplacian from a nonzero initial guess */
  tcsr L;
  lap2d(&L, 15);
  double *b2 = malloc(L.n * sizeof(double)), *x2 = malloc(L.n * sizeof(double));
  ng_test_random(b2, L.n);
  ng_test_random(x2, L.n);
  result R = run(&L, "-solver pbicgstab -tol 1e-10", b2, x2);
  check_converged(&R, 1e-10, "pbicgstab lap2d, x0 != 0");
  free(b); free(x); free(b2); free(x2);
  tcsr_free(&T);
  tcsr_free(&L);
}
END_TEST

START_TEST(maxit_too_small)
{
  tcsr T;
  lap2d(&T, 20);
  double *b = malloc(T.n * sizeof(double)), *x = calloc(T.n, sizeof(double));
  ng_test_random(b, T.n);
  const char *opts[] = {"-solver cg -precond none -maxit 5", "-solver bicgstab -precond none -maxit 5", "-solver pcg -maxit 0",
                        "-solver gmres -precond jacobi -maxit 5", "-solver fgmres -maxit 7 -gmres_restart 3",
                        "-solver gmres -maxit 0"};
  int want[] = {5, 5, 0, 5, 7, 0};
  for (int k = 0; k < 6; k++) {
    memset(x, 0, T.n * sizeof(double));
    result R = run(&T, opts[k], b, x);
    ck_assert_msg(R.status == NG_ERR_NOT_CONVERGED, "%s: %s", opts[k], ng_status_name(R.status));
    ck_assert_int_eq(R.its, want[k]);
    ck_assert_int_eq(R.hlen, want[k] + 1);
    ck_assert_msg(strstr(R.msg, "iterations") && strstr(R.msg, "not converged"), "message: %s", R.msg);
    /* the iterate is still the solver's: the reported residual matches it */
    if (want[k]) ck_assert(R.reported < 1 && fabs(R.truerel - R.reported) < 1e-8);
  }
  free(b); free(x);
  tcsr_free(&T);
}
END_TEST

START_TEST(zero_diagonal_with_jacobi)
{
  tcsr T;
  lap1d(&T, 10, 1.0, 0.0);
  T.val[T.rp[3] + 1] = 0.0; /* row 3: -1 0 -1 */
  ng_matrix A;
  ng_solver S;
  ng_options o;
  ng_vector b, x;
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, T.n, T.n, T.rp, T.col, T.val, &A));
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S)); /* default: pcg + jacobi */
  ck_assert_int_eq(ng_solver_set_operator(S, A), NG_ERR_NUMERIC);
  ck_assert_msg(strstr(ng_last_error(), "row 4 (0-based 3)") != NULL, "message: %s", ng_last_error());
  NG_ASSERT_OK(ng_vector_create(A, &b));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_fill(b, 1.0));
  ck_assert_int_eq(ng_solver_solve(S, b, x), NG_ERR_ARGUMENT); /* no usable operator */
  ng_precond P;
  ck_assert_int_eq(ng_precond_create(ctx, o, A, &P), NG_ERR_NUMERIC);
  ng_solver_destroy(S);
  ng_options_destroy(o);
  ng_vector_destroy(b);
  ng_vector_destroy(x);
  ng_matrix_destroy(A);
  tcsr_free(&T);
}
END_TEST

START_TEST(indefinite_matrix_with_cg)
{
  tcsr T;
  double *b = malloc(100 * sizeof(double)), *x = calloc(100, sizeof(double));
  /* negative definite: (p, A p) < 0 at once */
  lap1d(&T, 100, -1.0, 0.0);
  for (int i = 0; i < 100; i++) b[i] = 1.0;
  result R = run(&T, "-solver cg -precond none", b, x);
  ck_assert_int_eq(R.status, NG_ERR_BREAKDOWN);
  ck_assert_msg(strstr(R.msg, "(p, A p)") != NULL, "message: %s", R.msg);
  ck_assert_int_eq(R.its, 0);
  /* pipelined CG names the same likely causes as CG */
  memset(x, 0, 100 * sizeof(double));
  R = run(&T, "-solver pipecg -precond none", b, x);
  ck_assert_int_eq(R.status, NG_ERR_BREAKDOWN);
  ck_assert_msg(strstr(R.msg, "non-positive curvature (p, A p)") && strstr(R.msg, "likely causes"), "message: %s",
                R.msg);
  tcsr_free(&T);
  /* symmetric indefinite (spectrum of L - 2I is symmetric about 0), random b */
  lap1d(&T, 100, 1.0, 2.0);
  ng_test_random(b, 100);
  memset(x, 0, 100 * sizeof(double));
  R = run(&T, "-solver cg -precond none -tol 1e-10", b, x);
  ck_assert_msg(R.status == NG_ERR_BREAKDOWN || R.status == NG_ERR_DIVERGED, "%s: %s", ng_status_name(R.status), R.msg);
  free(b); free(x);
  tcsr_free(&T);
}
END_TEST

START_TEST(zero_rhs_gives_zero)
{
  tcsr T;
  lap2d(&T, 8);
  double *b = calloc(T.n, sizeof(double)), *x = malloc(T.n * sizeof(double));
  const char *opts[] = {"-solver cg", "-solver pcg", "-solver bicgstab", "-solver pbicgstab", "-solver gmres",
                        "-solver fgmres -precond none"};
  for (int k = 0; k < 6; k++) {
    ng_test_random(x, T.n);
    result R = run(&T, opts[k], b, x);
    NG_ASSERT_OK(R.status);
    ck_assert_int_eq(R.its, 0);
    ck_assert_int_eq(R.hlen, 1);
    ck_assert_double_eq(R.reported, 0.0);
    for (int32_t i = 0; i < T.n; i++) ck_assert_double_eq(x[i], 0.0);
  }
  free(b); free(x);
  tcsr_free(&T);
}
END_TEST

START_TEST(norm_r0_atol_divtol)
{
  tcsr T;
  lap2d(&T, 20);
  double *b = malloc(T.n * sizeof(double)), *x = malloc(T.n * sizeof(double)), *x0 = malloc(T.n * sizeof(double));
  ng_test_random(b, T.n);
  /* x0 near the solution: -norm r0 measures from ||r0|| */
  memset(x, 0, T.n * sizeof(double));
  result R = run(&T, "-solver cg -precond none -tol 1e-6", b, x);
  NG_ASSERT_OK(R.status);
  for (int32_t i = 0; i < T.n; i++) x0[i] = x[i] + 1e-3 * sin(i);
  double r0 = true_residual(&T, b, x0);
  memcpy(x, x0, T.n * sizeof(double));
  R = run(&T, "-solver pcg -norm r0 -tol 1e-6", b, x);
  NG_ASSERT_OK(R.status);
  ck_assert_double_eq_tol(R.h0, r0, 1e-10 * r0);
  ck_assert_double_eq_tol(R.reported, R.hlast / R.h0, 1e-14);
  ck_assert(true_residual(&T, b, x) < 10 * 1e-6 * r0);
  /* the same start with -norm b stops earlier (r0 << ||b||) */
  memcpy(x, x0, T.n * sizeof(double));
  result Rb = run(&T, "-solver pcg -norm b -tol 1e-6", b, x);
  NG_ASSERT_OK(Rb.status);
  ck_assert_int_lt(Rb.its, R.its);
  /* -atol alone: ||r|| <= atol */
  memset(x, 0, T.n * sizeof(double));
  R = run(&T, "-solver cg -precond none -tol 0 -atol 1e-3", b, x);
  NG_ASSERT_OK(R.status);
  ck_assert(R.hlast <= 1e-3 && true_residual(&T, b, x) < 1.01e-3);
  /* -divtol 0: any residual above 0 is divergence */
  memset(x, 0, T.n * sizeof(double));
  R = run(&T, "-solver bicgstab -precond none -divtol 0", b, x);
  ck_assert_int_eq(R.status, NG_ERR_DIVERGED);
  ck_assert_ptr_nonnull(strstr(R.msg, "diverged at iteration 1"));
  free(b); free(x); free(x0);
  tcsr_free(&T);
}
END_TEST

START_TEST(bad_names)
{
  ng_options o;
  ng_solver S;
  tcsr T;
  ng_matrix A;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set(o, "solver", "minres"));
  ck_assert_int_eq(ng_solver_create(ctx, o, &S), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "minres"));
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "fgmres"));
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "pbicgstab = bicgstab"));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-solver gmres -gmres_restart 0"));
  ck_assert_int_eq(ng_solver_create(ctx, o, &S), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "-gmres_restart 0"));
  NG_ASSERT_OK(ng_options_set(o, "gmres_restart", "30"));
  NG_ASSERT_OK(ng_options_set(o, "solver", "pcg"));
  NG_ASSERT_OK(ng_options_set(o, "precond", "ilu"));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  lap1d(&T, 10, 1, 0);
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, T.n, T.n, T.rp, T.col, T.val, &A));
  ck_assert_int_eq(ng_solver_set_operator(S, A), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "ilu"));
  /* cg, bicgstab, gmres and fgmres take -precond too (issue 32: cg used to
   * ignore it silently) */
  const char *names[] = {"cg", "bicgstab", "gmres", "fgmres"};
  for (int k = 0; k < 4; k++) {
    ng_solver_destroy(S);
    NG_ASSERT_OK(ng_options_set(o, "solver", names[k]));
    NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
    ck_assert_int_eq(ng_solver_set_operator(S, A), NG_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(ng_last_error(), "ilu"));
  }
  ng_solver_destroy(S);
  ng_solver_destroy(NULL);
  ng_matrix_destroy(A);
  ng_options_destroy(o);
  tcsr_free(&T);
}
END_TEST

/* The public preconditioner API: Jacobi gives omega r / diag exactly, and
 * update() follows new matrix values; "none" copies. */
START_TEST(precond_api)
{
  tcsr T;
  lap1d(&T, 30, 1, 0);
  for (int32_t i = 0; i < T.n; i++)
    for (int64_t k = T.rp[i]; k < T.rp[i + 1]; k++)
      if (T.col[k] == i) T.val[k] = 1.0 + i;
  ng_matrix A;
  ng_vector r, z;
  ng_options o;
  ng_precond P;
  double rv[30], zv[30];
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, T.n, T.n, T.rp, T.col, T.val, &A));
  NG_ASSERT_OK(ng_vector_create(A, &r));
  NG_ASSERT_OK(ng_vector_create(A, &z));
  ng_test_random(rv, 30);
  NG_ASSERT_OK(ng_vector_set_values(r, rv));
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-precond jacobi -jacobi_omega 0.5"));
  NG_ASSERT_OK(ng_precond_create(ctx, o, A, &P));
  NG_ASSERT_OK(ng_precond_apply(P, r, z));
  NG_ASSERT_OK(ng_vector_get_values(z, zv));
  for (int i = 0; i < 30; i++) ck_assert_double_eq_tol(zv[i], 0.5 * rv[i] / (1.0 + i), 1e-15);
  for (int64_t k = 0; k < T.rp[T.n]; k++) T.val[k] *= 4.0;
  NG_ASSERT_OK(ng_matrix_update_values(A, T.val));
  NG_ASSERT_OK(ng_precond_update(P, A));
  NG_ASSERT_OK(ng_precond_apply(P, r, z));
  NG_ASSERT_OK(ng_vector_get_values(z, zv));
  for (int i = 0; i < 30; i++) ck_assert_double_eq_tol(zv[i], 0.125 * rv[i] / (1.0 + i), 1e-15);
  ck_assert_int_eq(ng_precond_apply(P, r, r), NG_ERR_ARGUMENT);
  ng_precond_destroy(P);
  NG_ASSERT_OK(ng_options_set(o, "precond", "none"));
  NG_ASSERT_OK(ng_precond_create(ctx, o, A, &P));
  NG_ASSERT_OK(ng_precond_apply(P, r, z));
  NG_ASSERT_OK(ng_vector_get_values(z, zv));
  for (int i = 0; i < 30; i++) ck_assert_double_eq(zv[i], rv[i]);
  ng_precond_destroy(P);
  NG_ASSERT_OK(ng_options_set(o, "precond", "amg-not-yet"));
  ck_assert_int_eq(ng_precond_create(ctx, o, A, &P), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "jacobi"));
  NG_ASSERT_OK(ng_precond_create(ctx, NULL, A, &P)); /* NULL options: default jacobi */
  ng_precond_destroy(P);
  ng_options_destroy(o);
  ng_vector_destroy(r);
  ng_vector_destroy(z);
  ng_matrix_destroy(A);
  tcsr_free(&T);
}
END_TEST

/* New values, same matrix handle: set_operator again refreshes Jacobi and
 * the solve converges for the new matrix; work is reused (no realloc). */
START_TEST(reuse_after_value_update)
{
  tcsr T;
  lap2d(&T, 12);
  double *b = malloc(T.n * sizeof(double)), *x = calloc(T.n, sizeof(double));
  ng_test_random(b, T.n);
  ng_matrix A;
  ng_vector vb, vx;
  ng_solver S;
  ng_options o;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-solver pcg -tol 1e-10"));
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, T.n, T.n, T.rp, T.col, T.val, &A));
  NG_ASSERT_OK(ng_vector_create(A, &vb));
  NG_ASSERT_OK(ng_vector_create(A, &vx));
  NG_ASSERT_OK(ng_vector_set_values(vb, b));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  NG_ASSERT_OK(ng_solver_solve(S, vb, vx));
  double **work = S->work;
  for (int32_t i = 0; i < T.n; i++)
    for (int64_t k = T.rp[i]; k < T.rp[i + 1]; k++)
      if (T.col[k] == i) T.val[k] = 4.0 + 100.0 * (i % 3);
  NG_ASSERT_OK(ng_matrix_update_values(A, T.val));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  ck_assert_ptr_eq(S->work, work);
  NG_ASSERT_OK(ng_vector_fill(vx, 0.0));
  NG_ASSERT_OK(ng_solver_solve(S, vb, vx));
  NG_ASSERT_OK(ng_vector_get_values(vx, x));
  ck_assert(true_residual(&T, b, x) / norm(b, T.n) < 1e-9);
  ng_solver_destroy(S);
  ng_options_destroy(o);
  ng_vector_destroy(vb);
  ng_vector_destroy(vx);
  ng_matrix_destroy(A);
  free(b); free(x);
  tcsr_free(&T);
}
END_TEST

/* The library's generated problems (lap27, fem27; b from the generator). */
START_TEST(generated_problems)
{
  const char *specs[] = {"lap27:12", "fem27:12"};
  const char *opts[] = {"-solver cg -precond none -tol 1e-10", "-solver pcg -tol 1e-10", "-solver pbicgstab -tol 1e-10"};
  for (int p = 0; p < 2; p++) {
    ng_csr G;
    double *b;
    NG_ASSERT_OK(ng_generate_csr(specs[p], &G, &b));
    tcsr T = {G.nrows, G.rowptr, G.col, G.val}; /* a view, freed with G */
    double *x = malloc((size_t)T.n * sizeof(double));
    for (int k = 0; k < 3; k++) {
      char what[96];
      snprintf(what, sizeof(what), "%s %s", specs[p], opts[k]);
      memset(x, 0, (size_t)T.n * sizeof(double));
      result R = run(&T, opts[k], b, x);
      check_converged(&R, 1e-10, what);
    }
    free(x);
    ng_free(b);
    ng_csr_free(&G);
  }
}
END_TEST

/* A solve that reports success meets the tolerance in b - A x (issue 31
 * item 4). AMG-PCG on spheres7 (k = 1e6 in spheres: ||A|| ||x|| >> ||b||)
 * drifts: at 16^3, tol 1e-9, the recurrence reached 2e-10 while b - A x
 * was 1.25e-9 (reported as success); residual replacement brings it under
 * 1e-9. At 20^3 the drift (2.1e-9 true) stays above 1e-9 through the
 * replacements: NG_ERR_NOT_CONVERGED naming the true residual, never a
 * success. A solve with no drift (lap27, 2e-9 on spheres7:16) keeps its
 * iteration count. */
START_TEST(true_residual_at_convergence)
{
  const char *specs[] = {"spheres7:16", "spheres7:20", "spheres7:16", "lap27:12"};
  const char *opts[] = {"-solver pcg -precond amg -tol 1e-9", "-solver pcg -precond amg -tol 1e-9",
                        "-solver pcg -precond amg -tol 2e-9", "-solver pcg -tol 1e-10"};
  const double tols[] = {1e-9, 1e-9, 2e-9, 1e-10};
  for (int p = 0; p < 4; p++) {
    ng_csr G;
    double *b;
    NG_ASSERT_OK(ng_generate_csr(specs[p], &G, &b));
    tcsr T = {G.nrows, G.rowptr, G.col, G.val}; /* a view, freed with G */
    double *x = calloc((size_t)T.n, sizeof(double));
    result R = run(&T, opts[p], b, x);
    printf("%s %s: %s, its %d, reported %.3e, true %.3e%s%s\n", specs[p], opts[p], ng_status_name(R.status), R.its,
           R.reported, R.truerel, R.status ? ": " : "", R.status ? R.msg : "");
    if (p == 1) {
      ck_assert_msg(R.status == NG_ERR_NOT_CONVERGED || (R.status == NG_SUCCESS && R.truerel <= tols[p]),
                    "%s: %s with true residual %.3e", specs[p], ng_status_name(R.status), R.truerel);
      if (R.status) ck_assert_msg(strstr(R.msg, "true residual"), "%s: message '%s'", specs[p], R.msg);
    } else {
      ck_assert_msg(R.status == NG_SUCCESS, "%s %s: %s: %s", specs[p], opts[p], ng_status_name(R.status), R.msg);
      ck_assert_msg(R.truerel <= tols[p], "%s %s: success with a true residual %.3e > tol %g", specs[p], opts[p],
                    R.truerel, tols[p]);
    }
    if (p == 2) ck_assert_int_eq(R.its, 12); /* no replacement needed: the count before the check */
    free(x);
    ng_free(b);
    ng_csr_free(&G);
  }
}
END_TEST

/* The same for BiCGSTAB and pipelined CG (ng_krylov_verify): AMG on
 * spheres7 drifts there too. Measured: BiCGSTAB at 18^3 met 1e-9 in its
 * recurrence at iteration 23 with b - A x above it, replaced the residual
 * and met it at 24; at 22^3 three replacements do not reach it
 * (NG_ERR_NOT_CONVERGED naming the true residual); pipecg at 14^3
 * replaced once and met it. Whatever the counts on another build, a
 * success meets the tolerance in b - A x and a failure says why. */
START_TEST(true_residual_bicgstab_pipecg)
{
  const char *specs[] = {"spheres7:18", "spheres7:22", "spheres7:14", "spheres7:16"};
  const char *opts[] = {"-solver bicgstab -precond amg -tol 1e-9", "-solver bicgstab -precond amg -tol 1e-9",
                        "-solver pipecg -precond amg -tol 1e-9", "-solver pipecg -precond amg -tol 1e-9"};
  int successes = 0;
  for (int p = 0; p < 4; p++) {
    ng_csr G;
    double *b;
    NG_ASSERT_OK(ng_generate_csr(specs[p], &G, &b));
    tcsr T = {G.nrows, G.rowptr, G.col, G.val};
    double *x = calloc((size_t)T.n, sizeof(double));
    result R = run(&T, opts[p], b, x);
    printf("%s %s: %s, its %d, reported %.3e, true %.3e%s%s\n", specs[p], opts[p], ng_status_name(R.status), R.its,
           R.reported, R.truerel, R.status ? ": " : "", R.status ? R.msg : "");
    ck_assert_msg(R.status == NG_SUCCESS || R.status == NG_ERR_NOT_CONVERGED, "%s %s: %s: %s", specs[p], opts[p],
                  ng_status_name(R.status), R.msg);
    if (R.status == NG_SUCCESS) {
      successes++;
      ck_assert_msg(R.truerel <= 1e-9, "%s %s: success with a true residual %.3e > tol 1e-9", specs[p], opts[p],
                    R.truerel);
    } else
      ck_assert_msg(strstr(R.msg, "true residual"), "%s: message '%s'", specs[p], R.msg);
    free(x);
    ng_free(b);
    ng_csr_free(&G);
  }
  ck_assert_msg(successes >= 2, "only %d of the solves converged", successes);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("solver");
  TCase *tc = tcase_create("solver");
  tcase_add_unchecked_fixture(tc, setup, teardown); /* one context: MPI cannot restart */
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, cg_and_pcg_converge_on_lap2d);
  tcase_add_test(tc, jacobi_helps_on_bad_scaling);
  tcase_add_test(tc, bicgstab_on_nonsymmetric);
  tcase_add_test(tc, maxit_too_small);
  tcase_add_test(tc, zero_diagonal_with_jacobi);
  tcase_add_test(tc, indefinite_matrix_with_cg);
  tcase_add_test(tc, zero_rhs_gives_zero);
  tcase_add_test(tc, norm_r0_atol_divtol);
  tcase_add_test(tc, bad_names);
  tcase_add_test(tc, precond_api);
  tcase_add_test(tc, reuse_after_value_update);
  tcase_add_test(tc, generated_problems);
  tcase_add_test(tc, true_residual_at_convergence);
  tcase_add_test(tc, true_residual_bicgstab_pipecg);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
