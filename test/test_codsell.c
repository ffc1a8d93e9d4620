/* test/test_codsell.c: the CoD-SELL converters (spmv/codsell.c) and the
 * elast27 generator (core/generate_elast27.c). For the sequential and the
 * parallel converter: the structure is valid (a permutation; every lane of a
 * slice with a dictionary holds its base and base + every dictionary
 * distance; slot counts follow the widths), the parallel one is
 * deterministic (same bytes with 1 and several OpenMP threads) and stores
 * at most 2% more bytes than the sequential one on generated and real
 * matrices, and both store fewer bytes than SELL on the FE matrices.
 * elast27: symmetric, 81 entries per interior row, nnz by formula, and PCG
 * converges on it (also with -format codsell). test_formats.c checks the
 * SpMV of every codsell variant against CSR. */
#include "testutil.h"
#include "../dist/dist.h"
#include "../spmv/formats.h"
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static int has_col(const ng_csr *A, int32_t i, int64_t c)
{
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
    if (A->col[p] == c) return 1;
  return 0;
}

/* Structure checks independent of the converter's code. */
static void check_structure(const ng_csr *A, const ng_codsell *S, const char *what)
{
  int32_t n = A->nrows, C = S->C;
  char *seen = calloc((size_t)n + 1, 1);
  ck_assert_int_eq(S->nslices, (n + C - 1) / C);
  for (int32_t t = 0; t < n; t++) {
    ck_assert_msg(S->perm[t] >= 0 && S->perm[t] < n && !seen[S->perm[t]], "%s: perm[%d] = %d", what, t, S->perm[t]);
    seen[S->perm[t]] = 1;
  }
  ck_assert(S->vptr[0] == 0 && S->cptr[0] == 0 && S->dptr[0] == 0);
  for (int32_t s = 0; s < S->nslices; s++) {
    int64_t w = (S->vptr[s + 1] - S->vptr[s]) / C, d = S->dptr[s + 1] - S->dptr[s], wmax = 0;
    ck_assert_int_eq((S->vptr[s + 1] - S->vptr[s]) % C, 0);
    for (int32_t t = s * C; t < (s + 1) * C && t < n; t++) {
      int64_t l = A->rowptr[S->perm[t] + 1] - A->rowptr[S->perm[t]];
      wmax = l > wmax ? l : wmax;
    }
    ck_assert_msg(w == wmax, "%s: slice %d width %lld, longest row %lld", what, s, (long long)w, (long long)wmax);
    ck_assert_msg(S->cptr[s + 1] - S->cptr[s] == (w - d) * C, "%s: slice %d column slots", what, s);
    for (int64_t k = 1; k < d; k++) ck_assert(S->dict[S->dptr[s] + k] > S->dict[S->dptr[s] + k - 1]);
    if (d == 0) continue;
    ck_assert(S->dict[S->dptr[s]] > 0);
    for (int32_t t = s * C; t < (s + 1) * C && t < n; t++) {
      int32_t i = S->perm[t], b = S->col[S->cptr[s] + (t - s * C)];
      ck_assert_msg(has_col(A, i, b), "%s: row %d lacks its base %d", what, i, b);
      for (int64_t k = 0; k < d; k++)
        ck_assert_msg(has_col(A, i, (int64_t)b + S->dict[S->dptr[s] + k]), "%s: row %d lacks base + %d", what, i,
                      S->dict[S->dptr[s] + k]);
    }
  }
  free(seen);
}

static int same(const ng_codsell *a, const ng_codsell *b)
{
  int32_t ns = a->nslices;
  if (a->n != b->n || ns != b->nslices || a->C != b->C) return 0;
  if (memcmp(a->vptr, b->vptr, ((size_t)ns + 1) * 8) || memcmp(a->cptr, b->cptr, ((size_t)ns + 1) * 8) ||
      memcmp(a->dptr, b->dptr, ((size_t)ns + 1) * 8) || memcmp(a->perm, b->perm, (size_t)a->n * 4))
    return 0;
  return !memcmp(a->dict, b->dict, (size_t)a->dptr[ns] * 4) && !memcmp(a->col, b->col, (size_t)a->cptr[ns] * 4) &&
         !memcmp(a->val, b->val, (size_t)a->vptr[ns] * 8);
}

/* Sequential and parallel converters on A; returns parallel/sequential bytes. */
static double compare(const ng_csr *A, const char *what, const char *opt)
{
  ng_spmv_opts o;
  ng_codsell Sq, Pa, P1;
  ng_sell L;
  NG_ASSERT_OK(ng_spmv_opts_parse("codsell", opt, &o));
  o.codsell_force = 1;
  NG_ASSERT_OK(ng_codsell_build(A, &o, 0, &Sq));
  NG_ASSERT_OK(ng_codsell_build(A, &o, 1, &Pa));
  check_structure(A, &Sq, what);
  check_structure(A, &Pa, what);
#ifdef _OPENMP
  int nt = omp_get_max_threads();
  omp_set_num_threads(nt > 1 ? 1 : 3);
  NG_ASSERT_OK(ng_codsell_build(A, &o, 1, &P1));
  omp_set_num_threads(nt);
#else
  NG_ASSERT_OK(ng_codsell_build(A, &o, 1, &P1));
#endif
  ck_assert_msg(same(&Pa, &P1), "%s: the parallel converter depends on the thread count", what);
  ng_spmv_opts so;
  NG_ASSERT_OK(ng_spmv_opts_parse("sell", NULL, &so));
  so.sell_c = o.sell_c;
  so.sell_sigma = o.sell_sigma;
  NG_ASSERT_OK(ng_sell_build(A, &so, &L));
  double csr = (double)A->nnz * 12 + ((double)A->nrows + 1) * 4;
  double ratio = (double)ng_codsell_bytes(&Pa) / (double)ng_codsell_bytes(&Sq);
  fprintf(stderr, "# %-16s C %4d  csr %10.0f  sell %10zu  codsell seq %10zu (%.3f of csr)  par %10zu (%.3f)  par/seq %.4f\n",
          what, o.sell_c, csr, ng_sell_bytes(&L), ng_codsell_bytes(&Sq), ng_codsell_bytes(&Sq) / csr,
          ng_codsell_bytes(&Pa), ng_codsell_bytes(&Pa) / csr, ratio);
  ng_codsell_free(&Sq);
  ng_codsell_free(&Pa);
  ng_codsell_free(&P1);
  ng_sell_free(&L);
  return ratio;
}

START_TEST(converters_generated)
{
  const char *specs[] = {"lap7:10", "lap27:10", "fem27:10", "fem27:5x6x7", "mps:8", "elast27:6", "elast27:4x5x6"};
  for (int k = 0; k < 7; k++) {
    ng_csr A;
    double *b = NULL;
    NG_ASSERT_OK(ng_generate_csr(specs[k], &A, &b));
    double r = compare(&A, specs[k], NULL);
    ck_assert_msg(r <= 1.02, "%s: parallel stores %.2f%% more than sequential", specs[k], 100 * (r - 1));
    compare(&A, specs[k], "8:64");
    compare(&A, specs[k], "4:1");
    ng_csr_free(&A);
    ng_free(b);
  }
}
END_TEST

START_TEST(converters_real)
{
  const char *names[] = {"bcsstk13.mtx", "494_bus.mtx", "jagmesh7.mtx", "west0479.mtx", "w156.mtx"};
  for (int k = 0; k < 5; k++) {
    ng_csr A;
    if (ng_mmio_read_csr(ng_test_data(names[k]), &A) != NG_SUCCESS) continue; /* not every file is a matrix */
    if (A.nrows != A.ncols) {
      ng_csr_free(&A);
      continue;
    }
    double r = compare(&A, names[k], NULL);
    ck_assert_msg(r <= 1.02, "%s: parallel stores %.2f%% more than sequential", names[k], 100 * (r - 1));
    compare(&A, names[k], "16:1");
    ng_csr_free(&A);
  }
}
END_TEST

/* The FE matrices compress: codsell below SELL, and below CSR on elast27. */
START_TEST(compression)
{
  const char *specs[] = {"fem27:12", "elast27:8"};
  for (int k = 0; k < 2; k++) {
    ng_csr A;
    double *b = NULL;
    ng_spmv_opts o, so;
    ng_codsell S;
    ng_sell L;
    NG_ASSERT_OK(ng_generate_csr(specs[k], &A, &b));
    NG_ASSERT_OK(ng_spmv_opts_parse("codsell", NULL, &o));
    NG_ASSERT_OK(ng_spmv_opts_parse("sell", NULL, &so));
    NG_ASSERT_OK(ng_codsell_build(&A, &o, 1, &S));
    NG_ASSERT_OK(ng_sell_build(&A, &so, &L));
    double csr = (double)A.nnz * 12 + ((double)A.nrows + 1) * 4;
    ck_assert_msg(ng_codsell_bytes(&S) < ng_sell_bytes(&L), "%s: codsell %zu, sell %zu", specs[k],
                  ng_codsell_bytes(&S), ng_sell_bytes(&L));
    if (k == 1) ck_assert_msg(ng_codsell_bytes(&S) < csr, "%s: codsell %zu, csr %.0f", specs[k], ng_codsell_bytes(&S), csr);
    ng_codsell_free(&S);
    ng_sell_free(&L);
    ng_csr_free(&A);
    ng_free(b);
  }
}
END_TEST

/* Refusals: a repeated column; nothing shared (unless forced); bad C. */
START_TEST(refusals)
{
  ng_csr A;
  ng_context ctx;
  const ng_spmv_ops *ops;
  void *data;
  NG_ASSERT_OK(ng_context_create("cpu", &ctx));
  NG_ASSERT_OK(ng_csr_alloc(&A, 2, 2, 3));
  A.rowptr[0] = 0; A.rowptr[1] = 2; A.rowptr[2] = 3;
  A.col[0] = 1; A.col[1] = 1; A.col[2] = 1;
  A.val[0] = A.val[1] = A.val[2] = 1.0;
  ck_assert_int_eq(ng_spmv_create(ctx, "codsell:force", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "row 0") && strstr(ng_last_error(), "codsell"), "%s", ng_last_error());
  ng_csr_free(&A);
  /* a diagonal matrix: one entry a row, no pattern to share */
  NG_ASSERT_OK(ng_csr_alloc(&A, 64, 64, 64));
  for (int i = 0; i <= 64; i++) A.rowptr[i] = i;
  for (int i = 0; i < 64; i++) { A.col[i] = i; A.val[i] = 2.0; }
  ck_assert_int_eq(ng_spmv_create(ctx, "codsell", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "dictionaries save"), "%s", ng_last_error());
  NG_ASSERT_OK(ng_spmv_create(ctx, "codsell:force", &A, &ops, &data));
  ops->destroy(data);
  ck_assert_int_eq(ng_spmv_create(ctx, "codsell:24", &A, &ops, &data), NG_ERR_ARGUMENT);
  ck_assert_msg(strstr(ng_last_error(), "power of two"), "%s", ng_last_error());
  ck_assert_int_eq(ng_spmv_create(ctx, "codsell:32:0", &A, &ops, &data), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_spmv_create(ctx, "codsell:fast", &A, &ops, &data), NG_ERR_ARGUMENT);
  ng_csr_free(&A);
  ng_context_destroy(ctx);
}
END_TEST

/* ---- elast27 ------------------------------------------------------------------ */
START_TEST(elast27_structure)
{
  const int dims[][3] = {{2, 2, 2}, {3, 4, 5}, {5, 5, 5}};
  for (int k = 0; k < 3; k++) {
    int nx = dims[k][0], ny = dims[k][1], nz = dims[k][2];
    char spec[64];
    ng_csr A;
    double *b = NULL;
    snprintf(spec, sizeof(spec), "elast27:%dx%dx%d", nx, ny, nz);
    NG_ASSERT_OK(ng_generate_csr(spec, &A, &b));
    NG_ASSERT_OK(ng_csr_validate(&A));
    ck_assert_int_eq(A.nrows, 3 * nx * ny * nz);
    ck_assert_int_eq(A.nnz, 9LL * (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2));
    ck_assert_msg(ng_csr_is_symmetric(&A, 0.0), "%s not symmetric", spec);
    for (int32_t i = 0; i < A.nrows; i++) {
      int node = i / 3, x = node % nx, y = (node / nx) % ny, z = node / (nx * ny);
      int interior = x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && z < nz - 1;
      int64_t len = A.rowptr[i + 1] - A.rowptr[i];
      if (interior) ck_assert_msg(len == 81, "%s: interior row %d has %lld entries", spec, i, (long long)len);
      ck_assert(len <= 81);
      double d = 0.0;
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) d += A.col[p] == i ? A.val[p] : 0.0;
      ck_assert_msg(d > 0.0, "%s: row %d diagonal %g", spec, i, d);
      if (x == 0) ck_assert_double_eq(b[i], 0.0);
    }
    ng_csr_free(&A);
    ng_free(b);
  }
  ng_csr A;
  double *b = NULL;
  ck_assert_int_eq(ng_generate_csr("elast27:1x4x4", &A, &b), NG_ERR_ARGUMENT);
}
END_TEST

static void solve_elast(const char *format)
{
  ng_context ctx;
  ng_matrix M;
  ng_vector bv, x;
  ng_solver S;
  ng_options o;
  int its;
  double res;
  NG_ASSERT_OK(ng_context_create("cpu", &ctx));
  NG_ASSERT_OK(ng_matrix_generate(ctx, "elast27:6x5x4", &M, &bv));
  NG_ASSERT_OK(ng_matrix_set_format(M, format));
  NG_ASSERT_OK(ng_vector_create(M, &x));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-solver pcg -precond jacobi -tol 1e-8 -maxit 2000"));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_options_destroy(o));
  NG_ASSERT_OK(ng_solver_set_operator(S, M));
  ng_status st = ng_solver_solve(S, bv, x);
  ck_assert_msg(st == NG_SUCCESS, "pcg on elast27 (%s): %s", format, ng_last_error());
  NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
  NG_ASSERT_OK(ng_solver_get_residual(S, &res));
  fprintf(stderr, "# pcg+jacobi on elast27:6x5x4 (%s): %d iterations, residual %.3g\n", format, its, res);
  ck_assert_int_gt(its, 3);
  ck_assert(res <= 1e-8);
  ng_solver_destroy(S);
  ng_vector_destroy(bv);
  ng_vector_destroy(x);
  ng_matrix_destroy(M);
  ng_context_destroy(ctx);
}

START_TEST(elast27_pcg)
{
  solve_elast("csr");
  solve_elast("codsell");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("codsell");
  TCase *tc = tcase_create("codsell");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, converters_generated);
  tcase_add_test(tc, converters_real);
  tcase_add_test(tc, compression);
  tcase_add_test(tc, refusals);
  tcase_add_test(tc, elast27_structure);
  tcase_add_test(tc, elast27_pcg);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
