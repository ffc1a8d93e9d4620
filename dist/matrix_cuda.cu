/* dist/matrix_cuda.cu: a matrix's host block refreshed from its device
 * CSR: the on-demand host copy of a device-only matrix
 * (ng_matrix_adopt_device, ng_matrix_host_current in matrix.c). */
#include "cuda_internal.h"
#include "dist.h"

extern "C" ng_status ng_matrix_device_download(ng_matrix A, int cols)
{
  int32_t *rp = NULL, *col = NULL;
  double *val = NULL;
  NG_CHECK(ng_csr_cuda_arrays(A->spmv, A->spmv_data, &rp, &col, &val));
  cudaStream_t s = A->ctx->cuda->stream;
  size_t nnz = (size_t)A->local.nnz;
  if (cols && nnz) NG_CUDA_CHECK(cudaMemcpyAsync(A->local.col, col, nnz * sizeof(int32_t), cudaMemcpyDeviceToHost, s));
  if (nnz) NG_CUDA_CHECK(cudaMemcpyAsync(A->local.val, val, nnz * sizeof(double), cudaMemcpyDeviceToHost, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}
