/* spmv/csr_rows_cuda.cu: the GPU twin of spmv/csr_rows.c, a matrix's
 * off-rank block as CSR over its non-empty rows only (the row list, their
 * offsets, columns, values), G lanes a row. Why not cuSPARSE's CSR: on a
 * rank with neighbours on both sides the block's entries sit in its first
 * and last rows with millions of empty rows between, and cusparseSpMV (ALG1)
 * then took 3.4 ms for 1.2M entries on an H100 (lap27:256 on 4 ranks, the
 * two middle ranks; edge ranks, whose empty rows trail, 0.1 ms): the whole
 * of issue 29's loss from 3 ranks on. Here the work is proportional to the
 * entries. beta 1 (the off-rank add) touches only the listed rows; any other
 * beta first scales all of y. Not in the format registry (dist/matrix.c
 * picks it for the off-rank block, as on the host). */
#include "cuda_internal.h"
#include "spmv.h"
#include "sizes.h"

typedef struct {
  ng_context ctx;
  int32_t nrows, nlist; /* all rows, non-empty rows */
  int64_t nnz;
  int32_t *rows, *rowptr, *col; /* device: the list, its nlist + 1 offsets, columns */
  double *val;                  /* device */
  int lanes;                    /* lanes a row: a power of two <= 32 near the mean length */
} csr_rows_cuda;

__global__ void k_rows_scale(int32_t n, double beta, double *y)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

/* y[rows[q]] += alpha (row q . x): G lanes a listed row, a shuffle tree adds
 * their sums; every lane of a warp reaches the shuffles. */
template <int G>
__global__ void k_rows_spmv(int32_t nlist, const int32_t *__restrict__ rows, const int32_t *__restrict__ rp,
                            const int32_t *__restrict__ col, const double *__restrict__ val,
                            const double *__restrict__ x, double alpha, double *__restrict__ y)
{
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t q = t / G;
  int lane = (int)(t % G);
  double s = 0.0;
  if (q < nlist)
    for (int32_t p = rp[q] + lane; p < rp[q + 1]; p += G) s += val[p] * x[col[p]];
#pragma unroll
  for (int o = G / 2; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o, G);
  if (lane == 0 && q < nlist) y[rows[q]] = alpha * s + y[rows[q]];
}

static void rows_destroy(void *data)
{
  csr_rows_cuda *d = (csr_rows_cuda *)data;
  if (!d) return;
  ng_cuda_free(d->rows);
  ng_cuda_free(d->rowptr);
  ng_cuda_free(d->col);
  ng_cuda_free(d->val);
  ng_free(d);
}

/* The list and its offsets on the host, then four uploads on the context's
 * stream, waited for before the host arrays go (setup only). */
static ng_status rows_setup(csr_rows_cuda *d, const ng_csr *A)
{
  int32_t *rows = NULL, *rp = NULL;
  ng_status st = NG_MALLOC(rows, A->nrows + 1);
  if (!st) st = NG_MALLOC(rp, A->nrows + 1);
  if (st) goto out;
  rp[0] = 0;
  for (int32_t i = 0; i < A->nrows; i++)
    if (A->rowptr[i + 1] > A->rowptr[i]) {
      rows[d->nlist] = i;
      rp[d->nlist + 1] = (int32_t)A->rowptr[i + 1];
      d->nlist++;
    }
  {
    int64_t mean = d->nlist ? (A->nnz + d->nlist - 1) / d->nlist : 1;
    d->lanes = 1;
    while (d->lanes < 32 && d->lanes < mean) d->lanes *= 2;
  }
  /* a row's first entry follows the previous non-empty row's last: the
   * offsets of the listed rows are the block's own (first one 0) */
  if (d->nlist) rp[0] = (int32_t)A->rowptr[rows[0]];
  st = ng_cuda_malloc((void **)&d->rows, (size_t)(d->nlist + 1) * sizeof(int32_t), "off-rank row list");
  if (!st) st = ng_cuda_malloc((void **)&d->rowptr, (size_t)(d->nlist + 1) * sizeof(int32_t), "off-rank row offsets");
  if (!st) st = ng_cuda_malloc((void **)&d->col, (size_t)(d->nnz + 1) * sizeof(int32_t), "off-rank columns");
  if (!st) st = ng_cuda_malloc((void **)&d->val, (size_t)(d->nnz + 1) * sizeof(double), "off-rank values");
  if (st) goto out;
  NG_CUDA_CHECK_GOTO(st, cudaMemcpyAsync(d->rows, rows, (size_t)d->nlist * sizeof(int32_t), cudaMemcpyHostToDevice, d->ctx->cuda->stream),
                     "off-rank block upload");
  NG_CUDA_CHECK_GOTO(st, cudaMemcpyAsync(d->rowptr, rp, (size_t)(d->nlist + 1) * sizeof(int32_t), cudaMemcpyHostToDevice, d->ctx->cuda->stream),
                     "off-rank block upload");
  NG_CUDA_CHECK_GOTO(st, cudaMemcpyAsync(d->col, A->col, (size_t)d->nnz * sizeof(int32_t), cudaMemcpyHostToDevice, d->ctx->cuda->stream),
                     "off-rank block upload");
  NG_CUDA_CHECK_GOTO(st, cudaMemcpyAsync(d->val, A->val, (size_t)d->nnz * sizeof(double), cudaMemcpyHostToDevice, d->ctx->cuda->stream),
                     "off-rank block upload");
  NG_CUDA_CHECK_GOTO(st, cudaStreamSynchronize(d->ctx->cuda->stream), "off-rank block upload");
out:
  ng_free(rows);
  ng_free(rp);
  return st;
}

static ng_status rows_create(ng_context ctx, const ng_csr *A, void **data)
{
  csr_rows_cuda *d;
  *data = NULL;
  NG_CHECK(ng_require_index32(A->nnz, "GPU off-rank CSR over its non-empty rows", NULL));
  NG_CHECK(NG_CALLOC(d, 1));
  d->ctx = ctx;
  d->nrows = A->nrows;
  d->nnz = A->nnz;
  ng_status st = rows_setup(d, A);
  if (st != NG_SUCCESS) {
    rows_destroy(d);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *data = d;
  return NG_SUCCESS;
}

static ng_status rows_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  csr_rows_cuda *d = (csr_rows_cuda *)data;
  cudaStream_t s = d->ctx->cuda->stream;
  unsigned nb;
  if (beta != 1.0 && d->nrows > 0) {
    NG_CHECK(ng_grid_blocks(d->nrows, 256, "GPU off-rank CSR scale", &nb));
    k_rows_scale<<<nb, 256, 0, s>>>(d->nrows, beta, y);
    NG_CUDA_LAUNCH_CHECK();
  }
  if (d->nlist == 0) return NG_SUCCESS;
  NG_CHECK(ng_grid_blocks((int64_t)d->nlist * d->lanes, 256, "GPU off-rank CSR", &nb));
  switch (d->lanes) {
  case 1: k_rows_spmv<1><<<nb, 256, 0, s>>>(d->nlist, d->rows, d->rowptr, d->col, d->val, x, alpha, y); break;
  case 2: k_rows_spmv<2><<<nb, 256, 0, s>>>(d->nlist, d->rows, d->rowptr, d->col, d->val, x, alpha, y); break;
  case 4: k_rows_spmv<4><<<nb, 256, 0, s>>>(d->nlist, d->rows, d->rowptr, d->col, d->val, x, alpha, y); break;
  case 8: k_rows_spmv<8><<<nb, 256, 0, s>>>(d->nlist, d->rows, d->rowptr, d->col, d->val, x, alpha, y); break;
  case 16: k_rows_spmv<16><<<nb, 256, 0, s>>>(d->nlist, d->rows, d->rowptr, d->col, d->val, x, alpha, y); break;
  default: k_rows_spmv<32><<<nb, 256, 0, s>>>(d->nlist, d->rows, d->rowptr, d->col, d->val, x, alpha, y); break;
  }
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

/* Same pattern, new values: one upload (a time step's update, not an iteration). */
static ng_status rows_update(void *data, const ng_csr *A)
{
  csr_rows_cuda *d = (csr_rows_cuda *)data;
  if (A->nnz != d->nnz || A->nrows != d->nrows)
    return NG_ERROR(NG_ERR_ARGUMENT, "GPU off-rank CSR update: %lld entries in %d rows given, the block has %lld in %d",
                    (long long)A->nnz, (int)A->nrows, (long long)d->nnz, (int)d->nrows);
  if (!d->nnz) return NG_SUCCESS;
  cudaStream_t s = d->ctx->cuda->stream;
  NG_CUDA_CHECK(cudaMemcpyAsync(d->val, A->val, (size_t)d->nnz * sizeof(double), cudaMemcpyHostToDevice, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

static size_t rows_bytes(const void *data)
{
  const csr_rows_cuda *d = (const csr_rows_cuda *)data;
  return (size_t)(2 * d->nlist + 1) * sizeof(int32_t) + (size_t)d->nnz * (sizeof(int32_t) + sizeof(double));
}

extern "C" const ng_spmv_ops ng_spmv_csr_rows_cuda = {"csr-rows", 1, rows_create, rows_apply, rows_update,
                                                      rows_bytes, rows_destroy};
