/* spmv/csr_cuda.cu: CSR SpMV on the GPU through cusparseSpMV, the baseline
 * every GPU format is compared with; spmv/csr.c is its host reference.
 * Row offsets on the device are 32-bit while the matrix has at most 2^31 - 1
 * entries, 64-bit past that (issue 16 item 6: lap27:432 has 2.17e9), with
 * 32-bit columns either way: the wide offsets cost 4 bytes a row, nothing
 * next to the 12 bytes an entry. cuSPARSE (through 13.0) refuses that mix
 * of CUSPARSE_INDEX_64I offsets and CUSPARSE_INDEX_32I columns, and prints
 * its refusal on stderr ("** On entry to cusparseCreateCsr()", once a rank
 * on lap27:800 over 4 GPUs), so the 64-bit layout goes straight to our own
 * vector-CSR kernel (k_csr64, G lanes a row); NG_CSR_OFFSETS64=cusparse
 * still asks cuSPARSE first, falling back on a refusal (NOT_SUPPORTED /
 * INVALID_VALUE at descriptor or buffer time). NG_CSR_OFFSETS64=1 in the environment forces the 64-bit layout
 * on every matrix, =kernel also forces the own kernel: the GPU tests run
 * both on small matrices that way. The SpMV work buffer is sized once at
 * create; the dense-vector descriptors are made once and repointed per call. */
#include "cuda_internal.h"
#include "spmv.h"
#include "sizes.h"
#include <limits.h>

typedef struct {
  ng_context ctx;
  int32_t nrows, ncols;
  int64_t nnz;
  int32_t *rowptr;   /* device, 32-bit offsets; NULL in the 64-bit layout */
  int64_t *rowptr64; /* device, 64-bit offsets; NULL in the 32-bit layout */
  int32_t *col;      /* device */
  double *val;       /* device */
  int own_kernel;    /* 1: k_csr64 instead of cuSPARSE (64-bit layout only) */
  int lanes;         /* k_csr64's lanes per row */
  cusparseSpMatDescr_t mat; /* NULL when the matrix has no rows or entries, or with own_kernel */
  cusparseDnVecDescr_t x, y;
  void *buffer;
  size_t buffer_bytes;
  int alg;           /* cuSPARSE's algorithm, 1 or 2 (ng_spmv_csr_alg when the descriptors are made) */
} csr_cuda;

/* y = beta y for a matrix without entries (beta == 0 overwrites). */
__global__ void k_csr_scale(int32_t n, double beta, double *y)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

/* y = alpha A x + beta y with 64-bit offsets: G lanes (a power of two <= 32)
 * share a row, strided over its entries, then a shuffle tree adds their
 * sums. Every thread of a warp reaches the shuffles (rows past n add 0). */
template <int G>
__global__ void k_csr64(int32_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
                        const double *__restrict__ val, const double *__restrict__ x, double alpha, double beta,
                        double *__restrict__ y)
{
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, i = t / G;
  int lane = (int)(t % G);
  double s = 0.0;
  if (i < n)
    for (int64_t k = rp[i] + lane; k < rp[i + 1]; k += G) s += val[k] * __ldg(x + col[k]);
  for (int off = G / 2; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off, G);
  if (i < n && lane == 0) y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
}

/* Lanes per row for k_csr64: the power of two nearest the mean row length, 2..32. */
/* cuSPARSE's CSR SpMV algorithm: ALG1 unless -csr_spmv_alg 2 or, without the
 * option, NG_CUSPARSE_SPMV_ALG=2 (ALG2, documented as bitwise reproducible
 * from run to run; spmv/spmv_options.c). Fixed per matrix when it is built,
 * so that its buffer and its products use the same algorithm. */
static cusparseSpMVAlg_t csr_spmv_alg(int alg)
{
  return alg == 2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1;
}

static int csr64_lanes(int32_t nrows, int64_t nnz)
{
  double mean = nrows ? (double)nnz / nrows : 0.0;
  int g = 2;
  while (g < 32 && g * 1.5 < mean) g *= 2;
  return g;
}

/* NG_CSR_OFFSETS64: 0 unset, 1 force the 64-bit layout (the own kernel), 2 (kernel) the same,
 * 3 (cusparse) the 64-bit layout with cuSPARSE asked first. */
static int csr_force64(void)
{
  const char *e = getenv("NG_CSR_OFFSETS64");
  if (!e || !*e || !strcmp(e, "0")) return 0;
  if (!strcmp(e, "kernel")) return 2;
  return strcmp(e, "cusparse") ? 1 : 3;
}

static void csr_cuda_destroy(void *data)
{
  csr_cuda *d = (csr_cuda *)data;
  if (!d) return;
  if (d->mat) cusparseDestroySpMat(d->mat);
  if (d->x) cusparseDestroyDnVec(d->x);
  if (d->y) cusparseDestroyDnVec(d->y);
  ng_cuda_free(d->rowptr);
  ng_cuda_free(d->rowptr64);
  ng_cuda_free(d->col);
  ng_cuda_free(d->val);
  ng_cuda_free(d->buffer);
  ng_free(d);
}

static ng_status csr_cuda_descriptors(csr_cuda *d);

/* The row offsets on the device: as they are (64-bit layout), or narrowed
 * through a host staging copy (32-bit layout). */
static ng_status csr_cuda_upload_offsets(csr_cuda *d, const ng_csr *A)
{
  struct ng_cuda *cu = d->ctx->cuda;
  size_t n1 = (size_t)A->nrows + 1;
  if (d->rowptr64) {
    NG_CUDA_CHECK(cudaMemcpyAsync(d->rowptr64, A->rowptr, n1 * sizeof(int64_t), cudaMemcpyHostToDevice, cu->stream));
    return NG_SUCCESS;
  }
  int32_t *rp = NULL;
  NG_CHECK(NG_MALLOC(rp, n1));
  ng_status st = ng_offsets_narrow(A->rowptr, (int64_t)n1, rp);
  cudaError_t e = cudaSuccess;
  if (st == NG_SUCCESS) {
    e = cudaMemcpyAsync(d->rowptr, rp, n1 * sizeof(int32_t), cudaMemcpyHostToDevice, cu->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream); /* rp is freed below */
  }
  ng_free(rp);
  NG_CHECK(st);
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "uploading the CSR row offsets failed: %s", cudaGetErrorString(e));
  return NG_SUCCESS;
}

/* Device arrays, descriptors and the work buffer for A. */
static ng_status csr_cuda_setup(csr_cuda *d, const ng_csr *A, int wide)
{
  struct ng_cuda *cu = d->ctx->cuda;
  if (wide) NG_CHECK(NG_CUDA_MALLOC(d->rowptr64, (size_t)A->nrows + 1));
  else NG_CHECK(NG_CUDA_MALLOC(d->rowptr, (size_t)A->nrows + 1));
  NG_CHECK(NG_CUDA_MALLOC(d->col, A->nnz));
  NG_CHECK(NG_CUDA_MALLOC(d->val, A->nnz));
  NG_CHECK(csr_cuda_upload_offsets(d, A));
  if (A->nnz) {
    NG_CUDA_CHECK(cudaMemcpyAsync(d->col, A->col, (size_t)A->nnz * sizeof(int32_t), cudaMemcpyHostToDevice, cu->stream));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->val, A->val, (size_t)A->nnz * sizeof(double), cudaMemcpyHostToDevice, cu->stream));
  }
  NG_CUDA_CHECK(cudaStreamSynchronize(cu->stream));
  return csr_cuda_descriptors(d);
}

/* cuSPARSE's answer to a descriptor or buffer request for the 64-bit layout:
 * a refusal of the index mix is not an error (the own kernel takes over). */
static int csr_mix_refused(cusparseStatus_t e)
{
  return e == CUSPARSE_STATUS_NOT_SUPPORTED || e == CUSPARSE_STATUS_INVALID_VALUE;
}

/* cuSPARSE descriptors and the SpMV work buffer over d's device arrays (or
 * none, with own_kernel). */
static ng_status csr_cuda_descriptors(csr_cuda *d)
{
  struct ng_cuda *cu = d->ctx->cuda;
  if (d->nrows == 0 || d->nnz == 0) return NG_SUCCESS; /* apply() handles these without cuSPARSE */
  d->lanes = csr64_lanes(d->nrows, d->nnz);
  d->alg = ng_spmv_csr_alg();
  if (d->own_kernel) return NG_SUCCESS;
  int wide = d->rowptr64 != NULL;
  cusparseStatus_t e = cusparseCreateCsr(&d->mat, d->nrows, d->ncols, d->nnz, wide ? (void *)d->rowptr64 : (void *)d->rowptr,
                                         d->col, d->val, wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  if (wide && csr_mix_refused(e)) {
    d->mat = NULL;
    d->own_kernel = 1;
    return NG_SUCCESS;
  }
  if (e != CUSPARSE_STATUS_SUCCESS) {
    d->mat = NULL;
    return NG_ERROR(NG_ERR_CUDA, "cusparseCreateCsr (%s row offsets) failed: %s", wide ? "64-bit" : "32-bit",
                    cusparseGetErrorString(e));
  }
  /* placeholders: the real vectors are set per call */
  NG_CUSPARSE_CHECK(cusparseCreateDnVec(&d->x, d->ncols, d->val, CUDA_R_64F));
  NG_CUSPARSE_CHECK(cusparseCreateDnVec(&d->y, d->nrows, d->val, CUDA_R_64F));
  double one = 1.0, zero = 0.0;
  e = cusparseSpMV_bufferSize(cu->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mat, d->x, &zero, d->y,
                              CUDA_R_64F, csr_spmv_alg(d->alg), &d->buffer_bytes);
  if (wide && csr_mix_refused(e)) {
    cusparseDestroySpMat(d->mat);
    d->mat = NULL;
    d->buffer_bytes = 0;
    d->own_kernel = 1;
    return NG_SUCCESS;
  }
  if (e != CUSPARSE_STATUS_SUCCESS)
    return NG_ERROR(NG_ERR_CUDA, "cusparseSpMV_bufferSize failed: %s", cusparseGetErrorString(e));
  NG_CHECK(ng_cuda_malloc(&d->buffer, d->buffer_bytes, "cusparseSpMV work buffer"));
  return NG_SUCCESS;
}

static ng_status csr_cuda_create(ng_context ctx, const ng_csr *A, void **data)
{
  csr_cuda *d;
  int force = csr_force64();
  *data = NULL;
  NG_CHECK(NG_CALLOC(d, 1));
  d->ctx = ctx;
  d->nrows = A->nrows;
  d->ncols = A->ncols;
  d->nnz = A->nnz;
  int wide = force || ng_csr_needs_offsets64(A->nnz);
  d->own_kernel = wide && force != 3; /* NG_CSR_OFFSETS64=cusparse: cuSPARSE first */
  ng_status st = csr_cuda_setup(d, A, wide);
  if (st != NG_SUCCESS) {
    csr_cuda_destroy(d);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *data = d;
  return NG_SUCCESS;
}

/* One k_csr64 launch with d->lanes lanes a row. */
static ng_status csr64_apply(csr_cuda *d, double alpha, const double *x, double beta, double *y)
{
  cudaStream_t s = d->ctx->cuda->stream;
  unsigned nb;
  NG_CHECK(ng_grid_blocks((int64_t)d->nrows * d->lanes, 256, "GPU CSR (64-bit offsets)", &nb));
  switch (d->lanes) {
  case 2: k_csr64<2><<<nb, 256, 0, s>>>(d->nrows, d->rowptr64, d->col, d->val, x, alpha, beta, y); break;
  case 4: k_csr64<4><<<nb, 256, 0, s>>>(d->nrows, d->rowptr64, d->col, d->val, x, alpha, beta, y); break;
  case 8: k_csr64<8><<<nb, 256, 0, s>>>(d->nrows, d->rowptr64, d->col, d->val, x, alpha, beta, y); break;
  case 16: k_csr64<16><<<nb, 256, 0, s>>>(d->nrows, d->rowptr64, d->col, d->val, x, alpha, beta, y); break;
  default: k_csr64<32><<<nb, 256, 0, s>>>(d->nrows, d->rowptr64, d->col, d->val, x, alpha, beta, y); break;
  }
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

static ng_status csr_cuda_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  csr_cuda *d = (csr_cuda *)data;
  struct ng_cuda *cu = d->ctx->cuda;
  if (d->nrows == 0) return NG_SUCCESS;
  if (d->nnz == 0) {
    k_csr_scale<<<(unsigned)ng_ceil_div64(d->nrows, 256), 256, 0, cu->stream>>>(d->nrows, beta, y);
    NG_CUDA_LAUNCH_CHECK();
    return NG_SUCCESS;
  }
  if (d->own_kernel) return csr64_apply(d, alpha, x, beta, y);
  NG_CUSPARSE_CHECK(cusparseDnVecSetValues(d->x, (void *)x));
  NG_CUSPARSE_CHECK(cusparseDnVecSetValues(d->y, y));
  cusparseStatus_t e = cusparseSpMV(cu->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d->mat, d->x, &beta, d->y,
                                    CUDA_R_64F, csr_spmv_alg(d->alg), d->buffer);
  if (d->rowptr64 && csr_mix_refused(e)) { /* the mix refused only now: the own kernel from here on */
    d->own_kernel = 1;
    return csr64_apply(d, alpha, x, beta, y);
  }
  if (e != CUSPARSE_STATUS_SUCCESS) return NG_ERROR(NG_ERR_CUDA, "cusparseSpMV failed: %s", cusparseGetErrorString(e));
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

/* Device bytes: row offsets (32- or 64-bit), columns, values, the cuSPARSE buffer. */
static size_t csr_cuda_bytes(const void *data)
{
  const csr_cuda *d = (const csr_cuda *)data;
  return ng_csr_device_bytes(d->nrows, d->nnz, d->rowptr64 != NULL) + d->buffer_bytes;
}

/* Internal (amg/amg_setup_cuda.cu): a table over device arrays built on
 * the GPU (32-bit row offsets); it owns them on success, the caller keeps
 * them on failure. */
extern "C" ng_status ng_csr_cuda_adopt(ng_context ctx, int32_t nrows, int32_t ncols, int64_t nnz, int32_t *rowptr,
                                       int32_t *col, double *val, void **data)
{
  csr_cuda *d;
  *data = NULL;
  NG_CHECK(ng_require_index32(nnz, "GPU CSR over 32-bit row offsets", NULL));
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

/* Internal (amg/amg_*_cuda.cu): a table over new device arrays (nrows + 1
 * row offsets, nnz columns and values) that fill(arg, ...) writes on the
 * context's stream; the arrays are freed when the fill or the table fails. */
extern "C" ng_status ng_csr_cuda_make(ng_context ctx, int32_t nrows, int32_t ncols, int64_t nnz,
                                      ng_status (*fill)(void *arg, int32_t *rowptr, int32_t *col, double *val),
                                      void *arg, void **data)
{
  int32_t *rp = NULL, *col = NULL;
  double *val = NULL;
  ng_status st = NG_SUCCESS;
  *data = NULL;
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(rp, (size_t)nrows + 1), fail);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(col, nnz ? nnz : 1), fail);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(val, nnz ? nnz : 1), fail);
  NG_CHECK_GOTO(st, fill(arg, rp, col, val), fail);
  NG_CHECK_GOTO(st, ng_csr_cuda_adopt(ctx, nrows, ncols, nnz, rp, col, val, data), fail);
  return NG_SUCCESS;
fail:
  ng_cuda_free(rp);
  ng_cuda_free(col);
  ng_cuda_free(val);
  return st;
}

extern "C" const ng_spmv_ops ng_spmv_csr_cuda;
/* Internal: the device arrays behind a csr_cuda table with 32-bit row
 * offsets (NG_ERR_ARGUMENT for another format, NG_ERR_UNSUPPORTED for the
 * 64-bit layout; both quiet: the caller falls back). */
extern "C" ng_status ng_csr_cuda_arrays(const ng_spmv_ops *ops, void *data, int32_t **rowptr, int32_t **col,
                                        double **val)
{
  if (ops != &ng_spmv_csr_cuda || !data) return NG_ERR_ARGUMENT; /* quiet: the caller falls back */
  csr_cuda *d = (csr_cuda *)data;
  if (!d->rowptr) return NG_ERR_UNSUPPORTED; /* 64-bit offsets: quiet as well */
  *rowptr = d->rowptr;
  *col = d->col;
  *val = d->val;
  return NG_SUCCESS;
}

/* Internal (amg/amg_setup_cuda.cu): the same for the 64-bit layout
 * (quiet NG_ERR_ARGUMENT for another format or the 32-bit layout). */
extern "C" ng_status ng_csr_cuda_arrays64(const ng_spmv_ops *ops, void *data, int64_t **rowptr, int32_t **col,
                                          double **val)
{
  if (ops != &ng_spmv_csr_cuda || !data || !((csr_cuda *)data)->rowptr64) return NG_ERR_ARGUMENT;
  csr_cuda *d = (csr_cuda *)data;
  *rowptr = d->rowptr64;
  *col = d->col;
  *val = d->val;
  return NG_SUCCESS;
}

/* Internal (tests): 0 for 32-bit row offsets, 1 for 64-bit through
 * cuSPARSE, 2 for 64-bit through k_csr64; -1 for another table. */
extern "C" int ng_csr_cuda_layout(const ng_spmv_ops *ops, const void *data)
{
  if (ops != &ng_spmv_csr_cuda || !data) return -1;
  const csr_cuda *d = (const csr_cuda *)data;
  return !d->rowptr64 ? 0 : d->own_kernel ? 2 : 1;
}

extern "C" const ng_spmv_ops ng_spmv_csr_cuda = {"csr", 1, csr_cuda_create, csr_cuda_apply, csr_cuda_update,
                                                  csr_cuda_bytes, csr_cuda_destroy};
