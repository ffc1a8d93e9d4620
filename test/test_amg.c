/* test/test_amg.c: smoothed-aggregation AMG on the host. Structure: the
 * tentative P holds the constant vector exactly and the smoothed P maps it to
 * (I - omega D^-1 A) 1; aggregation is the same for 1 and 2 threads; the
 * Galerkin operator equals a dense triple product P^T A P computed here;
 * R = P^T. Solves: AMG-PCG converges on fem27, lap27, aniso27 and bcsstk13
 * with the residual recomputed here and in fewer iterations than
 * Jacobi-PCG; graded sweeps, the smoother coarse solve and PBiCGSTAB;
 * update with values scaled by 3 gives the same iteration count and a
 * coarse operator scaled by 3; bad options are clear errors. */
#include "testutil.h"
#include "../precond/amg.h"
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static ng_context ctx;
static void setup(void) { NG_ASSERT_OK(ng_context_create("cpu", &ctx)); }
static void teardown(void) { ng_context_destroy(ctx); }

/* ||b - A x|| / ||b|| from the host arrays, written here. */
static double true_residual(const ng_csr *A, const double *b, const double *x)
{
  double rr = 0, bb = 0;
  for (int32_t i = 0; i < A->nrows; i++) {
    double s = b[i];
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s -= A->val[k] * x[A->col[k]];
    rr += s * s;
    bb += b[i] * b[i];
  }
  return sqrt(rr / bb);
}

/* Solves A x = b (x = 0 first) with the options; returns iterations, checks the residual. */
static int solve(ng_matrix A, ng_vector b, const char *options, double check_tol)
{
  ng_options o;
  ng_solver S;
  ng_vector x;
  int its;
  int32_t n = A->n_local;
  double *xh = malloc(n * sizeof(double)), *bh = malloc(n * sizeof(double));
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, options));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  NG_ASSERT_OK(ng_solver_solve(S, b, x));
  NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
  NG_ASSERT_OK(ng_vector_get_values(x, xh));
  NG_ASSERT_OK(ng_vector_get_values(b, bh));
  double rel = true_residual(&A->local, bh, xh);
  ck_assert_msg(rel <= check_tol, "%s: true residual %.3e > %.1e after %d iterations", options, rel, check_tol, its);
  ng_vector_destroy(x);
  ng_solver_destroy(S);
  ng_options_destroy(o);
  free(xh);
  free(bh);
  return its;
}

static ng_precond make_amg(ng_matrix A, const char *options)
{
  ng_options o;
  ng_precond P;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg"));
  NG_ASSERT_OK(ng_options_set_from_string(o, options));
  NG_ASSERT_OK(ng_precond_create(ctx, o, A, &P));
  ng_options_destroy(o);
  return P;
}

START_TEST(prolongator_keeps_constant)
{
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap27:12", &A, NULL));
  ng_precond P = make_amg(A, "-amg_coarse_size 10");
  ng_amg *M = ng_amg_of(P);
  ck_assert_ptr_nonnull(M);
  ck_assert_int_ge(M->nlevels, 2);
  const ng_amg_level *L = &M->L[0];
  const ng_csr *Ah = &A->local;
  int32_t n = L->n, nc = L->nagg;
  /* every lap27 row has strong neighbours: all aggregated; sizes from agg */
  double *size = calloc(nc, sizeof(double)), *v = malloc(nc * sizeof(double)), *pv = malloc(n * sizeof(double));
  for (int32_t i = 0; i < n; i++) {
    ck_assert_int_ge(L->agg[i], 0);
    ck_assert_int_lt(L->agg[i], nc);
    size[L->agg[i]] += 1;
  }
  for (int32_t c = 0; c < nc; c++) ck_assert_msg(size[c] >= 1, "aggregate %d is empty", (int)c);
  /* tentative: P_tent sqrt(size) = 1 exactly, orthonormal columns */
  for (int32_t i = 0; i < n; i++) ck_assert_double_eq_tol(L->ptent[i] * sqrt(size[L->agg[i]]), 1.0, 1e-15);
  /* smoothed: P v = (I - w D^-1 A) 1 with v_c = sqrt(size_c) and w = 4/(3 rho) */
  for (int32_t c = 0; c < nc; c++) v[c] = sqrt(size[c]);
  for (int32_t i = 0; i < n; i++) {
    pv[i] = 0;
    for (int64_t k = L->P.rowptr[i]; k < L->P.rowptr[i + 1]; k++) pv[i] += L->P.val[k] * v[L->P.col[k]];
  }
  double w = 4.0 / (3.0 * L->rho);
  int interior = 0;
  for (int32_t i = 0; i < n; i++) {
    double d = 0, rowsum = 0;
    for (int64_t k = Ah->rowptr[i]; k < Ah->rowptr[i + 1]; k++) {
      rowsum += Ah->val[k];
      if (Ah->col[k] == i) d = Ah->val[k];
    }
    double expect = 1.0 - w * rowsum / d;
    ck_assert_msg(fabs(pv[i] - expect) <= 1e-13, "row %d: P v = %.15g, (I - w D^-1 A) 1 = %.15g", (int)i, pv[i], expect);
    if (rowsum == 0.0) { /* interior: A 1 = 0, so the constant is reproduced */
      ck_assert_double_eq_tol(pv[i], 1.0, 1e-13);
      interior++;
    }
  }
  ck_assert_int_eq(interior, 10 * 10 * 10);
  /* the spectral radius estimate is close to the true one from below-ish:
   * lap27's D^-1 A has rho < 36/26 (Gershgorin would say 2) */
  ck_assert_msg(L->rho > 1.2 && L->rho < 36.0 / 26.0 + 1e-12, "rho(D^-1 A) estimate %g", L->rho);
  free(size);
  free(v);
  free(pv);
  ng_precond_destroy(P);
  ng_matrix_destroy(A);
}
END_TEST

START_TEST(aggregation_is_deterministic)
{
  ng_matrix A;
  ng_graph S;
  int32_t nagg[3];
  NG_ASSERT_OK(ng_matrix_generate(ctx, "fem27:18", &A, NULL));
  int32_t n = A->n_local;
  int32_t *agg[3];
  NG_ASSERT_OK(ng_amg_strength(&A->local, 0.025, &S));
  for (int r = 0; r < 3; r++) {
#ifdef _OPENMP
    omp_set_num_threads(r == 1 ? 1 : 2);
#endif
    agg[r] = malloc(n * sizeof(int32_t));
    NG_ASSERT_OK(ng_amg_aggregate(&S, agg[r], &nagg[r]));
  }
#ifdef _OPENMP
  omp_set_num_threads(2);
#endif
  ck_assert_int_eq(nagg[0], nagg[1]);
  ck_assert_int_eq(nagg[0], nagg[2]);
  for (int32_t i = 0; i < n; i++) {
    ck_assert_int_eq(agg[0][i], agg[1][i]);
    ck_assert_int_eq(agg[0][i], agg[2][i]);
  }
  /* real coarsening: MIS(2) roots are >= 3 apart, so aggregates are large */
  ck_assert_msg(nagg[0] > n / 100 && nagg[0] < n / 8, "%d aggregates of %d rows", (int)nagg[0], (int)n);
  /* every aggregate is connected to its root through strong edges: each
   * member is its root or has a strong neighbour in the same aggregate */
  for (int32_t i = 0; i < n; i++) {
    int ok = 0;
    if (S.rowptr[i + 1] == S.rowptr[i]) { /* no strong neighbour (a Dirichlet row): left to the smoother */
      ck_assert_int_eq(agg[0][i], -1);
      continue;
    }
    for (int64_t k = S.rowptr[i]; k < S.rowptr[i + 1]; k++) ok |= agg[0][S.col[k]] == agg[0][i];
    ck_assert_msg(ok, "row %d (aggregate %d) has no strong neighbour in its aggregate", (int)i, (int)agg[0][i]);
  }
  for (int r = 0; r < 3; r++) free(agg[r]);
  ng_graph_free(&S);
  ng_matrix_destroy(A);
}
END_TEST

/* Dense n x m copy of a CSR. */
static double *dense(const ng_csr *X)
{
  double *d = calloc((size_t)X->nrows * X->ncols, sizeof(double));
  for (int32_t i = 0; i < X->nrows; i++)
    for (int64_t k = X->rowptr[i]; k < X->rowptr[i + 1]; k++) d[(size_t)i * X->ncols + X->col[k]] += X->val[k];
  return d;
}

/* Every level's R = P^T exactly and coarse A = P^T A P (dense, computed here). */
static void check_galerkin(ng_amg *M, const ng_csr *A0, const char *what)
{
  for (int l = 0; l + 1 < M->nlevels; l++) {
    const ng_csr *Al = l ? &M->L[l].A : A0;
    int32_t n = M->L[l].n, m = M->L[l + 1].n;
    double *a = dense(Al), *p = dense(&M->L[l].P), *r = dense(&M->L[l].R), *c = dense(&M->L[l + 1].A);
    double *ap = calloc((size_t)n * m, sizeof(double)), amax = 0;
    ck_assert_int_eq(M->L[l].P.ncols, m);
    for (int32_t i = 0; i < n; i++)
      for (int32_t j = 0; j < m; j++) ck_assert(r[(size_t)j * n + i] == p[(size_t)i * m + j]);
    for (int32_t i = 0; i < n; i++)
      for (int32_t k = 0; k < n; k++)
        if (a[(size_t)i * n + k] != 0.0)
          for (int32_t j = 0; j < m; j++) ap[(size_t)i * m + j] += a[(size_t)i * n + k] * p[(size_t)k * m + j];
    for (int32_t i = 0; i < m * m; i++) amax = fmax(amax, fabs(c[i]));
    for (int32_t i = 0; i < m; i++)
      for (int32_t j = 0; j < m; j++) {
        double t = 0;
        for (int32_t k = 0; k < n; k++) t += p[(size_t)k * m + i] * ap[(size_t)k * m + j];
        ck_assert_msg(fabs(t - c[(size_t)i * m + j]) <= 1e-12 * amax, "%s level %d: (P^T A P)(%d,%d) = %.15g, RAP = %.15g",
                      what, l + 1, (int)i, (int)j, t, c[(size_t)i * m + j]);
      }
    free(a); free(p); free(r); free(c); free(ap);
  }
}

START_TEST(galerkin_equals_triple_product)
{
  const char *specs[] = {"fem27:9", "aniso27:8"};
  for (int s = 0; s < 2; s++) {
    ng_matrix A;
    NG_ASSERT_OK(ng_matrix_generate(ctx, specs[s], &A, NULL));
    ng_precond P = make_amg(A, "-amg_coarse_size 5");
    ng_amg *M = ng_amg_of(P);
    ck_assert_int_ge(M->nlevels, 2);
    check_galerkin(M, &A->local, specs[s]);
    ng_precond_destroy(P);
    ng_matrix_destroy(A);
  }
}
END_TEST

START_TEST(pcg_converges_faster_than_jacobi)
{
  const char *specs[] = {"fem27:20", "lap27:20", "aniso27:16", NULL};
  const int max_amg[] = {14, 14, 60, 800};
  for (int s = 0; s < 4; s++) {
    ng_matrix A;
    ng_vector b;
    if (specs[s]) NG_ASSERT_OK(ng_matrix_generate(ctx, specs[s], &A, &b));
    else {
      NG_ASSERT_OK(ng_matrix_read_mtx(ctx, ng_test_data("bcsstk13.mtx"), &A));
      NG_ASSERT_OK(ng_vector_create(A, &b));
      NG_ASSERT_OK(ng_vector_fill(b, 1.0));
    }
    int jac = solve(A, b, "-solver pcg -precond jacobi -maxit 5000", 1e-7);
    int amg = solve(A, b, "-solver pcg -precond amg -maxit 5000", 1e-7);
    printf("%s: jacobi-pcg %d, amg-pcg %d iterations\n", specs[s] ? specs[s] : "bcsstk13", jac, amg);
    ck_assert_msg(amg < jac, "%s: AMG-PCG %d iterations, Jacobi-PCG %d", specs[s] ? specs[s] : "bcsstk13", amg, jac);
    ck_assert_int_le(amg, max_amg[s]);
    ng_vector_destroy(b);
    ng_matrix_destroy(A);
  }
}
END_TEST

START_TEST(variants_converge)
{
  ng_matrix A;
  ng_vector b;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap27:16", &A, &b));
  int base = solve(A, b, "-solver pcg -precond amg -amg_coarse_size 20", 1e-7);
  int graded = solve(A, b, "-solver pcg -precond amg -amg_coarse_size 20 -amg_sweeps 4,3,2,1", 1e-7);
  int smooth = solve(A, b, "-solver pcg -precond amg -amg_coarse_size 20 -amg_coarse_solver smoother", 1e-7);
  int bicg = solve(A, b, "-solver pbicgstab -precond amg -amg_coarse_size 20", 1e-7);
  int omega = solve(A, b, "-solver pcg -precond amg -amg_coarse_size 20 -amg_omega 0.6", 1e-7);
  int fmt = solve(A, b, "-solver pcg -precond amg -amg_coarse_size 20 -amg_format auto", 1e-7);
  ck_assert_int_eq(fmt, base); /* the storage format of the levels does not change the method */
  printf("lap27:16 amg-pcg %d, graded %d, coarse smoother %d, pbicgstab %d, omega 0.6 %d\n", base, graded, smooth, bicg,
         omega);
  ck_assert_int_le(graded, base);
  ck_assert_int_le(smooth, base + 3);
  ck_assert_int_le(bicg, base);
  ck_assert_int_le(omega, 3 * base);
  /* small enough for one level: the dense inverse alone solves it */
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap27:5", &A, &b));
  ck_assert_int_le(solve(A, b, "-solver pcg -precond amg", 1e-10), 1);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
}
END_TEST

/* An update with unchanged values rebuilds exactly the setup's hierarchy
 * (same rho estimates, byte-identical P, R and coarse operators). */
START_TEST(update_with_same_values_is_exact)
{
  ng_matrix A;
  ng_vector b;
  ng_precond P;
  ng_options o;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap27:20", &A, &b));
  NG_ASSERT_OK(ng_options_create(&o));
  /* one host thread for setup and update; the caller's OpenMP setting is back afterwards */
  NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg -amg_coarse_size 20 -amg_host_threads 1"));
#ifdef _OPENMP
  int threads = omp_get_max_threads();
#endif
  NG_ASSERT_OK(ng_precond_create(ctx, o, A, &P));
#ifdef _OPENMP
  ck_assert_int_eq(omp_get_max_threads(), threads);
#endif
  ng_amg *M = ng_amg_of(P);
  ck_assert_int_eq(M->host_threads, 1);
  ck_assert_int_ge(M->nlevels, 3);
  double rho[16];
  ng_csr copy[16][3];
  ck_assert_int_le(M->nlevels, 16);
  for (int l = 0; l < M->nlevels; l++) {
    const ng_csr *X[3] = {&M->L[l].A, &M->L[l].P, &M->L[l].R};
    rho[l] = M->L[l].rho;
    for (int q = 0; q < 3; q++) {
      copy[l][q] = *X[q];
      copy[l][q].val = NULL;
      if (!X[q]->val) continue;
      copy[l][q].val = malloc((size_t)X[q]->nnz * sizeof(double));
      memcpy(copy[l][q].val, X[q]->val, (size_t)X[q]->nnz * sizeof(double));
    }
  }
  double *same = malloc((size_t)A->local.nnz * sizeof(double));
  memcpy(same, A->local.val, (size_t)A->local.nnz * sizeof(double));
  NG_ASSERT_OK(ng_matrix_update_values(A, same));
  free(same);
  NG_ASSERT_OK(ng_precond_update(P, A));
  for (int l = 0; l < M->nlevels; l++) {
    const ng_csr *X[3] = {&M->L[l].A, &M->L[l].P, &M->L[l].R};
    ck_assert_msg(M->L[l].rho == rho[l], "level %d: rho %.17g after the update, %.17g at setup", l, M->L[l].rho, rho[l]);
    for (int q = 0; q < 3; q++) {
      if (!copy[l][q].val) continue;
      ck_assert_int_eq(X[q]->nnz, copy[l][q].nnz);
      ck_assert_msg(memcmp(X[q]->val, copy[l][q].val, (size_t)X[q]->nnz * sizeof(double)) == 0,
                    "level %d %c: values changed by an update with the same values", l, "APR"[q]);
      free(copy[l][q].val);
    }
  }
  ng_precond_destroy(P);
  ng_options_destroy(o);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
}
END_TEST

START_TEST(update_with_scaled_values)
{
  ng_matrix A;
  ng_vector b, x;
  ng_options o;
  ng_solver S;
  int its[2];
  NG_ASSERT_OK(ng_matrix_generate(ctx, "fem27:16", &A, &b));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-solver pcg -precond amg -amg_coarse_size 20"));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  ng_amg *M = ng_amg_of(S->P);
  ck_assert_int_ge(M->nlevels, 3);
  int last = M->nlevels - 1;
  int64_t nnz = M->L[last].A.nnz;
  double *coarse = malloc(nnz * sizeof(double)), *val = malloc(A->local.nnz * sizeof(double));
  memcpy(coarse, M->L[last].A.val, nnz * sizeof(double));
  double rho0 = M->L[0].rho;
  for (int k = 0; k < 2; k++) {
    NG_ASSERT_OK(ng_vector_fill(x, 0.0));
    NG_ASSERT_OK(ng_solver_solve(S, b, x));
    NG_ASSERT_OK(ng_solver_get_iterations(S, &its[k]));
    if (k) break;
    for (int64_t p = 0; p < A->local.nnz; p++) val[p] = 3.0 * A->local.val[p];
    NG_ASSERT_OK(ng_matrix_update_values(A, val));
    NG_ASSERT_OK(ng_solver_set_operator(S, A)); /* same matrix: ng_precond_update */
    ck_assert_ptr_eq(ng_amg_of(S->P), M);
  }
  ck_assert_int_eq(its[0], its[1]);
  /* D^-1 A does not change with the scale: the same estimate to rounding */
  ck_assert_msg(fabs(M->L[0].rho - rho0) <= 1e-12 * rho0, "rho %g before, %g after the update", rho0, M->L[0].rho);
  /* the new hierarchy is the Galerkin one of the new values, about 3x the old */
  check_galerkin(M, &A->local, "after update");
  for (int64_t p = 0; p < nnz; p++)
    ck_assert_msg(fabs(M->L[last].A.val[p] - 3.0 * coarse[p]) <= 0.05 * fabs(3.0 * coarse[p]) + 1e-3,
                  "coarse entry %lld: %.15g after update, 3x before %.15g", (long long)p, M->L[last].A.val[p],
                  3.0 * coarse[p]);
  ck_assert(M->update_seconds > 0);
  printf("fem27:16 update %.4f s, setup %.4f s (%.0f%%)\n", M->update_seconds, M->setup_seconds,
         100 * M->update_seconds / M->setup_seconds);
  char buf[2048];
  NG_ASSERT_OK(ng_precond_describe(S->P, buf, sizeof(buf)));
  ck_assert_ptr_nonnull(strstr(buf, "operator complexity"));
  ck_assert_ptr_nonnull(strstr(buf, "last update"));
  free(coarse);
  free(val);
  ng_solver_destroy(S);
  ng_options_destroy(o);
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
}
END_TEST

START_TEST(bad_input)
{
  ng_matrix A;
  ng_options o;
  ng_precond P = NULL;
  const char *bad[] = {"-amg_sweeps 4,x", "-amg_sweeps 2,,", "-amg_smoother nosuch", "-amg_format nosuch",
                       "-amg_max_levels 0"};
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap27:6", &A, NULL));
  for (int k = 0; k < 5; k++) {
    NG_ASSERT_OK(ng_options_create(&o));
    NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg -amg_coarse_size 10"));
    NG_ASSERT_OK(ng_options_set_from_string(o, bad[k]));
    ck_assert_int_eq(ng_precond_create(ctx, o, A, &P), NG_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(ng_last_error(), "-amg_"));
    ng_options_destroy(o);
  }
  ng_matrix_destroy(A);
  /* a zero diagonal is named */
  int64_t rp[] = {0, 2, 4};
  int32_t col[] = {0, 1, 0, 1};
  double val[] = {1.0, 1.0, 1.0, 0.0};
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, 2, 2, rp, col, val, &A));
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg"));
  ck_assert_int_eq(ng_precond_create(ctx, o, A, &P), NG_ERR_NUMERIC);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "row 1"));
  /* describe on another kind gives its name */
  NG_ASSERT_OK(ng_options_set(o, "precond", "jacobi"));
  char buf[64];
  val[3] = 2.0;
  ng_matrix_destroy(A);
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, 2, 2, rp, col, val, &A));
  NG_ASSERT_OK(ng_precond_create(ctx, o, A, &P));
  NG_ASSERT_OK(ng_precond_describe(P, buf, sizeof(buf)));
  ck_assert_str_eq(buf, "jacobi\n");
  ng_precond_destroy(P);
  ng_options_destroy(o);
  ng_matrix_destroy(A);
}
END_TEST

START_TEST(dense_inverse)
{
  /* SPD (Cholesky) and nonsymmetric (Gauss-Jordan) against A A^-1 = I, at
   * 40 rows and at 300 (the threaded loops of the Cholesky path) */
  for (int kind = 0; kind < 4; kind++) {
    int32_t n = kind < 2 ? 40 : 300;
    double *a = malloc(n * n * sizeof(double)), *inv = malloc(n * n * sizeof(double));
    for (int32_t i = 0; i < n; i++)
      for (int32_t j = 0; j < n; j++)
        a[i * n + j] = i == j ? 4.0 : (kind % 2 ? 1.0 / (1 + i + 2 * j) : 1.0 / (1 + i + j)) - (abs(i - j) == 1);
    memcpy(inv, a, n * n * sizeof(double));
    NG_ASSERT_OK(ng_dense_inverse(n, inv));
    for (int32_t i = 0; i < n; i++)
      for (int32_t j = 0; j < n; j++) {
        double s = 0;
        for (int32_t k = 0; k < n; k++) s += a[i * n + k] * inv[k * n + j];
        ck_assert_double_eq_tol(s, i == j, 1e-12);
      }
    free(a);
    free(inv);
  }
  double z[4] = {1, 2, 2, 4};
  ck_assert_int_eq(ng_dense_inverse(2, z), NG_ERR_NUMERIC);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("amg");
  TCase *tc = tcase_create("amg");
  tcase_add_unchecked_fixture(tc, setup, teardown); /* one context: MPI cannot restart */
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, prolongator_keeps_constant);
  tcase_add_test(tc, aggregation_is_deterministic);
  tcase_add_test(tc, galerkin_equals_triple_product);
  tcase_add_test(tc, pcg_converges_faster_than_jacobi);
  tcase_add_test(tc, variants_converge);
  tcase_add_test(tc, update_with_same_values_is_exact);
  tcase_add_test(tc, update_with_scaled_values);
  tcase_add_test(tc, bad_input);
  tcase_add_test(tc, dense_inverse);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
