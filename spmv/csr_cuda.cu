/* spmv/csr_cuda.cu: CSR SpMV on the GPU through cusparseSpMV, the baseline
 * every GPU format is compared with; spmv/csr.c is its host reference.
 * cuSPARSE wants the row offsets and column indices of one index type, so
 * the library's 64-bit rowptr is narrowed to 32 bits (matrices with 2^31 or
 * more entries are refused). The SpMV work buffer is sized once at create;
 * the dense-vector descriptors are made once and repointed per call. */
#include "cuda_internal.h"
#include <limits.h>

typedef struct {
  ng_context ctx;
  int32_t nrows, ncols;
  int64_t nnz;
  int32_t *rowptr, *col; /* device */
  double *val;           /* device */
  cusparseSpMatDescr_t mat; /* NULL when the matrix has no rows or entries */
  cusparseDnVecDescr_t x, y;
  void *buffer;
  size_t buffer_bytes;
} csr_cuda;

/* y = beta y for a matrix without entries (beta == 0 overwrites). */
__global__ void k_csr_scale(int32_t n, double beta, double *y)
{
  int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

static void csr_cuda_destroy(void *data)
{
  csr_cuda *d = (csr_cuda *)data;
  if (!d) return;
  if (d->mat) cusparseDestroySpMat(d->mat);
  if (d->x) cusparseDestroyDnVec(d->x);
  if (d->y) cusparseDestroyDnVec(d->y);
  cudaFree(d->rowptr);
  cudaFree(d->col);
  cudaFree(d->val);
  cudaFree(d->buffer);
  ng_free(d);
}

/* Device arrays, descriptors and the work buffer for A. */
static ng_status csr_cuda_setup(csr_cuda *d, const ng_csr *A)
{
  struct ng_cuda *cu = d->ctx->cuda;
  int32_t *rp = NULL;
  ng_status st = NG_SUCCESS;
  NG_CHECK(NG_CUDA_MALLOC(d->rowptr, (size_t)A->nrows + 1));
  NG_CHECK(NG_CUDA_MALLOC(d->col, A->nnz));
  NG_CHECK(NG_CUDA_MALLOC(d->val, A->nnz));
  NG_CHECK(NG_MALLOC(rp, (size_t)A->nrows + 1));
  for (int32_t i = 0; i <= A->nrows; i++) rp[i] = (int32_t)A->rowptr[i];
  cudaError_t e = cudaMemcpyAsync(d->rowptr, rp, ((size_t)A->nrows + 1) * sizeof(int32_t), cudaMemcpyHostToDevice,
                                  cu->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream); /* rp is freed below */
  ng_free(rp);
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "uploading the CSR row offsets failed: %s", cudaGetErrorString(e));
  if (A->nnz) {
    NG_CUDA_CHECK(cudaMemcpyAsync(d->col, A->col, (size_t)A->nnz * sizeof(int32_t), cudaMemcpyHostToDevice, cu->stream));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->val, A->val, (size_t)A->nnz * sizeof(double), cudaMemcpyHostToDevice, cu->stream));
    NG_CUDA_CHECK(cudaStreamSynchronize(cu->stream));
  }
  if (A->nrows == 0 || A->nnz == 0) return st; /* apply() handles these without cuSPARSE */
  NG_CUSPARSE_CHECK(cusparseCreateCsr(&d->mat, A->nrows, A->ncols, A->nnz, d->rowptr, d->col, d->val,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  /* placeholders: the real vectors are set per call */
  NG_CUSPARSE_CHECK(cusparseCreateDnVec(&d->x, A->ncols, d->val, CUDA_R_64F));
  NG_CUSPARSE_CHECK(cusparseCreateDnVec(&d->y, A->nrows, d->val, CUDA_R_64F));
  double one = 1.0, zero = 0.0;
  NG_CUSPARSE_CHECK(cusparseSpMV_bufferSize(cu->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mat, d->x, &zero,
                                            d->y, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, &d->buffer_bytes));
  NG_CHECK(ng_cuda_malloc(&d->buffer, d->buffer_bytes, "cusparseSpMV work buffer"));
  return st;
}

static ng_status csr_cuda_create(ng_context ctx, const ng_csr *A, void **data)
{
  csr_cuda *d;
  *data = NULL;
  if (A->nnz > INT32_MAX)
    return NG_ERROR(NG_ERR_UNSUPPORTED,
                    "GPU CSR: %lld entries do not fit the 32-bit indices cuSPARSE needs here (at most %d per rank); "
                    "use more ranks",
                    (long long)A->nnz, INT32_MAX);
  NG_CHECK(NG_CALLOC(d, 1));
  d->ctx = ctx;
  d->nrows = A->nrows;
  d->ncols = A->ncols;
  d->nnz = A->nnz;
  ng_status st = csr_cuda_setup(d, A);
  if (st != NG_SUCCESS) {
    csr_cuda_destroy(d);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *data = d;
  return NG_SUCCESS;
}

static ng_status csr_cuda_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  csr_cuda *d = (csr_cuda *)data;
  struct ng_cuda *cu = d->ctx->cuda;
  if (d->nrows == 0) return NG_SUCCESS;
  if (!d->mat) {
    k_csr_scale<<<(d->nrows + 255) / 256, 256, 0, cu->stream>>>(d->nrows, beta, y);
    NG_CUDA_LAUNCH_CHECK();
    return NG_SUCCESS;
  }
  NG_CUSPARSE_CHECK(cusparseDnVecSetValues(d->x, (void *)x));
  NG_CUSPARSE_CHECK(cusparseDnVecSetValues(d->y, y));
  NG_CUSPARSE_CHECK(cusparseSpMV(cu->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d->mat, d->x, &beta, d->y,
                                 CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, d->buffer));
  return NG_SUCCESS;
}

static ng_status csr_cuda_update(void *data, const ng_csr *A)
{
  csr_cuda *d = (csr_cuda *)data;
  struct ng_cuda *cu = d->ctx->cuda;
  if (A->nnz != d->nnz || A->nrows != d->nrows)
    return NG_ERROR(NG_ERR_ARGUMENT, "GPU CSR update: %lld entries in %d rows given, the matrix has %lld in %d",
                    (long long)A->nnz, (int)A->nrows, (long long)d->nnz, (int)d->nrows);
  if (!d->nnz) return NG_SUCCESS;
  NG_CUDA_CHECK(cudaMemcpyAsync(d->val, A->val, (size_t)d->nnz * sizeof(double), cudaMemcpyHostToDevice, cu->stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(cu->stream));
  return NG_SUCCESS;
}

/* Device bytes: 32-bit rowptr and columns, values, the cuSPARSE buffer. */
static size_t csr_cuda_bytes(const void *data)
{
  const csr_cuda *d = (const csr_cuda *)data;
  return ((size_t)d->nrows + 1) * sizeof(int32_t) + (size_t)d->nnz * (sizeof(int32_t) + sizeof(double)) +
         d->buffer_bytes;
}

extern "C" const ng_spmv_ops ng_spmv_csr_cuda = {"csr", 1, csr_cuda_create, csr_cuda_apply, csr_cuda_update,
                                                  csr_cuda_bytes, csr_cuda_destroy};
