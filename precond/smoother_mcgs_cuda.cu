/* precond/smoother_mcgs_cuda.cu: the MCGS / modified MCGS kernels of
 * smoother_mcgs.c on the GPU, and their setup on the device.
 *
 * Sweeps: one launch per color, a thread per row of the color's ELL block
 * (column-major, padded to 32 rows, so a warp reads 32 consecutive values
 * and column indices of one block column), x and t read through the block's
 * row list. A color with couplings inside it (mmcgs) writes its new values
 * to a buffer, and a second launch copies them into x, so its rows read the
 * values from before the color's update: no race, the same iterates at every
 * run. A small level (at most SMALL_ENTRIES block entries) runs all its
 * sweeps in one launch of one block instead, __syncthreads() between colors:
 * the coarse levels' many colors would otherwise be a launch each.
 *
 * Setup (build): from the level's device CSR table, nothing of the matrix
 * goes to the host. A check kernel (rows sorted, square, symmetric pattern,
 * diagonal present; for mmcgs the strong-coupling mask, either direction),
 * the coloring (coloring_cuda.cu), rows grouped by color with a stable radix
 * sort of (color, row) (within a color by increasing row, as the host
 * does), per-color widths and intra flags by atomics, then one kernel fills
 * every color's block and 1 / a_ii; an update reruns that kernel on the
 * values only. The layout equals build_layout's (smoother_mcgs.c) entry for
 * entry, so GPU and host iterates agree. Levels without a 32-bit device
 * CSR (another -amg_format, 64-bit offsets past 2^31 entries) or with an
 * unsymmetric pattern, and -amg_smoother_setup host, take the host layout: values from the host CSR through the layout's source
 * indices and one upload (smoother_mcgs.c makes a level's host copy current
 * first). */
#include "cuda_internal.h"
#include "smoother.h"
#include <cub/cub.cuh>
#include <math.h>

#define TPB 256
#define SMALL_TPB 1024
#define SMALL_ENTRIES 300000

extern "C" ng_status ng_csr_cuda_arrays(const ng_spmv_ops *ops, void *data, int32_t **rowptr, int32_t **col,
                                        double **val);

typedef struct {
  ng_context ctx;
  int32_t *rows, *col; /* device */
  double *val, *dinv, *tmp;
  double *hval, *hdinv; /* host staging (host-built layout) */
  /* per color, device copies: start (ncolors + 1), pad, width, intra, off (ncolors + 1) */
  int32_t *dstart, *dpad, *dwidth, *dintra;
  int64_t *doff;
  /* device-built layout: the level's device CSR table and each row-list slot's color */
  const ng_spmv_ops *const *ops;
  void *const *data;
  int32_t *scolor, *color; /* each row-list slot's color, each row's color */
} mcgs_cuda;

__global__ void k_mcgs_color(int32_t m, int32_t pad, int32_t w, const int32_t *__restrict__ rows,
                             const int32_t *__restrict__ col, const double *__restrict__ val,
                             const double *__restrict__ dinv, double omega, const double *t, double *x, double *out)
{
  int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m) return;
  int32_t i = rows[k];
  double s = t[i];
  for (int32_t j = 0; j < w; j++) s -= val[(int64_t)j * pad + k] * x[col[(int64_t)j * pad + k]];
  double xn = omega == 1.0 ? s * dinv[k] : x[i] + omega * (s * dinv[k] - x[i]);
  if (out) out[k] = xn;
  else x[i] = xn;
}

__global__ void k_mcgs_write(int32_t m, const int32_t *rows, const double *in, double *x)
{
  int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < m) x[rows[k]] = in[k];
}

/* A small level's sweeps in one block: the same arithmetic as k_mcgs_color,
 * colors in order, the block's barrier between them (it orders the global
 * writes of one color before the next color's reads within the block). */
__global__ void k_mcgs_small(int nc, int sweeps, int backward, const int32_t *start, const int32_t *pad,
                             const int32_t *width, const int32_t *intra, const int64_t *off,
                             const int32_t *__restrict__ rows, const int32_t *__restrict__ col,
                             const double *__restrict__ val, const double *__restrict__ dinv, double omega,
                             const double *t, double *x, double *tmp)
{
  for (int s = 0; s < sweeps; s++)
    for (int q = 0; q < nc; q++) {
      int c = backward ? nc - 1 - q : q;
      int32_t s0 = start[c], m = start[c + 1] - s0, p = pad[c], w = width[c];
      const int32_t *cc = col + off[c], *rr = rows + s0;
      const double *vv = val + off[c], *dd = dinv + s0;
      bool in = intra[c] != 0;
      for (int32_t k = threadIdx.x; k < m; k += blockDim.x) {
        int32_t i = rr[k];
        double sum = t[i];
        for (int32_t j = 0; j < w; j++) sum -= vv[(int64_t)j * p + k] * x[cc[(int64_t)j * p + k]];
        double xn = omega == 1.0 ? sum * dd[k] : x[i] + omega * (sum * dd[k] - x[i]);
        if (in) tmp[k] = xn;
        else x[i] = xn;
      }
      __syncthreads();
      if (in) {
        for (int32_t k = threadIdx.x; k < m; k += blockDim.x) x[rr[k]] = tmp[k];
        __syncthreads();
      }
    }
}

/* ---- device setup ---------------------------------------------------------
 * flag bits: 1 the pattern is not square-sorted-symmetric, 2 a row has no
 * diagonal (both: the host builds, and reports the missing diagonal). */
__device__ static int64_t find_col(const int32_t *rp, const int32_t *col, int32_t row, int32_t j)
{
  int32_t lo = rp[row], hi = rp[row + 1];
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (col[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo < rp[row + 1] && col[lo] == j ? lo : -1;
}

/* keep[k] (theta > 0): |a_ij| > theta |a_ii| or |a_ji| > theta |a_jj|, as
 * ng_coloring_graph's strong graph. A warp per row, a lane per entry (the
 * row's entries read coalesced, each lane's search in row j independent). */
__global__ void k_check(int32_t n, const int32_t *rp, const int32_t *col, const double *val, double theta,
                        unsigned char *keep, int *flag)
{
  int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int32_t i = (int32_t)(g / 32), lane = (int32_t)(g % 32);
  if (i >= n) return;
  int64_t di = find_col(rp, col, i, i);
  int bad = di < 0 && lane == 0 ? 2 : 0;
  double aii = di >= 0 ? fabs(val[di]) : 0.0;
  for (int32_t k = rp[i] + lane; k < rp[i + 1] && !bad; k += 32) {
    int32_t j = col[k];
    if (j < 0 || j >= n || (k > rp[i] && col[k - 1] >= j)) {
      bad |= 1;
      break;
    }
    if (j == i) {
      if (keep) keep[k] = 0;
      continue;
    }
    int64_t kj = find_col(rp, col, j, i);
    if (kj < 0) {
      bad |= 1;
      break;
    }
    if (keep) {
      int64_t dj = find_col(rp, col, j, j);
      double ajj = dj >= 0 ? fabs(val[dj]) : 0.0;
      keep[k] = fabs(val[k]) > theta * aii || fabs(val[kj]) > theta * ajj;
    }
  }
  if (bad) atomicOr(flag, bad);
}

__global__ void k_iota(int32_t n, int32_t *v)
{
  int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = i;
}

/* start[c] = first slot of color c in the sorted order (colors of first-fit are all used) */
__global__ void k_bounds(int32_t n, const int32_t *scolor, int32_t *start)
{
  int32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n && (s == 0 || scolor[s] != scolor[s - 1])) start[scolor[s]] = s;
}

/* width[c] = longest off-diagonal row of color c; intra[c] = 1 when color c's rows couple */
__global__ void k_row_stats(int32_t n, const int32_t *rp, const int32_t *col, const int32_t *color, int32_t *width,
                            int32_t *intra)
{
  int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int32_t len = 0, c = color[i];
  bool in = false;
  for (int32_t k = rp[i]; k < rp[i + 1]; k++)
    if (col[k] != i) {
      len++;
      in |= color[col[k]] == c;
    }
  atomicMax(&width[c], len);
  if (in) intra[c] = 1;
}

/* Slot s of the row list: its block row (columns when ell_col != NULL, values,
 * padding: the row itself, value 0) and 1 / a_ii, as build_layout and
 * ng_mcgs_gather_values do on the host. */
__global__ void k_fill(int32_t n, const int32_t *rp, const int32_t *col, const double *val, const int32_t *rows,
                       const int32_t *scolor, const int32_t *start, const int32_t *pad, const int64_t *off,
                       const int32_t *width, int32_t *ell_col, double *ell_val, double *dinv)
{
  int32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  int32_t c = scolor[s], i = rows[s], p = pad[c], w = width[c], j = 0;
  int64_t base = off[c] + (s - start[c]);
  double d = 0;
  bool have = false;
  for (int32_t q = rp[i]; q < rp[i + 1]; q++) {
    if (col[q] == i) {
      if (!have) d = val[q];
      have = true;
      continue;
    }
    if (ell_col) ell_col[base + (int64_t)j * p] = col[q];
    ell_val[base + (int64_t)j * p] = val[q];
    j++;
  }
  for (; j < w; j++) {
    if (ell_col) ell_col[base + (int64_t)j * p] = i;
    ell_val[base + (int64_t)j * p] = 0.0;
  }
  dinv[s] = 1.0 / d;
}

static void cuda_destroy(void *dev)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  if (!d) return;
  cudaFree(d->rows);
  cudaFree(d->col);
  cudaFree(d->val);
  cudaFree(d->dinv);
  cudaFree(d->tmp);
  cudaFree(d->dstart);
  cudaFree(d->dpad);
  cudaFree(d->dwidth);
  cudaFree(d->dintra);
  cudaFree(d->doff);
  cudaFree(d->scolor);
  cudaFree(d->color);
  ng_free(d->hval);
  ng_free(d->hdinv);
  ng_free(d);
}

/* The per-color arrays of lay to the device (both setups). */
static ng_status upload_colors(mcgs_cuda *d, const ng_mcgs_layout *y)
{
  int nc = y->ncolors;
  cudaStream_t s = d->ctx->cuda->stream;
  if (!d->dstart) NG_CHECK(NG_CUDA_MALLOC(d->dstart, (size_t)nc + 1));
  NG_CHECK(NG_CUDA_MALLOC(d->dpad, nc ? nc : 1));
  if (!d->dwidth) NG_CHECK(NG_CUDA_MALLOC(d->dwidth, nc ? nc : 1));
  if (!d->dintra) NG_CHECK(NG_CUDA_MALLOC(d->dintra, nc ? nc : 1));
  NG_CHECK(NG_CUDA_MALLOC(d->doff, (size_t)nc + 1));
  NG_CUDA_CHECK(cudaMemcpyAsync(d->dstart, y->start, ((size_t)nc + 1) * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  NG_CUDA_CHECK(cudaMemcpyAsync(d->doff, y->off, ((size_t)nc + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, s));
  if (nc) {
    NG_CUDA_CHECK(cudaMemcpyAsync(d->dpad, y->pad, (size_t)nc * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->dwidth, y->width, (size_t)nc * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->dintra, y->intra, (size_t)nc * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  }
  return NG_SUCCESS;
}

static ng_status cuda_create(ng_context ctx, const ng_mcgs_layout *y, void **dev)
{
  mcgs_cuda *d;
  int64_t total = y->off[y->ncolors];
  NG_CHECK(NG_CALLOC(d, 1));
  *dev = d;
  d->ctx = ctx;
  NG_CHECK(NG_CUDA_MALLOC(d->rows, y->n ? y->n : 1));
  NG_CHECK(NG_CUDA_MALLOC(d->col, total ? total : 1));
  NG_CHECK(NG_CUDA_MALLOC(d->val, total ? total : 1));
  NG_CHECK(NG_CUDA_MALLOC(d->dinv, y->n ? y->n : 1));
  NG_CHECK(NG_CUDA_MALLOC(d->tmp, y->max_rows ? y->max_rows : 1));
  NG_CHECK(NG_MALLOC(d->hval, total ? total : 1));
  NG_CHECK(NG_MALLOC(d->hdinv, y->n ? y->n : 1));
  cudaStream_t s = ctx->cuda->stream;
  if (y->n) NG_CUDA_CHECK(cudaMemcpyAsync(d->rows, y->rows, (size_t)y->n * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  if (total) NG_CUDA_CHECK(cudaMemcpyAsync(d->col, y->ell_col, (size_t)total * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  NG_CHECK(upload_colors(d, y));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

static unsigned nblocks(int64_t n) { return n > 0 ? (unsigned)((n + TPB - 1) / TPB) : 1u; }

/* The device-built layout's values and 1 / a_ii from its device CSR table (ell_col too on the first call). */
static ng_status device_fill(mcgs_cuda *d, const ng_mcgs_layout *y, int columns)
{
  int32_t *rp, *col;
  double *val;
  if (ng_csr_cuda_arrays(*d->ops, *d->data, &rp, &col, &val) != NG_SUCCESS)
    return NG_ERROR(NG_ERR_ARGUMENT, "AMG Gauss-Seidel update: the matrix is no longer stored as a device CSR (its "
                                     "format changed after the setup): set the format back or set the preconditioner up again");
  if (y->n == 0) return NG_SUCCESS;
  k_fill<<<nblocks(y->n), TPB, 0, d->ctx->cuda->stream>>>(y->n, rp, col, val, d->rows, d->scolor, d->dstart, d->dpad,
                                                          d->doff, d->dwidth, columns ? d->col : NULL, d->val, d->dinv);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

static ng_status cuda_values(void *dev, const ng_mcgs_layout *y, ng_amg_level *L, const ng_csr *A)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  cudaStream_t s = d->ctx->cuda->stream;
  int64_t total = y->off[y->ncolors];
  if (d->ops) { /* device-built: the table holds the new values already */
    NG_CHECK(device_fill(d, y, 0));
    return NG_SUCCESS;
  }
  ng_mcgs_gather_values(y, A, d->hval, d->hdinv);
  if (total) NG_CUDA_CHECK(cudaMemcpyAsync(d->val, d->hval, (size_t)total * sizeof(double), cudaMemcpyHostToDevice, s));
  if (y->n) NG_CUDA_CHECK(cudaMemcpyAsync(d->dinv, d->hdinv, (size_t)y->n * sizeof(double), cudaMemcpyHostToDevice, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s)); /* the staging buffers are reused by the next update */
  return NG_SUCCESS;
}

static ng_status cuda_build(ng_context ctx, const ng_spmv_ops *const *ops, void *const *data, int32_t n, double theta,
                            int order, ng_mcgs_layout *y, void **dev)
{
  int32_t *rp, *col, *dcolor, *iota = NULL;
  double *val;
  unsigned char *keep = NULL;
  void *tmp = NULL;
  size_t tb = 0;
  int flag = 0, nc = 0;
  mcgs_cuda *d;
  ng_status st = NG_SUCCESS;
  if (ng_csr_cuda_arrays(*ops, *data, &rp, &col, &val) != NG_SUCCESS) return NG_ERR_UNSUPPORTED; /* quiet */
  cudaStream_t s = ctx->cuda->stream;
  int32_t nnz = 0;
  NG_CUDA_CHECK(cudaMemcpyAsync(&nnz, rp + n, sizeof(int32_t), cudaMemcpyDeviceToHost, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  NG_CHECK(NG_CALLOC(d, 1));
  *dev = d;
  d->ctx = ctx;
#define E_CHECK(call)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      st = NG_ERROR(NG_ERR_CUDA, "AMG Gauss-Seidel setup: %s failed: %s", #call, cudaGetErrorString(e_)); \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)
  /* the pattern's checks and (theta > 0) the strong-coupling mask */
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->dstart, 1), out); /* first the flag, then start */
  if (theta > 0) NG_CHECK_GOTO(st, NG_CUDA_MALLOC(keep, nnz ? nnz : 1), out);
  E_CHECK(cudaMemsetAsync(d->dstart, 0, sizeof(int32_t), s));
  if (n) k_check<<<nblocks((int64_t)n * 32), TPB, 0, s>>>(n, rp, col, val, theta, keep, d->dstart);
  E_CHECK(cudaGetLastError());
  E_CHECK(cudaMemcpyAsync(&flag, d->dstart, sizeof(int), cudaMemcpyDeviceToHost, s));
  E_CHECK(cudaStreamSynchronize(s));
  cudaFree(d->dstart);
  d->dstart = NULL;
  if (flag) {
    st = NG_ERR_UNSUPPORTED; /* quiet: the host builds (and reports a missing diagonal) */
    goto out;
  }
  /* colors, then the rows grouped by color (stable: by row within a color) */
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->color, n ? n : 1), out);
  dcolor = d->color;
  NG_CHECK_GOTO(st, ng_coloring_cuda_csr(ctx, n, rp, col, keep, order, dcolor, &nc), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->rows, n ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->scolor, n ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(iota, n ? n : 1), out);
  {
    int bits = 1;
    while ((1 << bits) < nc) bits++;
    if (n) k_iota<<<nblocks(n), TPB, 0, s>>>(n, iota);
    E_CHECK(cudaGetLastError());
    E_CHECK(cub::DeviceRadixSort::SortPairs(NULL, tb, dcolor, d->scolor, iota, d->rows, n, 0, bits, s));
    NG_CHECK_GOTO(st, ng_cuda_malloc(&tmp, tb ? tb : 1, "MCGS sort buffer"), out);
    E_CHECK(cub::DeviceRadixSort::SortPairs(tmp, tb, dcolor, d->scolor, iota, d->rows, n, 0, bits, s));
  }
  /* per color: start, width, intra (on the host: pad, off, the largest color) */
  y->n = n;
  y->ncolors = nc;
  NG_CHECK_GOTO(st, NG_CALLOC(y->start, (size_t)nc + 1), out);
  NG_CHECK_GOTO(st, NG_CALLOC(y->width, nc ? nc : 1), out);
  NG_CHECK_GOTO(st, NG_CALLOC(y->pad, nc ? nc : 1), out);
  NG_CHECK_GOTO(st, NG_CALLOC(y->intra, nc ? nc : 1), out);
  NG_CHECK_GOTO(st, NG_CALLOC(y->off, (size_t)nc + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->dstart, (size_t)nc + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->dwidth, nc ? nc : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->dintra, nc ? nc : 1), out);
  E_CHECK(cudaMemsetAsync(d->dstart, 0xff, ((size_t)nc + 1) * sizeof(int32_t), s)); /* -1: a color without rows */
  E_CHECK(cudaMemsetAsync(d->dwidth, 0, (nc ? nc : 1) * sizeof(int32_t), s));
  E_CHECK(cudaMemsetAsync(d->dintra, 0, (nc ? nc : 1) * sizeof(int32_t), s));
  if (n) {
    k_bounds<<<nblocks(n), TPB, 0, s>>>(n, d->scolor, d->dstart);
    E_CHECK(cudaGetLastError());
    k_row_stats<<<nblocks(n), TPB, 0, s>>>(n, rp, col, dcolor, d->dwidth, d->dintra);
    E_CHECK(cudaGetLastError());
  }
  E_CHECK(cudaMemcpyAsync(y->start, d->dstart, (size_t)nc * sizeof(int32_t), cudaMemcpyDeviceToHost, s));
  if (nc) E_CHECK(cudaMemcpyAsync(y->width, d->dwidth, (size_t)nc * sizeof(int32_t), cudaMemcpyDeviceToHost, s));
  if (nc) E_CHECK(cudaMemcpyAsync(y->intra, d->dintra, (size_t)nc * sizeof(int32_t), cudaMemcpyDeviceToHost, s));
  E_CHECK(cudaStreamSynchronize(s));
  y->start[nc] = n;
  for (int c = nc - 1; c >= 0; c--)
    if (y->start[c] < 0) y->start[c] = y->start[c + 1];
  for (int c = 0; c < nc; c++) {
    int32_t m = y->start[c + 1] - y->start[c];
    y->pad[c] = (m + 31) / 32 * 32;
    y->off[c + 1] = y->off[c] + (int64_t)y->width[c] * y->pad[c];
    if (m > y->max_rows) y->max_rows = m;
  }
  NG_CHECK_GOTO(st, upload_colors(d, y), out);
  /* the blocks: past a color's rows (never read) zero, every row by k_fill */
  {
    int64_t total = y->off[nc];
    NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->col, total ? total : 1), out);
    NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->val, total ? total : 1), out);
    NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->dinv, n ? n : 1), out);
    NG_CHECK_GOTO(st, NG_CUDA_MALLOC(d->tmp, y->max_rows ? y->max_rows : 1), out);
    if (total) E_CHECK(cudaMemsetAsync(d->col, 0, (size_t)total * sizeof(int32_t), s));
    if (total) E_CHECK(cudaMemsetAsync(d->val, 0, (size_t)total * sizeof(double), s));
  }
  d->ops = ops;
  d->data = data;
  NG_CHECK_GOTO(st, device_fill(d, y, 1), out);
  E_CHECK(cudaStreamSynchronize(s)); /* the buffers below are freed */
#undef E_CHECK
out:
  cudaFree(iota);
  cudaFree(keep);
  cudaFree(tmp);
  return st;
}

static ng_status cuda_color(void *dev, const ng_mcgs_layout *y, int c, double omega, const double *t, double *x)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  int32_t s0 = y->start[c], m = y->start[c + 1] - s0;
  if (m == 0) return NG_SUCCESS;
  cudaStream_t s = d->ctx->cuda->stream;
  unsigned nb = (unsigned)((m + TPB - 1) / TPB);
  double *out = y->intra[c] ? d->tmp : NULL;
  k_mcgs_color<<<nb, TPB, 0, s>>>(m, y->pad[c], y->width[c], d->rows + s0, d->col + y->off[c], d->val + y->off[c],
                                  d->dinv + s0, omega, t, x, out);
  NG_CUDA_LAUNCH_CHECK();
  if (out) {
    k_mcgs_write<<<nb, TPB, 0, s>>>(m, d->rows + s0, out, x);
    NG_CUDA_LAUNCH_CHECK();
  }
  return NG_SUCCESS;
}

static ng_status cuda_sweeps(void *dev, const ng_mcgs_layout *y, int sweeps, int backward, double omega,
                             const double *t, double *x)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  if (y->off[y->ncolors] > SMALL_ENTRIES) {
    NG_CHECK(ng_mcgs_sweeps_by_color(dev, y, sweeps, backward, omega, t, x, cuda_color));
    return NG_SUCCESS;
  }
  if (y->n == 0 || sweeps <= 0) return NG_SUCCESS;
  k_mcgs_small<<<1, SMALL_TPB, 0, d->ctx->cuda->stream>>>(y->ncolors, sweeps, backward, d->dstart, d->dpad, d->dwidth,
                                                          d->dintra, d->doff, d->rows, d->col, d->val, d->dinv, omega,
                                                          t, x, d->tmp);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

static ng_status cuda_colors(void *dev, int32_t n, int32_t *color)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  cudaStream_t s = d->ctx->cuda->stream;
  if (!d->color) return NG_ERROR(NG_ERR_INTERNAL, "AMG Gauss-Seidel: no device colors (a host-built layout)");
  if (n) NG_CUDA_CHECK(cudaMemcpyAsync(color, d->color, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

extern "C" const ng_mcgs_kernels ng_mcgs_cuda = {"cuda",       cuda_create,  cuda_values, cuda_color,
                                                 cuda_sweeps,  cuda_destroy, cuda_build,  cuda_colors};
