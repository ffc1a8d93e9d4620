/* test/test_sizes.c: the offset and size arithmetic of matrices past 2^31
 * entries (core/sizes.c, issue 16 item 6) on the CPU, with fake sizes such
 * as lap27:432's (80,621,568 rows, 2,166,720,184 entries) that are never
 * allocated: ceil division and grid sizes without int32 overflow, the
 * 32/64-bit offset choice, refusals that name the limit, checked products
 * (ELL's rows x width), offset narrowing/widening and device footprints.
 * Also the one-rank matrix that adopts its generated CSR without copies. */
#include "testutil.h"
#include "../core/sizes.h"
#include "../dist/dist.h" /* ng_matrix_adopt_local, struct ng_matrix_s */
#include <math.h>

/* lap27:N has (3N - 2)^3 entries and N^3 rows */
#define BIG_N 432
static const int64_t big_rows = (int64_t)BIG_N * BIG_N * BIG_N;
static const int64_t big_nnz = (int64_t)(3 * BIG_N - 2) * (3 * BIG_N - 2) * (3 * BIG_N - 2);

START_TEST(ceil_div_and_grid_blocks)
{
  ck_assert_int_eq(ng_ceil_div64(0, 256), 0);
  ck_assert_int_eq(ng_ceil_div64(1, 256), 1);
  ck_assert_int_eq(ng_ceil_div64(256, 256), 1);
  ck_assert_int_eq(ng_ceil_div64(257, 256), 2);
  /* n + d - 1 would overflow here; the division must not */
  ck_assert_int_eq(ng_ceil_div64(INT64_MAX, 256), INT64_MAX / 256 + 1);
  ck_assert_int_eq(ng_ceil_div64(INT32_MAX, 256), 8388608);
  unsigned b = 0;
  NG_ASSERT_OK(ng_grid_blocks(0, 256, "empty", &b));
  ck_assert_uint_eq(b, 1); /* a launch stays valid */
  /* the vector kernels at the largest int32 length: 2^23 blocks */
  NG_ASSERT_OK(ng_grid_blocks(INT32_MAX, 256, "vector", &b));
  ck_assert_uint_eq(b, 8388608u);
  /* lap27:432's own CSR kernel: 32 lanes a row at most */
  NG_ASSERT_OK(ng_grid_blocks(big_rows * 32, 256, "csr64", &b));
  ck_assert_uint_eq(b, (unsigned)(big_rows * 32 / 256));
  /* one thread per entry of a 2e9-entry matrix still fits a grid ... */
  NG_ASSERT_OK(ng_grid_blocks(big_nnz, 256, "per entry", &b));
  ck_assert_uint_eq(b, (unsigned)ng_ceil_div64(big_nnz, 256));
  /* ... but 2^31 blocks do not */
  ng_error_clear();
  ck_assert_int_eq(ng_grid_blocks((int64_t)1 << 39, 256, "huge launch", &b), NG_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "huge launch"));
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "2147483648 blocks"));
  ck_assert_int_eq(ng_grid_blocks(10, 0, "bad", &b), NG_ERR_ARGUMENT);
}
END_TEST

START_TEST(offset_width_choice_and_refusals)
{
  ck_assert_int_eq(big_rows, 80621568);
  ck_assert_int_eq(big_nnz, 2166720184LL);
  ck_assert(!ng_csr_needs_offsets64(0));
  ck_assert(!ng_csr_needs_offsets64(INT32_MAX));
  ck_assert(ng_csr_needs_offsets64((int64_t)INT32_MAX + 1));
  ck_assert(ng_csr_needs_offsets64(big_nnz));
  NG_ASSERT_OK(ng_require_index32(0, "x", NULL));
  NG_ASSERT_OK(ng_require_index32(INT32_MAX, "x", NULL));
  ng_error_clear();
  ck_assert_int_eq(ng_require_index32(big_nnz, "AMG GPU setup", "the host builds this level"), NG_ERR_UNSUPPORTED);
  const char *m = ng_last_error();
  ck_assert_ptr_nonnull(strstr(m, "AMG GPU setup"));
  ck_assert_ptr_nonnull(strstr(m, "2166720184 entries"));
  ck_assert_ptr_nonnull(strstr(m, "2^31 - 1"));
  ck_assert_ptr_nonnull(strstr(m, "the host builds this level"));
  ck_assert_int_eq(ng_require_index32((int64_t)INT32_MAX + 1, "x", NULL), NG_ERR_UNSUPPORTED);
  ck_assert_int_eq(ng_require_index32(-1, "x", NULL), NG_ERR_UNSUPPORTED);
}
END_TEST

START_TEST(checked_products)
{
  int64_t p = 0;
  /* ELL of lap27:432: rows x width passes 2^31 (int32 would wrap negative) */
  NG_ASSERT_OK(ng_mul_checked(big_rows, 27, "ELL", &p));
  ck_assert_int_eq(p, 2176782336LL);
  ck_assert(p > INT32_MAX && (int32_t)(uint32_t)p < 0);
  NG_ASSERT_OK(ng_mul_checked(0, INT64_MAX, "zero", &p));
  ck_assert_int_eq(p, 0);
  NG_ASSERT_OK(ng_mul_checked(INT64_MAX, 1, "one", &p));
  ck_assert_int_eq(p, INT64_MAX);
  ng_error_clear();
  ck_assert_int_eq(ng_mul_checked(INT64_MAX / 2 + 1, 2, "DIA diagonals x rows", &p), NG_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "DIA diagonals x rows"));
  ck_assert_int_eq(ng_mul_checked(-1, 2, "neg", &p), NG_ERR_ARGUMENT);
}
END_TEST

START_TEST(offsets_narrow_and_widen)
{
  int64_t w[6] = {0, 27, 54, (int64_t)INT32_MAX - 1, INT32_MAX, 0};
  int32_t n32[6];
  int64_t back[6];
  NG_ASSERT_OK(ng_offsets_narrow(w, 5, n32));
  ck_assert_int_eq(n32[4], INT32_MAX);
  ng_offsets_widen(n32, 5, back);
  for (int k = 0; k < 5; k++) ck_assert_int_eq(back[k], w[k]);
  /* past 2^31 - 1: refused at the first such offset, which is named */
  w[4] = (int64_t)INT32_MAX + 1;
  ng_error_clear();
  ck_assert_int_eq(ng_offsets_narrow(w, 5, n32), NG_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "row offset 4 is 2147483648"));
  w[4] = big_nnz;
  ck_assert_int_eq(ng_offsets_narrow(w, 5, n32), NG_ERR_UNSUPPORTED);
  w[4] = INT32_MAX;
  w[2] = -5;
  ck_assert_int_eq(ng_offsets_narrow(w, 5, n32), NG_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "row offset 2 is -5"));
  /* widening keeps values past 2^31 (unsigned wrap checks) */
  int32_t neg[2] = {INT32_MAX, -1};
  ng_offsets_widen(neg, 2, back);
  ck_assert_int_eq(back[0], INT32_MAX);
  ck_assert_int_eq(back[1], -1);
  NG_ASSERT_OK(ng_offsets_narrow(w, 0, n32)); /* nothing to do */
}
END_TEST

START_TEST(device_footprints)
{
  size_t b64 = ng_csr_device_bytes((int32_t)big_rows, big_nnz, 1);
  size_t b32 = ng_csr_device_bytes((int32_t)big_rows, big_nnz, 0);
  ck_assert_uint_eq(b64, (size_t)(big_rows + 1) * 8 + (size_t)big_nnz * 12);
  ck_assert_uint_eq(b64 - b32, (size_t)(big_rows + 1) * 4);
  /* 26.6 GB, the 64-bit offsets 1.2 % of it (4 bytes a row against 27 x 12) */
  ck_assert(b64 > 26000000000ull && b64 < 26700000000ull);
  ck_assert((double)(b64 - b32) / (double)b64 < 0.013);
  printf("lap27:%d: %lld rows, %lld entries, device CSR %.2f GB (64-bit offsets), %.2f GB with 32-bit\n", BIG_N,
         (long long)big_rows, (long long)big_nnz, b64 / 1e9, b32 / 1e9);
}
END_TEST

/* y = A x on a host matrix handle. */
static void apply_host(ng_matrix A, const double *x, double *y, int32_t n)
{
  ng_vector vx, vy;
  NG_ASSERT_OK(ng_vector_create(A, &vx));
  NG_ASSERT_OK(ng_vector_create(A, &vy));
  NG_ASSERT_OK(ng_vector_set_values(vx, x));
  NG_ASSERT_OK(ng_matrix_apply(A, vx, vy));
  NG_ASSERT_OK(ng_vector_get_values(vy, y));
  ng_vector_destroy(vx);
  ng_vector_destroy(vy);
  (void)n;
}

START_TEST(adopt_local_takes_the_csr)
{
  ng_context ctx;
  NG_ASSERT_OK(ng_context_create("cpu", &ctx));
  ng_csr W, R;
  double *b;
  NG_ASSERT_OK(ng_generate_csr("lap27:7", &W, &b));
  NG_ASSERT_OK(ng_csr_copy(&W, &R));
  int32_t n = W.nrows;
  const int32_t *col = W.col;
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_adopt_local(ctx, &W, &A));
  ck_assert(W.col == NULL && W.rowptr == NULL && W.nnz == 0); /* emptied */
  ck_assert(A->local.col == col);                             /* taken, not copied */
  int64_t ng = 0, nnz = 0;
  int32_t nl = 0;
  NG_ASSERT_OK(ng_matrix_get_size(A, &ng, &nl, &nnz));
  ck_assert_int_eq(ng, n);
  ck_assert_int_eq(nl, n);
  ck_assert_int_eq(nnz, R.nnz);
  double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double)),
         *r = malloc((size_t)n * sizeof(double));
  for (int32_t i = 0; i < n; i++) x[i] = 1.0 + 0.001 * i;
  apply_host(A, x, y, n);
  ng_csr_spmv(&R, 1.0, x, 0.0, r);
  for (int32_t i = 0; i < n; i++) ck_assert_double_eq_tol(y[i], r[i], 1e-12 * fabs(r[i]) + 1e-300);
  ng_matrix_destroy(A);
  /* ng_matrix_generate on one rank goes this way: A ones = b */
  ng_vector vb;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap27:7", &A, &vb));
  for (int32_t i = 0; i < n; i++) x[i] = 1.0;
  apply_host(A, x, y, n);
  NG_ASSERT_OK(ng_vector_get_values(vb, r));
  for (int32_t i = 0; i < n; i++) ck_assert_double_eq_tol(y[i], r[i], 1e-12);
  for (int32_t i = 0; i < n; i++) ck_assert_double_eq(r[i], b[i]);
  ng_vector_destroy(vb);
  ng_matrix_destroy(A);
  /* refusals empty W too: a column out of range, a rectangular matrix */
  NG_ASSERT_OK(ng_csr_copy(&R, &W));
  W.col[5] = n + 3;
  ng_error_clear();
  ck_assert_int_eq(ng_matrix_adopt_local(ctx, &W, &A), NG_ERR_ARGUMENT);
  ck_assert_ptr_null(A);
  ck_assert_ptr_null(W.col);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "outside"));
  NG_ASSERT_OK(ng_csr_copy(&R, &W));
  W.ncols = n + 1;
  ck_assert_int_eq(ng_matrix_adopt_local(ctx, &W, &A), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "square"));
  ck_assert_ptr_null(W.rowptr);
  ng_csr_free(&R);
  free(b);
  free(x);
  free(y);
  free(r);
  ng_context_destroy(ctx);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("sizes");
  TCase *tc = tcase_create("sizes");
  tcase_set_timeout(tc, 120); /* make -j check beside the GPU tests on a loaded machine */
  tcase_add_test(tc, ceil_div_and_grid_blocks);
  tcase_add_test(tc, offset_width_choice_and_refusals);
  tcase_add_test(tc, checked_products);
  tcase_add_test(tc, offsets_narrow_and_widen);
  tcase_add_test(tc, device_footprints);
  tcase_add_test(tc, adopt_local_takes_the_csr);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
