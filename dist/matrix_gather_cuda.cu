/* dist/matrix_gather_cuda.cu: matrix_gather.c's merged rows made on the
 * device, for a matrix on a GPU context: each rank writes its rows' entries
 * in global column order (off-rank columns below its own, its own, those
 * above) from the local block's device CSR and an uploaded copy of the
 * off-rank block (a boundary's worth), so the entries go from the device
 * straight into the gather plan, and rank 0 makes the gathered CSR on its
 * device (no host copy: the one-rank AMG setup reads the device CSR). A
 * block out of column order (not made by this library) is reported and the
 * host merge is used instead. */
#include "cuda_internal.h"
#include "dist.h"
#include "matrix_rows_cuda.cuh"

#define GTPB 256

struct ng_gather_dev {
  ng_context ctx;
  int32_t n, nh, nlow;       /* rows, halo columns, halo columns below the own columns */
  int64_t col_begin, nnzO;
  int64_t *Lrp;              /* the local block's row offsets (64-bit copy) */
  const int32_t *Lcol;       /* the matrix's own device CSR, borrowed (an update refreshes its values) */
  const double *Lval;
  int64_t *Orp, *hg;         /* the off-rank block's offsets and the halo columns' global numbers */
  int32_t *Ocol;
  double *Oval;              /* uploaded again before each values pass */
  int *flag;
};

static unsigned grid(int64_t n)
{
  int64_t b = (n + GTPB - 1) / GTPB;
  return (unsigned)(b < 1 ? 1 : b > 65535 * 8 ? 65535 * 8 : b);
}

__global__ void k_widen_rp(int32_t n, const int32_t *rp, int64_t *out)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i <= n; i += (int64_t)gridDim.x * blockDim.x)
    out[i] = rp[i];
}

/* Row i's entries in global column order (matrix_rows_cuda.cuh), starting
 * at Lrp[i] + Orp[i]; what: 0 values into dval, 1 global columns into dval
 * (as doubles: exact below 2^53), 2 global columns into icol and values
 * into ival, 3 nothing (the order check alone). *unsorted = 1 when a
 * block's row is not ascending. */
__global__ void k_gather_rows(int32_t n, int32_t nlow, int64_t col_begin, const int64_t *Lrp, const int32_t *Lcol,
                              const double *Lval, const int64_t *Orp, const int32_t *Ocol, const double *Oval,
                              const int64_t *hg, int what, double *dval, int32_t *icol, double *ival, int *unsorted)
{
  for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    bool sorted = ng_merged_row(i, nlow, Lrp, Lcol, Orp, Ocol, [=](int64_t p, int halo, int32_t c, int64_t k) {
      int64_t g = halo ? hg[c] : col_begin + c;
      if (what == 0) dval[p] = halo ? Oval[k] : Lval[k];
      else if (what == 1) dval[p] = (double)g;
      else if (what == 2) icol[p] = (int32_t)g, ival[p] = halo ? Oval[k] : Lval[k];
    });
    if (!sorted) *unsorted = 1;
  }
}

__global__ void k_cols_from_doubles(int64_t m, const double *src, int32_t *col)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < m; k += (int64_t)gridDim.x * blockDim.x)
    col[k] = (int32_t)src[k];
}

extern "C" void ng_gather_dev_destroy(ng_gather_dev *d)
{
  if (!d) return;
  ng_cuda_free(d->Lrp);
  ng_cuda_free(d->Orp);
  ng_cuda_free(d->hg);
  ng_cuda_free(d->Ocol);
  ng_cuda_free(d->Oval);
  ng_cuda_free(d->flag);
  ng_free(d);
}

static ng_status launch(ng_gather_dev *d, int what, double *dval, int32_t *icol, double *ival)
{
  cudaStream_t s = d->ctx->cuda->stream;
  k_gather_rows<<<grid(d->n), GTPB, 0, s>>>(d->n, d->nlow, d->col_begin, d->Lrp, d->Lcol, d->Lval, d->nh ? d->Orp : NULL,
                                            d->Ocol, d->Oval, d->hg, what, dval, icol, ival, d->flag);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

/* The off-rank block's current values onto the device. */
static ng_status upload_offrank_values(ng_gather_dev *d, ng_matrix A)
{
  if (d->nnzO)
    NG_CUDA_CHECK(cudaMemcpyAsync(d->Oval, A->offrank.val, (size_t)d->nnzO * sizeof(double), cudaMemcpyHostToDevice,
                                  d->ctx->cuda->stream));
  return NG_SUCCESS;
}

static ng_status make(ng_matrix A, ng_gather_dev *d, int *ok)
{
  cudaStream_t s = A->ctx->cuda->stream;
  const ng_csr *O = &A->offrank;
  int32_t *rp32 = NULL, *col = NULL;
  int64_t *rp64 = NULL;
  double *val = NULL;
  int f = 0;
  /* the local block's device CSR (csr, or the CSR kept beside dia_half) */
  if (ng_csr_cuda_arrays64(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp64, &col, &val) != NG_SUCCESS &&
      ng_csr_cuda_arrays(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp32, &col, &val) != NG_SUCCESS) {
    ng_error_clear();
    return NG_SUCCESS; /* *ok = 0: no device CSR, the host merges */
  }
  d->Lcol = col;
  d->Lval = val;
  NG_CHECK(NG_CUDA_MALLOC(d->Lrp, (size_t)d->n + 1));
  if (rp64) NG_CUDA_CHECK(cudaMemcpyAsync(d->Lrp, rp64, ((size_t)d->n + 1) * sizeof(int64_t), cudaMemcpyDeviceToDevice, s));
  else {
    k_widen_rp<<<grid((int64_t)d->n + 1), GTPB, 0, s>>>(d->n, rp32, d->Lrp);
    NG_CUDA_LAUNCH_CHECK();
  }
  NG_CHECK(NG_CUDA_MALLOC(d->flag, 1));
  NG_CUDA_CHECK(cudaMemsetAsync(d->flag, 0, sizeof(int), s));
  if (d->nh) {
    d->nnzO = O->nnz;
    NG_CHECK(NG_CUDA_MALLOC(d->Orp, (size_t)d->n + 1));
    NG_CHECK(NG_CUDA_MALLOC(d->Ocol, O->nnz ? O->nnz : 1));
    NG_CHECK(NG_CUDA_MALLOC(d->Oval, O->nnz ? O->nnz : 1));
    NG_CHECK(NG_CUDA_MALLOC(d->hg, d->nh));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->Orp, O->rowptr, ((size_t)d->n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->Ocol, O->col, (size_t)O->nnz * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->hg, A->halo_gcol, (size_t)d->nh * sizeof(int64_t), cudaMemcpyHostToDevice, s));
  }
  NG_CHECK(launch(d, 3, NULL, NULL, NULL));
  NG_CUDA_CHECK(cudaMemcpyAsync(&f, d->flag, sizeof(int), cudaMemcpyDeviceToHost, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  *ok = !f;
  return NG_SUCCESS;
}

extern "C" ng_status ng_gather_dev_create(ng_matrix A, ng_gather_dev **out, int *ok)
{
  ng_gather_dev *d = NULL;
  *out = NULL;
  *ok = 0;
  NG_CHECK(NG_CALLOC(d, 1));
  d->ctx = A->ctx;
  d->n = A->n_local;
  d->nh = A->n_halo;
  d->col_begin = A->col_begin;
  /* the halo columns ascend (made so by the halo plan), checked here:
   * nlow splits them around the own columns */
  int asc = 1;
  for (int32_t h = 1; h < d->nh; h++) asc &= A->halo_gcol[h] > A->halo_gcol[h - 1];
  while (d->nlow < d->nh && A->halo_gcol[d->nlow] < A->col_begin) d->nlow++;
  ng_status st = asc ? make(A, d, ok) : NG_SUCCESS;
  if (st || !*ok) {
    ng_gather_dev_destroy(d);
    *ok = 0;
    return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
  }
  *out = d;
  return NG_SUCCESS;
}

extern "C" ng_status ng_gather_dev_fill(ng_gather_dev *d, ng_matrix A, int cols, double *dst)
{
  if (!cols) NG_CHECK(upload_offrank_values(d, A));
  NG_CHECK(launch(d, cols ? 1 : 0, dst, NULL, NULL));
  return NG_SUCCESS;
}

extern "C" ng_status ng_gather_dev_fill_csr(ng_gather_dev *d, ng_matrix A, int32_t *col, double *val)
{
  NG_CHECK(upload_offrank_values(d, A));
  NG_CHECK(launch(d, 2, NULL, col, val));
  return NG_SUCCESS;
}

extern "C" ng_status ng_gather_dev_cols(ng_context ctx, int64_t m, const double *src, int32_t *col)
{
  if (m <= 0) return NG_SUCCESS;
  k_cols_from_doubles<<<grid(m), GTPB, 0, ctx->cuda->stream>>>(m, src, col);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

extern "C" ng_status ng_gather_dev_alloc_csr(ng_context ctx, const int64_t *rowptr, int32_t n, int64_t nnz,
                                             int32_t **rp, int32_t **col, double **val)
{
  int32_t *h = NULL;
  *rp = *col = NULL;
  *val = NULL;
  ng_status st = NG_MALLOC(h, (size_t)n + 1);
  for (int32_t i = 0; !st && i <= n; i++) h[i] = (int32_t)rowptr[i]; /* nnz < 2^31: checked by the caller */
  if (!st) st = NG_CUDA_MALLOC(*rp, (size_t)n + 1);
  if (!st) st = NG_CUDA_MALLOC(*col, nnz ? nnz : 1);
  if (!st) st = NG_CUDA_MALLOC(*val, nnz ? nnz : 1);
  if (!st && cudaMemcpy(*rp, h, ((size_t)n + 1) * sizeof(int32_t), cudaMemcpyHostToDevice) != cudaSuccess)
    st = NG_ERROR(NG_ERR_CUDA, "gathering a matrix onto rank 0: uploading its %d row offsets failed", (int)n + 1);
  ng_free(h);
  if (st) {
    ng_cuda_free(*rp);
    ng_cuda_free(*col);
    ng_cuda_free(*val);
    *rp = *col = NULL;
    *val = NULL;
  }
  return st;
}

extern "C" void ng_gather_dev_free_csr(int32_t *rp, int32_t *col, double *val)
{
  ng_cuda_free(rp);
  ng_cuda_free(col);
  ng_cuda_free(val);
}
