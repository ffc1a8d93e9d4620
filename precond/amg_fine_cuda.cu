/* precond/amg_fine_cuda.cu: the finest level's V-cycle operator on the GPU
 * (amg_fine.c) converted from the matrix's own device CSR: the converters
 * of spmv/convert_cuda.cu read an ng_dcsr, so its columns and values are
 * borrowed from the matrix's csr_cuda table and only the row offsets are
 * widened to 64 bits (n + 1 entries); a matrix in another format is
 * uploaded from its host copy instead. */
#include "amg.h"
#include "../spmv/convert_cuda.h"

extern "C" ng_status ng_csr_cuda_arrays(const ng_spmv_ops *ops, void *data, int32_t **rowptr, int32_t **col,
                                        double **val);

__global__ void k_widen_rowptr(int64_t n1, const int32_t *rp32, int64_t *rp64)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n1) rp64[i] = rp32[i];
}

extern "C" ng_status ng_amg_fine_create_dev(ng_context ctx, ng_matrix A, const char *spec, const ng_spmv_ops **ops,
                                            void **data)
{
  int32_t *rp, *col;
  double *val;
  if (ng_csr_cuda_arrays(A->spmv, A->spmv_data, &rp, &col, &val) != NG_SUCCESS)
    return ng_spmv_create_dev(ctx, spec, &A->local, NULL, ops, data);
  ng_dcsr d;
  d.n = A->local.nrows;
  d.ncols = A->local.ncols;
  d.nnz = A->local.nnz;
  NG_CHECK(NG_CUDA_MALLOC(d.rp, d.n + 1));
  k_widen_rowptr<<<(unsigned)((d.n + 1 + 255) / 256), 256, 0, ctx->cuda->stream>>>(d.n + 1, rp, d.rp);
  NG_CUDA_LAUNCH_CHECK();
  d.col = col; /* borrowed: given back before d's destructor frees it */
  d.val = val;
  ng_status st = ng_spmv_create_dev(ctx, spec, &A->local, &d, ops, data);
  d.col = NULL;
  d.val = NULL;
  if (st != NG_SUCCESS) return ng_error_trace(st, __FILE__, __LINE__);
  return NG_SUCCESS;
}
