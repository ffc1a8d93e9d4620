/* test/test_big64_gpu.c: the GPU CSR with 64-bit row offsets (issue 16
 * item 6) against the host reference. Skips (exit 77, "skipped: no CUDA
 * device") without a GPU.
 *
 * The 64-bit layout is what a matrix past 2^31 - 1 entries gets; here
 * NG_CSR_OFFSETS64 forces it on small matrices: "1" and "kernel" (the own
 * k_csr64, what a large matrix gets: cuSPARSE refuses 64-bit offsets with
 * 32-bit columns and says so on stderr) and "cusparse" (cuSPARSE asked
 * first, the own kernel where it refuses the mix).
 * - SpMV on lap27:16, fem27:12, mps:8, a matrix with empty rows and one
 *   with no entries: per row within 1e-13 of |alpha| sum |a_ij x_j| +
 *   |beta y_i|; beta = 0 overwrites NaN; update_values; bytes() counts the
 *   8-byte offsets. Without the variable a small matrix keeps 32-bit offsets.
 * - PCG + Jacobi and PCG + AMG on lap27:20 in both forced layouts against
 *   the default one: all converge, iteration counts within 2 (the AMG's
 *   GPU setup then reads the matrix's own 64-bit offsets; by default it
 *   widens the 32-bit ones: test_amg_gpu checks its P, R and A_c against
 *   the host's, and NG_CSR_OFFSETS64=1 test/test_amg_gpu repeats that over
 *   the 64-bit layout).
 * - NG_TEST_BIG=lap27:432 (not set by make check; 27 GB host, 30 GB
 *   device): the generated 2.17e9-entry matrix on the device, in the 64-bit
 *   layout; A * ones equals the generator's b (row sums) in every row. */
#include "testutil.h"
#include "../solver/solver.h"
#include <math.h>

#ifdef NG_HAVE_CUDA
int ng_csr_cuda_layout(const ng_spmv_ops *ops, const void *data); /* spmv/csr_cuda.cu */

static ng_context gctx, hctx;
static void setup(void)
{
  NG_ASSERT_OK(ng_context_create("gpu", &gctx));
  NG_ASSERT_OK(ng_context_create("cpu", &hctx));
}
static void teardown(void)
{
  ng_context_destroy(gctx);
  ng_context_destroy(hctx);
}

static void force64(const char *mode)
{
  if (mode) setenv("NG_CSR_OFFSETS64", mode, 1);
  else unsetenv("NG_CSR_OFFSETS64");
}

/* Worst |gpu - host| / bound over the rows. */
static double worst(int32_t n, const double *dy, const double *hy, const double *s)
{
  double *g = malloc(((size_t)n + 1) * sizeof(double)), w = 0;
  NG_ASSERT_OK(gctx->vops->download(gctx, g, dy, n));
  for (int32_t i = 0; i < n; i++) {
    double e = fabs(g[i] - hy[i]) / s[i];
    if (!(e <= w)) w = e; /* NaN counts as worst */
  }
  free(g);
  return w;
}

static void spmv_case(const char *what, ng_csr *A, const char *mode)
{
  const ng_spmv_ops *H = ng_spmv_find("csr", 0), *G = ng_spmv_find("csr", 1);
  void *hd, *gd;
  force64(mode);
  NG_ASSERT_OK(H->create(hctx, A, &hd));
  NG_ASSERT_OK(G->create(gctx, A, &gd));
  force64(NULL);
  int layout = ng_csr_cuda_layout(G, gd);
  if (strcmp(mode, "cusparse")) ck_assert_msg(layout == 2, "%s: layout %d with NG_CSR_OFFSETS64=%s", what, layout, mode);
  else ck_assert_msg(layout == 1 || layout == 2, "%s: layout %d with NG_CSR_OFFSETS64=cusparse", what, layout);
  size_t arrays = ((size_t)A->nrows + 1) * 8 + (size_t)A->nnz * 12;
  ck_assert_msg(G->bytes(gd) >= arrays, "%s: bytes %zu below the arrays' %zu", what, G->bytes(gd), arrays);
  int32_t n = A->nrows, m = A->ncols;
  double *x = malloc(((size_t)m + 1) * sizeof(double)), *y = malloc(((size_t)n + 1) * sizeof(double));
  double *s = malloc(((size_t)n + 1) * sizeof(double)), *hy = malloc(((size_t)n + 1) * sizeof(double));
  ng_test_random(x, m);
  ng_test_random(y, n);
  double *dx, *dy;
  NG_ASSERT_OK(gctx->vops->alloc(gctx, &dx, m));
  NG_ASSERT_OK(gctx->vops->alloc(gctx, &dy, n));
  NG_ASSERT_OK(gctx->vops->upload(gctx, dx, x, m));
  double cases[3][2] = {{1.0, 0.0}, {1.5, -0.5}, {-2.0, 1.0}};
  for (int pass = 0; pass < 2; pass++) {
    for (int c = 0; c < 3; c++) {
      double alpha = cases[c][0], beta = cases[c][1];
      memcpy(hy, y, (size_t)n * sizeof(double));
      if (beta == 0.0) NG_ASSERT_OK(gctx->vops->fill(gctx, n, NAN, dy));
      else NG_ASSERT_OK(gctx->vops->upload(gctx, dy, y, n));
      for (int32_t i = 0; i < n; i++) {
        double t = 0;
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) t += fabs(A->val[p] * x[A->col[p]]);
        s[i] = fabs(alpha) * t + fabs(beta * y[i]) + 1e-300;
      }
      NG_ASSERT_OK(H->apply(hd, alpha, x, beta, hy));
      NG_ASSERT_OK(G->apply(gd, alpha, dx, beta, dy));
      double w = worst(n, dy, hy, s);
      ck_assert_msg(w <= 1e-13, "%s (NG_CSR_OFFSETS64=%s) alpha %g beta %g%s: error %.3g x the bound", what, mode,
                    alpha, beta, pass ? " after update" : "", w);
    }
    for (int64_t p = 0; p < A->nnz; p++) A->val[p] = A->val[p] * 1.75 - 0.25;
    NG_ASSERT_OK(H->update_values(hd, A));
    NG_ASSERT_OK(G->update_values(gd, A));
  }
  printf("%-14s NG_CSR_OFFSETS64=%-6s layout %d (%s)  n %7d nnz %8lld bytes %zu\n", what, mode, layout,
         layout == 1 ? "cuSPARSE 64I/32I" : "k_csr64", (int)n, (long long)A->nnz, G->bytes(gd));
  G->destroy(gd);
  H->destroy(hd);
  gctx->vops->free(gctx, dx);
  gctx->vops->free(gctx, dy);
  free(x); free(y); free(s); free(hy);
}

START_TEST(spmv_offsets64_matches_host)
{
  const char *modes[] = {"1", "kernel", "cusparse"};
  for (int md = 0; md < 3; md++) {
    const char *specs[] = {"lap27:16", "fem27:12", "mps:8"};
    for (int k = 0; k < 3; k++) {
      ng_csr A;
      double *b;
      NG_ASSERT_OK(ng_generate_csr(specs[k], &A, &b));
      spmv_case(specs[k], &A, modes[md]);
      ng_csr_free(&A);
      free(b);
    }
    ng_csr A;
    NG_ASSERT_OK(ng_csr_alloc(&A, 6, 9, 7)); /* rows 0, 3, 4 empty; rectangular */
    int64_t rp[7] = {0, 0, 3, 4, 4, 4, 7};
    int32_t col[7] = {0, 4, 8, 2, 1, 5, 7};
    double val[7] = {1.5, -2, 3, 4.25, -1, 0.5, 2};
    memcpy(A.rowptr, rp, sizeof(rp));
    memcpy(A.col, col, sizeof(col));
    memcpy(A.val, val, sizeof(val));
    spmv_case("empty rows", &A, modes[md]);
    ng_csr_free(&A);
    NG_ASSERT_OK(ng_csr_alloc(&A, 5, 5, 0));
    spmv_case("no entries", &A, modes[md]);
    ng_csr_free(&A);
  }
  /* without the variable a small matrix keeps 32-bit offsets */
  ng_csr A;
  double *b;
  void *gd;
  const ng_spmv_ops *G = ng_spmv_find("csr", 1);
  force64(NULL);
  NG_ASSERT_OK(ng_generate_csr("lap27:8", &A, &b));
  NG_ASSERT_OK(G->create(gctx, &A, &gd));
  ck_assert_int_eq(ng_csr_cuda_layout(G, gd), 0);
  ck_assert_uint_ge(G->bytes(gd), ((size_t)A.nrows + 1) * 4 + (size_t)A.nnz * 12);
  G->destroy(gd);
  ng_csr_free(&A);
  free(b);
}
END_TEST

/* Iterations of a GPU solve of spec with the layout forced by mode (NULL: default). */
static int gpu_its(const char *spec, const char *options, const char *mode)
{
  ng_options o;
  ng_matrix A;
  ng_vector b, x;
  ng_solver S;
  int its = -1;
  force64(mode);
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, options));
  NG_ASSERT_OK(ng_matrix_generate(gctx, spec, &A, &b));
  int layout = ng_csr_cuda_layout(A->spmv, A->spmv_data);
  if (!mode) ck_assert_int_eq(layout, 0);
  else if (!strcmp(mode, "kernel")) ck_assert_int_eq(layout, 2);
  else ck_assert_int_ge(layout, 1);
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_solver_create(gctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  NG_ASSERT_OK(ng_solver_solve(S, b, x));
  force64(NULL);
  NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
  /* x = ones solves it (b = row sums) */
  double *h = malloc((size_t)A->n_local * sizeof(double)), e = 0;
  NG_ASSERT_OK(ng_vector_get_values(x, h));
  for (int32_t i = 0; i < A->n_local; i++) e = fmax(e, fabs(h[i] - 1.0));
  ck_assert_msg(e < 1e-5, "%s %s NG_CSR_OFFSETS64=%s: max |x - 1| = %g", spec, options, mode ? mode : "", e);
  printf("%-9s %-44s NG_CSR_OFFSETS64=%-6s its %d  max|x-1| %.2e\n", spec, options, mode ? mode : "-", its, e);
  free(h);
  ng_solver_destroy(S);
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
  ng_options_destroy(o);
  return its;
}

START_TEST(solves_offsets64_match_default)
{
  const char *opts[] = {"-solver pcg -precond jacobi -tol 1e-10", "-solver pcg -precond amg -tol 1e-10"};
  for (int k = 0; k < 2; k++) {
    int base = gpu_its("lap27:20", opts[k], NULL);
    int cu = gpu_its("lap27:20", opts[k], "1");
    int own = gpu_its("lap27:20", opts[k], "kernel");
    ck_assert_msg(abs(cu - base) <= 2 && abs(own - base) <= 2, "%s: %d iterations by default, %d and %d with 64-bit offsets",
                  opts[k], base, cu, own);
  }
}
END_TEST

/* NG_TEST_BIG=lap27:432: the real thing, past 2^31 entries. */
START_TEST(big_matrix_row_sums)
{
  const char *spec = getenv("NG_TEST_BIG");
  ng_matrix A;
  ng_vector b, ones, y;
  force64(NULL);
  double t = ng_wtime();
  NG_ASSERT_OK(ng_matrix_generate(gctx, spec, &A, &b));
  int64_t nnz = A->nnz_global;
  int32_t n = A->n_local;
  int layout = ng_csr_cuda_layout(A->spmv, A->spmv_data);
  printf("%s: %d rows, %lld entries, generated and on the device in %.1f s, layout %d (%s), device CSR %.2f GB\n",
         spec, (int)n, (long long)nnz, ng_wtime() - t, layout,
         layout == 0 ? "32-bit offsets" : layout == 1 ? "cuSPARSE 64I/32I" : "k_csr64", A->spmv->bytes(A->spmv_data) / 1e9);
  if (nnz > INT32_MAX) ck_assert(layout == 1 || layout == 2);
  else ck_assert_int_eq(layout, 0);
  NG_ASSERT_OK(ng_vector_create(A, &ones));
  NG_ASSERT_OK(ng_vector_create(A, &y));
  NG_ASSERT_OK(ng_vector_fill(ones, 1.0));
  NG_ASSERT_OK(ng_matrix_apply(A, ones, y));
  double *hy = malloc((size_t)n * sizeof(double)), *hb = malloc((size_t)n * sizeof(double)), e = 0;
  NG_ASSERT_OK(ng_vector_get_values(y, hy));
  NG_ASSERT_OK(ng_vector_get_values(b, hb));
  int32_t worst_row = 0;
  for (int32_t i = 0; i < n; i++)
    if (!(fabs(hy[i] - hb[i]) <= e)) e = fabs(hy[i] - hb[i]), worst_row = i;
  ck_assert_msg(e <= 1e-12, "%s: A ones differs from the row sums by %g at row %d", spec, e, (int)worst_row);
  printf("%s: A * ones = row sums in all %d rows (max difference %.1e, last row %g)\n", spec, (int)n, e, hy[n - 1]);
  free(hy);
  free(hb);
  ng_vector_destroy(ones);
  ng_vector_destroy(y);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
}
END_TEST
#endif

int main(void)
{
#ifdef NG_HAVE_CUDA
  if (ng_test_no_gpu()) return 77;
  setenv("CK_FORK", "no", 1); /* CUDA does not survive fork() after the device check */
  Suite *s = suite_create("big64_gpu");
  TCase *tc = tcase_create("big64_gpu");
  tcase_add_unchecked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, getenv("NG_TEST_BIG") ? 1200 : 120);
  NG_TEST_ADD(tc, spmv_offsets64_matches_host);
  NG_TEST_ADD(tc, solves_offsets64_match_default);
  if (getenv("NG_TEST_BIG")) NG_TEST_ADD(tc, big_matrix_row_sums);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
#else
  printf("skipped: no CUDA device (built without CUDA)\n");
  return 77;
#endif
}
