/* test/test_gmres.c: GMRES(m) and FGMRES(m) (solver/gmres.c) on
 * nonsymmetric problems (a random diagonally dominant matrix, 2D
 * convection-diffusion) and lap27 with Jacobi and AMG; FGMRES with a
 * preconditioner that changes at every application; -gmres_restart
 * honoured; the true residual at the end; a tolerance below the rounding
 * floor reported, not iterated to -maxit; a happy breakdown. Also the
 * issue-32 items every solver shares: one name per method (cg takes
 * -precond, pcg is cg) and the monitor callback (ng_solver_set_monitor).
 * Every converged solve is checked by ||b - A x|| from the arrays
 * (solver_helpers.h). */
#include "solver_helpers.h"

/* Solves nonsym(500) and convdiff2d with every pairing of method and
 * preconditioner that a nonsymmetric system allows. */
START_TEST(gmres_on_nonsymmetric)
{
  tcsr T[2];
  nonsym(&T[0], 500);
  convdiff2d(&T[1], 30, 2.0, 1.0);
  const char *names[] = {"nonsym 500", "convdiff 30x30"};
  const char *opts[] = {"-solver gmres -precond none -tol 1e-10 -maxit 3000",
                        "-solver gmres -precond jacobi -tol 1e-10 -maxit 3000",
                        "-solver gmres -precond amg -amg_coarse_size 20 -tol 1e-10",
                        "-solver fgmres -precond none -tol 1e-10 -maxit 3000",
                        "-solver fgmres -precond jacobi -tol 1e-10 -maxit 3000",
                        "-solver fgmres -precond amg -amg_coarse_size 20 -tol 1e-10"};
  for (int p = 0; p < 2; p++) {
    double *b = malloc(T[p].n * sizeof(double)), *x = malloc(T[p].n * sizeof(double));
    ng_test_random(b, T[p].n);
    for (int k = 0; k < 6; k++) {
      char what[160];
      snprintf(what, sizeof(what), "%s %s", names[p], opts[k]);
      memset(x, 0, T[p].n * sizeof(double));
      result R = run(&T[p], opts[k], b, x);
      check_converged(&R, 1e-10, what);
      ck_assert_double_eq_tol(R.h0, norm(b, T[p].n), 1e-12 * R.h0); /* x0 = 0: r0 = b */
    }
    free(b);
    free(x);
    tcsr_free(&T[p]);
  }
}
END_TEST

/* -amg_smoother auto: mcgs under gmres and bicgstab on a strongly convective
 * convection-diffusion (the same iterations as asking for mcgs, fewer than
 * jacobi, which may not converge at all), jacobi under cg (the same
 * iterations and residual as asking for jacobi). Aggregation pinned: the
 * smoother is the subject here, and auto's verdict on this problem depends
 * on each smoother's rate (and so on the thread count). */
START_TEST(amg_smoother_auto_follows_the_method)
{
  tcsr T;
  convdiff2d(&T, 60, 20.0, 10.0);
  double *b = malloc(T.n * sizeof(double)), *x = malloc(T.n * sizeof(double));
  ng_test_random(b, T.n);
  const char *methods[] = {"gmres", "bicgstab"};
  for (int k = 0; k < 2; k++) {
    char o[3][160];
    result R[3];
    snprintf(o[0], sizeof(o[0]), "-solver %s -precond amg -amg_coarsening aggregation -tol 1e-8 -maxit 400", methods[k]);
    snprintf(o[1], sizeof(o[1]), "%s -amg_smoother mcgs", o[0]);
    snprintf(o[2], sizeof(o[2]), "%s -amg_smoother jacobi", o[0]);
    for (int v = 0; v < 3; v++) {
      memset(x, 0, T.n * sizeof(double));
      R[v] = run(&T, o[v], b, x);
    }
    check_converged(&R[0], 1e-8, o[0]);
    ck_assert_msg(R[0].its == R[1].its && R[0].truerel == R[1].truerel, "%s: auto %d its, mcgs %d", methods[k],
                  R[0].its, R[1].its);
    ck_assert_msg(R[2].status != NG_SUCCESS || R[2].its > R[0].its, "%s: jacobi %d its (%s), auto %d", methods[k],
                  R[2].its, ng_status_name(R[2].status), R[0].its);
    printf("convdiff 60x60 hc 20,10 %-9s amg auto %d its, jacobi %d (%s)\n", methods[k], R[0].its, R[2].its,
           ng_status_name(R[2].status));
  }
  tcsr_free(&T);
  lap2d(&T, 40);
  ng_test_random(b, T.n);
  result C[2];
  const char *co[2] = {"-solver cg -precond amg -tol 1e-8", "-solver cg -precond amg -amg_smoother jacobi -tol 1e-8"};
  for (int v = 0; v < 2; v++) {
    memset(x, 0, T.n * sizeof(double));
    C[v] = run(&T, co[v], b, x);
  }
  ck_assert_msg(C[0].its == C[1].its && C[0].truerel == C[1].truerel, "cg: auto %d its, jacobi %d", C[0].its, C[1].its);
  tcsr_free(&T);
  free(b);
  free(x);
}
END_TEST

/* lap27 (the library's generator, b from it) with Jacobi and AMG: AMG
 * takes far fewer iterations; GMRES and FGMRES with the same fixed
 * preconditioner take the same number. */
START_TEST(gmres_on_lap27)
{
  ng_csr G;
  double *b;
  NG_ASSERT_OK(ng_generate_csr("lap27:14", &G, &b));
  tcsr T = {G.nrows, G.rowptr, G.col, G.val}; /* a view, freed with G */
  double *x = malloc((size_t)T.n * sizeof(double));
  const char *opts[] = {"-solver gmres -precond jacobi -tol 1e-10", "-solver gmres -precond amg -tol 1e-10",
                        "-solver fgmres -precond jacobi -tol 1e-10", "-solver fgmres -precond amg -tol 1e-10"};
  int its[4];
  for (int k = 0; k < 4; k++) {
    memset(x, 0, (size_t)T.n * sizeof(double));
    result R = run(&T, opts[k], b, x);
    check_converged(&R, 1e-10, opts[k]);
    its[k] = R.its;
  }
  ck_assert_int_lt(2 * its[1], its[0]); /* AMG vs Jacobi */
  ck_assert_int_le(abs(its[0] - its[2]), 1);
  ck_assert_int_le(abs(its[1] - its[3]), 1);
  free(x);
  ng_free(b);
  ng_csr_free(&G);
}
END_TEST

/* A preconditioner that changes at every application: Jacobi times a
 * diagonal in [0.2, 1.8] that differs at each call. */
static const ng_precond_ops *inner_ops;
static ng_precond_ops varying_ops;
static int varying_calls;
static ng_status varying_apply(ng_precond P, const double *r, double *z)
{
  ng_status st = inner_ops->apply(P, r, z);
  varying_calls++;
  for (int32_t i = 0; i < P->A->n_local; i++) z[i] *= 1.0 + 0.8 * sin(1.7 * varying_calls + 0.37 * i);
  return st;
}

/* Solves with the varying preconditioner; its, true relative residual. */
static ng_status solve_varying(const tcsr *T, const char *options, const double *b, int *its, double *truerel)
{
  ng_options o;
  ng_matrix A;
  ng_vector vb, vx;
  ng_solver S;
  double *x = malloc(T->n * sizeof(double));
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, options));
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, T->n, T->n, T->rp, T->col, T->val, &A));
  NG_ASSERT_OK(ng_vector_create(A, &vb));
  NG_ASSERT_OK(ng_vector_create(A, &vx));
  NG_ASSERT_OK(ng_vector_set_values(vb, b));
  NG_ASSERT_OK(ng_vector_fill(vx, 0.0));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  ck_assert_ptr_nonnull(S->P);
  inner_ops = S->P->ops;
  varying_ops = *inner_ops;
  varying_ops.apply = varying_apply;
  varying_ops.diagonal = NULL; /* no longer a fixed diagonal */
  S->P->ops = &varying_ops;
  varying_calls = 0;
  ng_status st = ng_solver_solve(S, vb, vx);
  NG_ASSERT_OK(ng_solver_get_iterations(S, its));
  NG_ASSERT_OK(ng_vector_get_values(vx, x));
  *truerel = true_residual(T, b, x) / norm(b, T->n);
  printf("%-48s varying M: %s, %d its (%d applications), true rel %.3e\n", options, ng_status_name(st), *its,
         varying_calls, *truerel);
  S->P->ops = inner_ops;
  ng_solver_destroy(S);
  ng_options_destroy(o);
  ng_vector_destroy(vb);
  ng_vector_destroy(vx);
  ng_matrix_destroy(A);
  free(x);
  return st;
}

START_TEST(fgmres_with_varying_preconditioner)
{
  tcsr T;
  convdiff2d(&T, 24, 2.0, 1.0);
  double *b = malloc(T.n * sizeof(double));
  ng_test_random(b, T.n);
  int its, its_g;
  double rel, rel_g;
  ng_status st = solve_varying(&T, "-solver fgmres -precond jacobi -tol 1e-10 -maxit 1000", b, &its, &rel);
  ck_assert_msg(st == NG_SUCCESS, "fgmres with a varying preconditioner: %s: %s", ng_status_name(st),
                ng_last_error());
  ck_assert_msg(rel <= 1e-10 * (1 + 1e-6), "fgmres: true relative residual %.3e", rel);
  ck_assert_int_eq(varying_calls, its); /* one application per iteration */
  /* GMRES assumes one M: its update M^-1 V y uses the last M only, so it
   * does worse (more iterations, or none converged within maxit) */
  st = solve_varying(&T, "-solver gmres -precond jacobi -tol 1e-10 -maxit 1000", b, &its_g, &rel_g);
  ck_assert_msg(st != NG_SUCCESS || its_g > its, "gmres %s in %d its vs fgmres %d", ng_status_name(st), its_g, its);
  free(b);
  tcsr_free(&T);
}
END_TEST

/* The restart length is honoured: on convection-diffusion without a
 * preconditioner GMRES(5) needs more iterations than GMRES(30), and the
 * work is m + 1 basis vectors (+ 1 or + m with a preconditioner). */
START_TEST(restart_honoured)
{
  tcsr T;
  convdiff2d(&T, 32, 0.1, 0.05); /* mildly nonsymmetric: restarts cost much */
  double *b = malloc(T.n * sizeof(double)), *x = malloc(T.n * sizeof(double));
  for (int32_t i = 0; i < T.n; i++) b[i] = 1.0; /* fixed: the counts below do not depend on the seed */
  int its[3], m[3] = {5, 30, 1};
  for (int k = 0; k < 3; k++) {
    char opt[128];
    snprintf(opt, sizeof(opt), "-solver gmres -precond none -tol 1e-8 -maxit 20000 -gmres_restart %d", m[k]);
    memset(x, 0, T.n * sizeof(double));
    result R = run(&T, opt, b, x);
    check_converged(&R, 1e-8, opt);
    its[k] = R.its;
  }
  ck_assert_msg(its[0] > its[1], "GMRES(5) %d its, GMRES(30) %d", its[0], its[1]);
  ck_assert_msg(its[2] > its[0], "GMRES(1) %d its, GMRES(5) %d", its[2], its[0]);
  /* the work block */
  struct { const char *opts; int nwork; } w[] = {{"-solver gmres -precond none", 31},
                                                 {"-solver gmres -precond jacobi -gmres_restart 12", 14},
                                                 {"-solver fgmres -precond jacobi -gmres_restart 12", 25},
                                                 {"-solver fgmres -precond jacobi -maxit 4", 9}};
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, T.n, T.n, T.rp, T.col, T.val, &A));
  for (int k = 0; k < 4; k++) {
    ng_options o;
    ng_solver S;
    NG_ASSERT_OK(ng_options_create(&o));
    NG_ASSERT_OK(ng_options_set_from_string(o, w[k].opts));
    NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
    NG_ASSERT_OK(ng_solver_set_operator(S, A));
    ck_assert_msg(S->nwork == w[k].nwork, "%s: %d work vectors, want %d", w[k].opts, S->nwork, w[k].nwork);
    ck_assert(S->ld >= T.n && S->work[S->nwork - 1] == S->work[0] + (S->nwork - 1) * S->ld);
    ng_solver_destroy(S);
    ng_options_destroy(o);
  }
  ng_matrix_destroy(A);
  free(b);
  free(x);
  tcsr_free(&T);
}
END_TEST

/* GMRES without a preconditioner on an SPD matrix, from x0 = 0 and from
 * x0 != 0: the true residual (recomputed here) meets the tolerance, and
 * the reported one is it (recomputed by the solver at the end). */
START_TEST(gmres_true_residual_on_spd)
{
  tcsr T;
  lap2d(&T, 20);
  double *b = malloc(T.n * sizeof(double)), *x = malloc(T.n * sizeof(double));
  ng_test_random(b, T.n);
  for (int start = 0; start < 2; start++) {
    if (start) ng_test_random(x, T.n); else memset(x, 0, T.n * sizeof(double));
    result R = run(&T, "-solver gmres -precond none -tol 1e-10 -gmres_restart 20", b, x);
    check_converged(&R, 1e-10, start ? "gmres lap2d, x0 random" : "gmres lap2d, x0 = 0");
    ck_assert_msg(R.truerel <= 1e-10 * (1 + 1e-6), "true relative residual %.3e > tol", R.truerel);
    ck_assert_double_eq_tol(R.truerel, R.reported, 1e-6 * R.reported);
    ck_assert_int_gt(R.its, 20); /* at least one restart happened */
  }
  free(b);
  free(x);
  tcsr_free(&T);
}
END_TEST

/* A tolerance below what rounding allows (het7:16 with AMG to 1e-16): each
 * cycle's estimate meets it while b - A x stays near 7e-15; after three
 * restarts from b - A x the solve reports NG_ERR_NOT_CONVERGED naming the
 * true residual, in tens of iterations, not at -maxit (it ran all 500
 * before). */
START_TEST(gmres_stops_at_the_rounding_floor)
{
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "het7:16", &A, NULL));
  const char *opts[] = {"-solver gmres -precond amg -tol 1e-16 -maxit 500",
                        "-solver fgmres -precond amg -tol 1e-16 -maxit 500"};
  for (int k = 0; k < 2; k++) {
    ng_options o;
    ng_solver S;
    ng_vector b, x;
    NG_ASSERT_OK(ng_options_create(&o));
    NG_ASSERT_OK(ng_options_set_from_string(o, opts[k]));
    NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
    NG_ASSERT_OK(ng_options_destroy(o));
    NG_ASSERT_OK(ng_solver_set_operator(S, A));
    NG_ASSERT_OK(ng_vector_create(A, &b));
    NG_ASSERT_OK(ng_vector_create(A, &x));
    NG_ASSERT_OK(ng_vector_fill(b, 1.0));
    NG_ASSERT_OK(ng_vector_fill(x, 0.0));
    ng_status st = ng_solver_solve(S, b, x);
    int its;
    double rel;
    NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
    NG_ASSERT_OK(ng_solver_get_residual(S, &rel));
    ck_assert_msg(st == NG_ERR_NOT_CONVERGED, "%s: %s", opts[k], ng_status_name(st));
    ck_assert_msg(strstr(ng_last_error(), "true residual") && strstr(ng_last_error(), "3 residual replacements"), "%s",
                  ng_last_error());
    ck_assert_msg(its < 60, "%s: %d iterations at the floor", opts[k], its);
    ck_assert_msg(rel > 1e-16 && rel < 1e-13, "%s: true relative residual %.3e", opts[k], rel);
    printf("het7:16 %s: stopped after %d iterations at %.3e\n", opts[k], its, rel);
    ng_vector_destroy(b);
    ng_vector_destroy(x);
    ng_solver_destroy(S);
  }
  ng_matrix_destroy(A);
}
END_TEST

/* A = diag(1, 2, 3, 1, 2, 3, ...): the Krylov space has dimension 3, so
 * GMRES is exact after 3 iterations (w vanishes: a happy breakdown). */
START_TEST(gmres_happy_breakdown)
{
  tcsr T;
  tcsr_init(&T, 30, 1);
  for (int32_t i = 0; i < 30; i++) {
    tcsr_push(&T, i, i, 1.0 + i % 3);
    tcsr_next_row(&T, i);
  }
  double b[30], x[30] = {0};
  ng_test_random(b, 30);
  const char *opts[] = {"-solver gmres -precond none -tol 1e-12", "-solver fgmres -precond none -tol 1e-12"};
  for (int k = 0; k < 2; k++) {
    memset(x, 0, sizeof(x));
    result R = run(&T, opts[k], b, x);
    check_converged(&R, 1e-12, opts[k]);
    ck_assert_int_eq(R.its, 3);
    for (int i = 0; i < 30; i++) ck_assert_double_eq_tol(x[i], b[i] / (1.0 + i % 3), 1e-12);
  }
  tcsr_free(&T);
}
END_TEST

/* One name per method: cg with -precond jacobi is pcg with it (the same
 * iterations and history, bit for bit); bicgstab likewise; pcg and
 * pbicgstab report the method that ran. */
START_TEST(one_name_per_method)
{
  tcsr T;
  nonsym(&T, 300);
  tcsr L;
  lap2d(&L, 20);
  double *b = malloc(L.n * sizeof(double)), *x = malloc(L.n * sizeof(double));
  ng_test_random(b, L.n);
  const char *pairs[][2] = {{"-solver cg -precond jacobi -tol 1e-10", "-solver pcg -precond jacobi -tol 1e-10"},
                            {"-solver cg -precond amg -amg_coarse_size 20 -tol 1e-10",
                             "-solver pcg -precond amg -amg_coarse_size 20 -tol 1e-10"},
                            {"-solver bicgstab -precond jacobi -tol 1e-10", "-solver pbicgstab -precond jacobi -tol 1e-10"},
                            {"-solver cg -precond none -tol 1e-10", "-solver pcg -precond none -tol 1e-10"}};
  for (int k = 0; k < 4; k++) {
    result R[2];
    for (int q = 0; q < 2; q++) {
      memset(x, 0, L.n * sizeof(double));
      R[q] = run(&L, pairs[k][q], b, x);
      check_converged(&R[q], 1e-10, pairs[k][q]);
    }
    ck_assert_int_eq(R[0].its, R[1].its);
    ck_assert(memcmp(&R[0].hlast, &R[1].hlast, sizeof(double)) == 0);
  }
  /* cg -precond amg is AMG-CG, not plain CG (the trap) */
  memset(x, 0, L.n * sizeof(double));
  result plain = run(&L, "-solver cg -precond none -tol 1e-10", b, x);
  memset(x, 0, L.n * sizeof(double));
  result amg = run(&L, "-solver cg -precond amg -amg_coarse_size 20 -tol 1e-10", b, x);
  ck_assert_int_lt(2 * amg.its, plain.its);
  /* what ran, by name */
  struct { const char *opts, *method, *precond; } c[] = {{"-solver pcg -precond amg", "cg", "amg"},
                                                         {"-solver cg -precond jacobi", "cg", "jacobi"},
                                                         {"-solver pbicgstab -precond none", "bicgstab", "none"},
                                                         {"-solver fgmres", "fgmres", "jacobi"}};
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, T.n, T.n, T.rp, T.col, T.val, &A));
  for (int k = 0; k < 4; k++) {
    ng_options o;
    ng_solver S;
    const char *method, *precond;
    NG_ASSERT_OK(ng_options_create(&o));
    NG_ASSERT_OK(ng_options_set_from_string(o, c[k].opts));
    NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
    NG_ASSERT_OK(ng_solver_set_operator(S, A));
    NG_ASSERT_OK(ng_solver_get_method(S, &method, &precond));
    ck_assert_str_eq(method, c[k].method);
    ck_assert_str_eq(precond, c[k].precond);
    ng_solver_destroy(S);
    ng_options_destroy(o);
  }
  ck_assert_int_eq(ng_solver_get_method(NULL, NULL, NULL), NG_ERR_ARGUMENT);
  ng_matrix_destroy(A);
  free(b);
  free(x);
  tcsr_free(&T);
  tcsr_free(&L);
}
END_TEST

/* The monitor callback (on lap2d, SPD: every method converges): every solver calls it with iterations 0, 1, ...,
 * its (its + 1 calls) and the residual norms of the history (GMRES: the
 * estimates, non-increasing; the last history entry is then replaced by
 * the recomputed true residual). */
typedef struct {
  int calls, out_of_order;
  double r[512];
} monitor_log;
static void log_monitor(ng_solver S, int it, double rnorm, void *user)
{
  monitor_log *m = user;
  if (it != m->calls) m->out_of_order++;
  if (m->calls < 512) m->r[m->calls] = rnorm;
  m->calls++;
}

START_TEST(monitor_every_iteration)
{
  tcsr T;
  lap2d(&T, 20);
  double *b = malloc(T.n * sizeof(double));
  ng_test_random(b, T.n);
  const char *opts[] = {"-solver cg -precond jacobi -tol 1e-10", "-solver bicgstab -precond amg -amg_coarse_size 20 -tol 1e-10",
                        "-solver gmres -precond jacobi -tol 1e-10 -gmres_restart 8",
                        "-solver fgmres -precond none -tol 1e-10"};
  ng_matrix A;
  ng_vector vb, vx;
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, T.n, T.n, T.rp, T.col, T.val, &A));
  NG_ASSERT_OK(ng_vector_create(A, &vb));
  NG_ASSERT_OK(ng_vector_create(A, &vx));
  NG_ASSERT_OK(ng_vector_set_values(vb, b));
  for (int k = 0; k < 4; k++) {
    ng_options o;
    ng_solver S;
    monitor_log m = {0};
    int its;
    const double *h;
    int hlen;
    NG_ASSERT_OK(ng_options_create(&o));
    NG_ASSERT_OK(ng_options_set_from_string(o, opts[k]));
    NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
    NG_ASSERT_OK(ng_solver_set_operator(S, A));
    NG_ASSERT_OK(ng_solver_set_monitor(S, log_monitor, &m));
    NG_ASSERT_OK(ng_vector_fill(vx, 0.0));
    NG_ASSERT_OK(ng_solver_solve(S, vb, vx));
    NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
    NG_ASSERT_OK(ng_solver_get_history(S, &h, &hlen));
    printf("%-56s %d iterations, %d monitor calls\n", opts[k], its, m.calls);
    ck_assert_int_gt(its, 2);
    ck_assert_int_eq(m.calls, its + 1);
    ck_assert_int_eq(m.out_of_order, 0);
    int gmres = strstr(opts[k], "gmres") != NULL;
    /* GMRES replaces a cycle's last entry by the true residual: close to the estimate */
    for (int i = 0; i <= its; i++)
      ck_assert_msg(gmres ? fabs(m.r[i] - h[i]) <= 1e-3 * h[i] : m.r[i] == h[i], "%s: monitor %d: %.17g, history %.17g",
                    opts[k], i, m.r[i], h[i]);
    if (gmres)
      for (int i = 1; i <= its; i++) ck_assert_msg(m.r[i] <= m.r[i - 1] * (1 + 1e-8), "%s: estimate %d grew", opts[k], i);
    ck_assert(m.r[its] < 1e-9 * m.r[0]);
    /* removed: no more calls */
    NG_ASSERT_OK(ng_solver_set_monitor(S, NULL, NULL));
    NG_ASSERT_OK(ng_vector_fill(vx, 0.0));
    NG_ASSERT_OK(ng_solver_solve(S, vb, vx));
    ck_assert_int_eq(m.calls, its + 1);
    ng_solver_destroy(S);
    ng_options_destroy(o);
  }
  ck_assert_int_eq(ng_solver_set_monitor(NULL, log_monitor, NULL), NG_ERR_ARGUMENT);
  ng_vector_destroy(vb);
  ng_vector_destroy(vx);
  ng_matrix_destroy(A);
  free(b);
  tcsr_free(&T);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("gmres");
  TCase *tc = tcase_create("gmres");
  tcase_add_unchecked_fixture(tc, setup, teardown); /* one context: MPI cannot restart */
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, gmres_on_nonsymmetric);
  tcase_add_test(tc, amg_smoother_auto_follows_the_method);
  tcase_add_test(tc, gmres_on_lap27);
  tcase_add_test(tc, fgmres_with_varying_preconditioner);
  tcase_add_test(tc, restart_honoured);
  tcase_add_test(tc, gmres_true_residual_on_spd);
  tcase_add_test(tc, gmres_stops_at_the_rounding_floor);
  tcase_add_test(tc, gmres_happy_breakdown);
  tcase_add_test(tc, one_name_per_method);
  tcase_add_test(tc, monitor_every_iteration);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
