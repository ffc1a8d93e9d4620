/* spmv/csr.c: host CSR format, the reference every other format and the
 * cuSPARSE path are tested against. It reads the matrix's own host block. */
#include "internal.h"

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
static size_t csr_bytes(const void *data)
{
  const ng_csr *A = data;
  return ((size_t)A->nrows + 1) * sizeof(int64_t) + (size_t)A->nnz * (sizeof(int32_t) + sizeof(double));
}
static void csr_destroy(void *data) {}

const ng_spmv_ops ng_spmv_csr_host = {.name = "csr", .on_gpu = 0, .create = csr_create, .apply = csr_apply,
                                      .update_values = csr_update, .bytes = csr_bytes, .destroy = csr_destroy};
