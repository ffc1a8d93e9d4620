/* test/test_core.c: errors, COO->CSR, CSR checks, contexts, vectors and
 * matrix creation/apply on the host context. */
#include "testutil.h"
#include "../core/core.h"
#include <math.h>

START_TEST(error_message_names_cause)
{
  ng_error_clear();
  ng_context ctx;
  ck_assert_int_eq(ng_context_create("tpu", &ctx), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "tpu"));
  ck_assert_str_eq(ng_status_name(NG_ERR_PARSE), "NG_ERR_PARSE");
  int a, b, c;
  NG_ASSERT_OK(ng_version(&a, &b, &c));
  char v[64];
  snprintf(v, sizeof(v), "%d.%d.%d", a, b, c);
  ck_assert_str_eq(v, ng_version_string());
}
END_TEST

START_TEST(coo_sorts_and_sums_duplicates)
{
  ng_coo C;
  ng_csr A;
  NG_ASSERT_OK(ng_coo_init(&C, 3, 3, 0));
  int rows[] = {2, 0, 2, 1, 0, 2}, cols[] = {1, 2, 1, 1, 0, 0};
  double vals[] = {1, 2, 3, 4, 5, 6};
  for (int k = 0; k < 6; k++) NG_ASSERT_OK(ng_coo_push(&C, rows[k], cols[k], vals[k]));
  ck_assert_int_eq(ng_coo_push(&C, 3, 0, 1.0), NG_ERR_ARGUMENT);
  NG_ASSERT_OK(ng_coo_to_csr(&C, &A));
  ck_assert_int_eq(A.nnz, 5);
  int64_t rp[] = {0, 2, 3, 5};
  int32_t cl[] = {0, 2, 1, 0, 1};
  double vl[] = {5, 2, 4, 6, 4};
  for (int i = 0; i <= 3; i++) ck_assert_int_eq(A.rowptr[i], rp[i]);
  for (int k = 0; k < 5; k++) {
    ck_assert_int_eq(A.col[k], cl[k]);
    ck_assert_double_eq(A.val[k], vl[k]);
  }
  NG_ASSERT_OK(ng_csr_validate(&A));
  A.val[1] = NAN;
  ck_assert_int_eq(ng_csr_validate(&A), NG_ERR_NUMERIC);
  double d[3];
  ck_assert_int_eq(ng_csr_diagonal(&A, d, 1), NG_ERR_NUMERIC);
  ck_assert_msg(strstr(ng_last_error(), "row 3 (0-based 2) has a zero"), "%s", ng_last_error());
  ng_csr_free(&A);
  ng_coo_free(&C);
}
END_TEST

/* Random sparse matrix with a given number of entries per row. */
static void random_csr(ng_csr *A, int32_t n, int per_row)
{
  ng_coo C;
  double r[2];
  ng_coo_init(&C, n, n, (int64_t)n * per_row);
  for (int32_t i = 0; i < n; i++) {
    ng_coo_push(&C, i, i, 10.0);
    for (int k = 1; k < per_row; k++) {
      ng_test_random(r, 2);
      int32_t j = (int32_t)((r[0] + 1.0) * 0.5 * n);
      if (j >= n) j = n - 1;
      ng_coo_push(&C, i, j, r[1]);
    }
  }
  ng_coo_to_csr(&C, A);
  ng_coo_free(&C);
}

START_TEST(matrix_apply_matches_dense)
{
  ng_context ctx;
  ng_matrix M;
  ng_vector x, y;
  ng_csr A;
  int32_t n = 200;
  NG_ASSERT_OK(ng_context_create("cpu", &ctx));
  random_csr(&A, n, 7);
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, n, n, A.rowptr, A.col, A.val, &M));
  int64_t ng, nnz;
  int32_t nl;
  NG_ASSERT_OK(ng_matrix_get_size(M, &ng, &nl, &nnz));
  ck_assert_int_eq(ng, n);
  ck_assert_int_eq(nl, n);
  ck_assert_int_eq(nnz, A.nnz);
  ck_assert_str_eq(ng_matrix_format(M), "csr");
  double *xv = malloc(n * sizeof(double)), *yv = malloc(n * sizeof(double)), *dense = calloc((size_t)n * n, sizeof(double));
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) dense[(size_t)i * n + A.col[p]] += A.val[p];
  ng_test_random(xv, n);
  NG_ASSERT_OK(ng_vector_create(M, &x));
  NG_ASSERT_OK(ng_vector_create(M, &y));
  NG_ASSERT_OK(ng_vector_set_values(x, xv));
  NG_ASSERT_OK(ng_matrix_apply(M, x, y));
  NG_ASSERT_OK(ng_vector_get_values(y, yv));
  for (int32_t i = 0; i < n; i++) {
    double s = 0;
    for (int32_t j = 0; j < n; j++) s += dense[(size_t)i * n + j] * xv[j];
    ck_assert_double_eq_tol(yv[i], s, 1e-12 * (1 + fabs(s)));
  }
  /* update_values with doubled values doubles the product */
  for (int64_t p = 0; p < A.nnz; p++) A.val[p] *= 2;
  NG_ASSERT_OK(ng_matrix_update_values(M, A.val));
  double before = yv[n / 2];
  NG_ASSERT_OK(ng_matrix_apply(M, x, y));
  NG_ASSERT_OK(ng_vector_get_values(y, yv));
  ck_assert_double_eq_tol(yv[n / 2], 2 * before, 1e-12 * (1 + fabs(before)));
  ck_assert_int_eq(ng_matrix_apply(M, x, x), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_matrix_set_format(M, "nonsense"), NG_ERR_ARGUMENT);
  ng_vector_destroy(x);
  ng_vector_destroy(y);
  ng_matrix_destroy(M);
  ng_csr_free(&A);
  free(xv); free(yv); free(dense);
  ng_context_destroy(ctx);
}
END_TEST

START_TEST(matrix_rejects_bad_input)
{
  ng_context ctx;
  ng_matrix M = NULL;
  NG_ASSERT_OK(ng_context_create("cpu", &ctx));
  int64_t rp[] = {0, 1, 2};
  int32_t col_bad[] = {0, 5};
  double val[] = {1, 1}, val_nan[] = {1, INFINITY};
  int32_t col[] = {0, 1};
  ck_assert_int_eq(ng_matrix_create_csr(ctx, 2, 2, rp, col_bad, val, &M), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "column 5"));
  ck_assert_int_eq(ng_matrix_create_csr(ctx, 2, 2, rp, col, val_nan, &M), NG_ERR_NUMERIC);
  ck_assert_int_eq(ng_matrix_create_csr(ctx, 2, 3, rp, col, val, &M), NG_ERR_ARGUMENT);
  ck_assert_ptr_null(M);
  ng_context_destroy(ctx);
}
END_TEST

START_TEST(vector_ops_and_reductions)
{
  ng_context ctx;
  ng_matrix M;
  ng_vector x, y;
  int32_t n = 1001;
  ng_csr A;
  NG_ASSERT_OK(ng_context_create("cpu", &ctx));
  random_csr(&A, n, 1);
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, n, n, A.rowptr, A.col, A.val, &M));
  NG_ASSERT_OK(ng_vector_create(M, &x));
  NG_ASSERT_OK(ng_vector_create(M, &y));
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  ng_test_random(a, n);
  ng_test_random(b, n);
  NG_ASSERT_OK(ng_vector_set_values(x, a));
  NG_ASSERT_OK(ng_vector_set_values(y, b));
  double dot, ref = 0, nrm;
  for (int i = 0; i < n; i++) ref += a[i] * b[i];
  NG_ASSERT_OK(ng_vector_dot(x, y, &dot));
  ck_assert_double_eq_tol(dot, ref, 1e-12 * n);
  NG_ASSERT_OK(ng_vector_axpy(-2.0, x, y));
  NG_ASSERT_OK(ng_vector_get_values(y, b));
  ref = 0;
  for (int i = 0; i < n; i++) ref += b[i] * b[i];
  NG_ASSERT_OK(ng_vector_norm2(y, &nrm));
  ck_assert_double_eq_tol(nrm, sqrt(ref), 1e-12 * n);
  NG_ASSERT_OK(ng_vector_fill(x, 3.0));
  NG_ASSERT_OK(ng_vector_norm2(x, &nrm));
  ck_assert_double_eq_tol(nrm, 3.0 * sqrt(n), 1e-12 * n);
  ng_vector_destroy(x);
  ng_vector_destroy(y);
  ng_matrix_destroy(M);
  ng_csr_free(&A);
  free(a); free(b);
  ng_context_destroy(ctx);
}
END_TEST

/* ng_gpu_count / ng_gpu_name / ng_cuda_archs: none without CUDA; with CUDA
 * every visible GPU has a name and one past the last is refused. */
START_TEST(gpus_visible)
{
  char name[256];
  int n = ng_gpu_count();
  ck_assert_int_ge(n, 0);
  if (!ng_have_cuda()) {
    ck_assert_int_eq(n, 0);
    ck_assert_str_eq(ng_cuda_archs(), "");
  } else {
    ck_assert_msg(ng_cuda_archs()[0] >= '1' && ng_cuda_archs()[0] <= '9', "archs '%s'", ng_cuda_archs());
  }
  for (int d = 0; d < n; d++) {
    NG_ASSERT_OK(ng_gpu_name(d, name, sizeof(name)));
    ck_assert_msg(name[0] != '\0', "GPU %d has no name", d);
  }
  ck_assert_int_eq(ng_gpu_name(n, name, sizeof(name)), n ? NG_ERR_ARGUMENT : NG_ERR_NO_DEVICE);
  ck_assert_str_eq(name, "");
  ck_assert_int_eq(ng_gpu_name(0, NULL, 0), NG_ERR_ARGUMENT);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("core");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120); /* make -j check beside the GPU tests on a loaded machine */
  tcase_add_test(tc, error_message_names_cause);
  tcase_add_test(tc, coo_sorts_and_sums_duplicates);
  tcase_add_test(tc, matrix_apply_matches_dense);
  tcase_add_test(tc, matrix_rejects_bad_input);
  tcase_add_test(tc, vector_ops_and_reductions);
  tcase_add_test(tc, gpus_visible);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
