/* spmv/csr.c: host CSR format, the reference every other format and the
 * cuSPARSE path are tested against. It reads the matrix's own host block. */
#include "spmv.h"

static ng_status csr_create(ng_context ctx, const ng_csr *A, void **data)
{
  *data = (void *)A;
  return NG_SUCCESS;
}
static ng_status csr_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  ng_csr_spmv((const ng_csr *)data, alpha, x, beta, y);
  return NG_SUCCESS;
}
static ng_status csr_update(void *data, const ng_csr *A) { return NG_SUCCESS; }
/* One pass per row: y = x + dinv .* (b - A x), or y = b - A x (dinv NULL).
 * The operations of csr_apply, xpay, pointwise_mult and axpy in the same
 * order, so the result is the unfused sweep's to the bit (reference of the
 * GPU kernels). */
static ng_status csr_fused(void *data, const double *b, const double *x, const double *dinv, double *y)
{
  const ng_csr *A = data;
  int32_t n = A->nrows;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k] * x[A->col[k]];
    double r = b[i] + -1.0 * s;
    y[i] = dinv ? x[i] + dinv[i] * r : r;
  }
  return NG_SUCCESS;
}
static size_t csr_bytes(const void *data)
{
  const ng_csr *A = data;
  return ((size_t)A->nrows + 1) * sizeof(int64_t) + (size_t)A->nnz * (sizeof(int32_t) + sizeof(double));
}
static void csr_destroy(void *data) {}

const ng_spmv_ops ng_spmv_csr_host = {.name = "csr", .on_gpu = 0, .create = csr_create, .apply = csr_apply,
                                      .update_values = csr_update, .bytes = csr_bytes, .destroy = csr_destroy, .fused = csr_fused};
