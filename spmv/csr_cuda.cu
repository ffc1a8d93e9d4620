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

static ng_status csr_cuda_descriptors(csr_cuda *d);

/* Device arrays, descriptors and the work buffer for A. */
static ng_status csr_cuda_setup(csr_cuda *d, const ng_csr *A)
{
  struct ng_cuda *cu = d->ctx->cuda;
  int32_t *rp = NULL;
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
  return csr_cuda_descriptors(d);
}

/* cuSPARSE descriptors and the SpMV work buffer over d's device arrays. */
static ng_status csr_cuda_descriptors(csr_cuda *d)
{
  struct ng_cuda *cu = d->ctx->cuda;
  if (d->nrows == 0 || d->nnz == 0) return NG_SUCCESS; /* apply() handles these without cuSPARSE */
  NG_CUSPARSE_CHECK(cusparseCreateCsr(&d->mat, d->nrows, d->ncols, d->nnz, d->rowptr, d->col, d->val,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  /* placeholders: the real vectors are set per call */
  NG_CUSPARSE_CHECK(cusparseCreateDnVec(&d->x, d->ncols, d->val, CUDA_R_64F));
  NG_CUSPARSE_CHECK(cusparseCreateDnVec(&d->y, d->nrows, d->val, CUDA_R_64F));
  double one = 1.0, zero = 0.0;
  NG_CUSPARSE_CHECK(cusparseSpMV_bufferSize(cu->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mat, d->x, &zero,
                                            d->y, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, &d->buffer_bytes));
  NG_CHECK(ng_cuda_malloc(&d->buffer, d->buffer_bytes, "cusparseSpMV work buffer"));
  return NG_SUCCESS;
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

/* Internal (precond/amg_setup_cuda.cu): a table over device arrays built on
 * the GPU (32-bit row offsets); it owns them on success, the caller keeps
 * them on failure. */
extern "C" ng_status ng_csr_cuda_adopt(ng_context ctx, int32_t nrows, int32_t ncols, int64_t nnz, int32_t *rowptr,
                                       int32_t *col, double *val, void **data)
{
  csr_cuda *d;
  *data = NULL;
  NG_CHECK(NG_CALLOC(d, 1));
  d->ctx = ctx;
  d->nrows = nrows;
  d->ncols = ncols;
  d->nnz = nnz;
  d->rowptr = rowptr;
  d->col = col;
  d->val = val;
  ng_status st = csr_cuda_descriptors(d);
  if (st != NG_SUCCESS) {
    d->rowptr = d->col = NULL; /* the caller keeps the arrays */
    d->val = NULL;
    csr_cuda_destroy(d);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *data = d;
  return NG_SUCCESS;
}

extern "C" const ng_spmv_ops ng_spmv_csr_cuda;
/* Internal: the device arrays behind a csr_cuda table (NG_ERR_ARGUMENT for another format). */
extern "C" ng_status ng_csr_cuda_arrays(const ng_spmv_ops *ops, void *data, int32_t **rowptr, int32_t **col,
                                        double **val)
{
  if (ops != &ng_spmv_csr_cuda || !data) return NG_ERR_ARGUMENT; /* quiet: the caller falls back */
  csr_cuda *d = (csr_cuda *)data;
  *rowptr = d->rowptr;
  *col = d->col;
  *val = d->val;
  return NG_SUCCESS;
}

extern "C" const ng_spmv_ops ng_spmv_csr_cuda = {"csr", 1, csr_cuda_create, csr_cuda_apply, csr_cuda_update,
                                                  csr_cuda_bytes, csr_cuda_destroy};
