/* smoother/smoother_mcgs_cuda.cu: the MCGS / modified MCGS kernels of
 * smoother_mcgs.c on the GPU, and their setup on the device.
 *
 * Sweeps, by a level's size (plan_sweeps):
 * - up to -amg_mcgs_coop_entries block entries (4000000): all of them in one
 *   cooperative launch,
 *   a grid-wide barrier between colors and 1 to 32 lanes a row (the coarse
 *   levels' colors would otherwise cost a mostly idle launch each);
 * - bigger: one launch per color, a thread per row of the color's ELL block
 *   (column-major, padded to 32 rows, so a warp reads 32 consecutive values
 *   and column indices of one block column), x and t read through the
 *   block's row list; or, when every color's rows couple at the offsets of
 *   the color's widest row (structured grids), color-DIA blocks without
 *   column indices, 2 lanes a row; FP32 values with -amg_mcgs_values single.
 * A color with couplings inside it (mmcgs) writes its new values to a
 * buffer, and then (a second launch, or after a barrier) into x, so its rows
 * read the values from before the color's update: no race, the same
 * iterates at every run.
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
 * first). On one GPU the finest level's check and natural-order colors may
 * have started before the hierarchy (precolor, on a stream of their own):
 * the build then waits for them instead of making them. All device arrays
 * come from the context's pool (stream-ordered: no device-wide waits). */
#include "cuda_internal.h"
#include "smoother.h"
#include <cub/cub.cuh>
#include <math.h>

#define TPB 256
#define MAX_DIA_SLOTS 64 /* the most slots of a color-DIA block */


/* coloring_cuda.cu: the natural-order greedy in two halves */
extern "C" ng_status ng_coloring_cuda_natural_begin(cudaStream_t s, int32_t n, const int32_t *rp, const int32_t *col,
                                                    int32_t *color, int *cnt);
extern "C" ng_status ng_coloring_cuda_natural_end(ng_context ctx, int32_t n, const int32_t *rp, const int32_t *col,
                                                  int32_t *color, int *cnt, int *ncolors, int *guessed);

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
  /* how the sweeps run: coop_blocks > 0: one cooperative launch of that many
   * blocks, lanes per row, bar its barrier (2 counters); else a launch per
   * color, with color-DIA blocks when dslot != NULL (MAX_DIA_SLOTS offsets
   * per color, col unused) */
  int coop_blocks, lanes;
  int64_t coop_entries; /* -amg_mcgs_coop_entries: the largest level (block entries) swept in one launch */
  unsigned *bar;
  int32_t *dslot;
  float *fval; /* != NULL: -amg_mcgs_values single on a launch-per-color level, the block values in FP32, val unused */
} mcgs_cuda;

/* The end of every row update of the sweeps: the (weighted) Gauss-Seidel
 * value from the row's residual part r = t_i - sum_j a_ij x_j, written to
 * x, or to out (slot k) when the color's rows couple (written after the
 * color). xi: x_i as the caller read it. */
__device__ static __forceinline__ void row_update(double r, double dinv, double omega, double xi, int32_t i, int64_t k,
                                                  double *x, double *out)
{
  double xn = omega == 1.0 ? r * dinv : xi + omega * (r * dinv - xi);
  if (out) out[k] = xn;
  else x[i] = xn;
}

template <typename T> /* T: the block values' type (double; float with -amg_mcgs_values single) */
__global__ void k_mcgs_color(int32_t m, int32_t pad, int32_t w, const int32_t *__restrict__ rows,
                             const int32_t *__restrict__ col, const T *__restrict__ val,
                             const double *__restrict__ dinv, double omega, const double *t, double *x, double *out)
{
  int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m) return;
  int32_t i = rows[k];
  double s = t[i];
  for (int32_t j = 0; j < w; j++) s -= (double)val[(int64_t)j * pad + k] * __ldg(x + col[(int64_t)j * pad + k]);
  row_update(s, dinv[k], omega, omega == 1.0 ? 0.0 : x[i], i, k, x, out);
}

__global__ void k_mcgs_write(int32_t m, const int32_t *rows, const double *in, double *x)
{
  int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < m) x[rows[k]] = in[k];
}

/* Color-DIA blocks (a big level whose rows of one color all couple at the
 * offsets of the color's widest row, as on structured grids): slot j of
 * block row k couples row i = rows[k] with row i + so[j] (value 0 where
 * that neighbour is missing), so the block holds values only, no column
 * indices: 8 bytes an entry instead of 12 (4 with FP32 values). L lanes per
 * row (lane g sums slots g, g + L, ...; shuffles add them up): more loads in
 * flight per multiprocessor than one thread per row of one color gives. */
template <typename T, int L>
__global__ void k_mcgs_color_dia(int32_t n, int32_t m, int32_t pad, int32_t w, const int32_t *__restrict__ rows,
                                 const int32_t *__restrict__ slot, const T *__restrict__ val,
                                 const double *__restrict__ dinv, double omega, const double *__restrict__ t,
                                 double *x, double *out)
{
  __shared__ int32_t so[MAX_DIA_SLOTS];
  if (threadIdx.x < w) so[threadIdx.x] = slot[threadIdx.x];
  __syncthreads();
  int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int32_t k = (int32_t)(g / L), lane = (int32_t)(g % L);
  bool act = k < m; /* the whole warp stays for the shuffles */
  int32_t i = act ? rows[k] : 0;
  double sum = 0.0;
  if (act)
#pragma unroll 4
    for (int32_t j = lane; j < w; j += L) {
      int32_t c = i + so[j];
      double v = (double)val[(int64_t)j * pad + k];
      if ((uint32_t)c < (uint32_t)n) sum += v * __ldg(x + c); /* other colors' rows: not written by this launch */
    }
#pragma unroll
  for (int o = L / 2; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o, L);
  if (!act || lane) return;
  row_update(t[i] - sum, dinv[k], omega, omega == 1.0 ? 0.0 : x[i], i, k, x, out);
}

/* Lanes per row of the color-DIA sweep: 2 (of 1, 2 and 4 measured on the
 * H100 at 100^3: 2 was fastest, doc/performance.md). */
#define DIA_LANES 2

template <typename T>
static void launch_dia(int32_t n, int32_t m, int32_t pad, int32_t w, const int32_t *rows, const int32_t *so,
                       const T *val, const double *dinv, double omega, const double *t, double *x, double *out,
                       cudaStream_t s)
{
  unsigned nb = (unsigned)(((int64_t)m * DIA_LANES + TPB - 1) / TPB);
  k_mcgs_color_dia<T, DIA_LANES><<<nb, TPB, 0, s>>>(n, m, pad, w, rows, so, val, dinv, omega, t, x, out);
}

/* r_i = t_i - a_ii x_i - sum_j a_ij x_j for every row at once from the
 * blocks (the colors do not wait for each other here): slot s of the row
 * list is block row s - start[c] of color c = scolor[s]; its entries are the
 * color-DIA slots (DIA; the color's offsets in idx + c MAX_DIA_SLOTS) or
 * the ELL columns (idx + off[c]); a_ii = 1 / dinv. L lanes a row, as the
 * color-DIA sweep. */
template <typename T, bool DIA, int L>
__global__ void k_mcgs_resid(int32_t n, const int32_t *__restrict__ scolor, const int32_t *__restrict__ start,
                             const int32_t *__restrict__ pad, const int32_t *__restrict__ width,
                             const int64_t *__restrict__ off, const int32_t *__restrict__ rows,
                             const int32_t *__restrict__ idx, const T *__restrict__ val,
                             const double *__restrict__ dinv, const double *__restrict__ t,
                             const double *__restrict__ x, double *__restrict__ r)
{
  int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int32_t s = (int32_t)(g / L), lane = (int32_t)(g % L), i = 0;
  bool act = s < n; /* the whole warp stays for the shuffles */
  double sum = 0.0;
  if (act) {
    int32_t c = scolor[s], k = s - start[c], p = pad[c], w = width[c];
    const T *v = val + off[c];
    const int32_t *ix = DIA ? idx + (int64_t)c * MAX_DIA_SLOTS : idx + off[c];
    i = rows[s];
#pragma unroll 4
    for (int32_t j = lane; j < w; j += L) {
      int32_t cc = DIA ? i + __ldg(ix + j) : ix[(int64_t)j * p + k];
      double a = (double)v[(int64_t)j * p + k];
      if (!DIA || (uint32_t)cc < (uint32_t)n) sum += a * __ldg(x + cc);
    }
  }
#pragma unroll
  for (int o = L / 2; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o, L);
  if (act && lane == 0) r[i] = t[i] - x[i] / dinv[s] - sum;
}

/* A barrier over the whole grid of a cooperative launch (every block
 * resident): bar[0] counts the arrivals, the last one resets it and moves
 * the generation bar[1] on; the others wait for that. The fences make each
 * block's writes before the barrier visible to every block after it. gen:
 * the block's copy of the generation (shared). */
__device__ static void grid_barrier(unsigned *bar, volatile unsigned *gen)
{
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned g = *gen;
    __threadfence();
    if (atomicAdd(&bar[0], 1u) == gridDim.x - 1) {
      atomicExch(&bar[0], 0u);
      __threadfence();
      atomicAdd(&bar[1], 1u);
    } else {
      while (atomicAdd(&bar[1], 0u) == g) __nanosleep(20);
    }
    __threadfence();
    *gen = g + 1;
  }
  __syncthreads();
}

/* A level's whole sweeps in one cooperative launch, a grid barrier between
 * colors (and between an intra color's compute and its write): the coarse
 * levels' colors would otherwise cost a launch each (about 11 us a color
 * for 30,000 rows, mostly latency). L lanes per row: lane g sums entries
 * g, g + L, ... and the group adds them up by shuffles, so a row's loads
 * are in flight together; x is read through L2 (__ldcg), never a stale L1
 * line from before a barrier. The same arithmetic as k_mcgs_color up to the
 * order of the row's sum (a fixed order: the same result at every run). */
template <int L>
__global__ void k_mcgs_coop(int nc, int sweeps, int backward, const int32_t *start, const int32_t *pad,
                            const int32_t *width, const int32_t *intra, const int64_t *off,
                            const int32_t *__restrict__ rows, const int32_t *__restrict__ col,
                            const double *__restrict__ val, const double *__restrict__ dinv, double omega,
                            const double *__restrict__ t, double *x, double *tmp, unsigned *bar)
{
  __shared__ unsigned gen;
  if (threadIdx.x == 0) gen = *(volatile unsigned *)&bar[1];
  int32_t lane = threadIdx.x % L;
  int64_t g0 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / L, gs = (int64_t)gridDim.x * blockDim.x / L;
  int64_t t0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, ts = (int64_t)gridDim.x * blockDim.x;
  for (int s = 0; s < sweeps; s++)
    for (int q = 0; q < nc; q++) {
      int c = backward ? nc - 1 - q : q;
      int32_t s0 = start[c], m = start[c + 1] - s0, p = pad[c], w = width[c];
      const int32_t *cc = col + off[c], *rr = rows + s0;
      const double *vv = val + off[c], *dd = dinv + s0;
      bool in = intra[c] != 0;
      /* the whole warp runs each round (the shuffles need every lane): rows past m idle */
      int64_t mr = (m + gs - 1) / gs * gs;
      for (int64_t k = g0; k < mr; k += gs) {
        bool act = k < m;
        double sum = 0.0;
        int32_t i = act ? rr[k] : 0;
        if (act)
          for (int32_t j = lane; j < w; j += L) sum += vv[(int64_t)j * p + k] * __ldcg(x + cc[(int64_t)j * p + k]);
#pragma unroll
        for (int o = L / 2; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o, L);
        if (act && lane == 0) row_update(__ldg(t + i) - sum, dd[k], omega, __ldcg(x + i), i, k, x, in ? tmp : NULL);
      }
      grid_barrier(bar, &gen);
      if (in) {
        for (int64_t k = t0; k < m; k += ts) x[rr[k]] = tmp[k];
        grid_barrier(bar, &gen);
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
    /* (j, i): first where a symmetric stencil has it (the mirror of k's
     * place in row i: one read for full interior rows), else a search */
    int64_t mk = (int64_t)rp[j] + rp[i + 1] - 1 - k;
    int64_t kj = mk >= rp[j] && mk < rp[j + 1] && col[mk] == i ? mk : find_col(rp, col, j, i);
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

/* Per-color maxima (or minima) through the block's shared memory first: a
 * level's rows fall into a few colors, and a global atomic per row on those
 * few words serializes (0.4-0.8 ms for 10^6 rows on the H100). */
#define STAT_COLORS 64 /* colors reduced in shared memory; the rest straight to global */

/* width[c] = longest off-diagonal row of color c; intra[c] = 1 when color c's rows couple */
__global__ void k_row_stats(int32_t n, const int32_t *rp, const int32_t *col, const int32_t *color, int32_t *width,
                            int32_t *intra)
{
  __shared__ int32_t sw[STAT_COLORS];
  int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < STAT_COLORS) sw[threadIdx.x] = -1;
  __syncthreads();
  if (i < n) {
    int32_t len = 0, c = color[i];
    bool in = false;
    for (int32_t k = rp[i]; k < rp[i + 1]; k++)
      if (col[k] != i) {
        len++;
        in |= color[col[k]] == c;
      }
    if (c < STAT_COLORS) atomicMax(&sw[c], len);
    else atomicMax(&width[c], len);
    if (in) intra[c] = 1;
  }
  __syncthreads();
  if (threadIdx.x < STAT_COLORS && sw[threadIdx.x] >= 0) atomicMax(&width[threadIdx.x], sw[threadIdx.x]);
}

/* One row's block entries (columns when ell_col != NULL, values, padding:
 * the row itself, value 0) and 1 / a_ii, as build_layout and
 * ng_mcgs_gather_values do on the host, from its CSR entries rc/rv (len of
 * them: staged in shared memory by k_fill, or global for a long row). A
 * color-DIA level (so != NULL, MAX_DIA_SLOTS increasing offsets per color)
 * puts the entry at offset o in the slot holding o, and 0 in the slots its
 * row lacks. */
template <typename T>
__device__ static void fill_row(int32_t i, const int32_t *rc, const double *rv, int32_t len, int64_t base, int32_t p,
                                int32_t w, const int32_t *so, int32_t *ell_col, T *ell_val, double *dinv)
{
  double d = 0;
  bool have = false;
  int32_t j = 0;
  for (int32_t q = 0; q < len; q++) {
    int32_t cq = rc[q];
    if (cq == i) {
      if (!have) d = rv[q];
      have = true;
      continue;
    }
    if (so) /* the slots before this entry's offset: couplings the row lacks */
      while (j < w && so[j] < cq - i) ell_val[base + (int64_t)j++ * p] = (T)0;
    if (j >= w) break; /* (the setup's check makes this unreachable) */
    if (ell_col) ell_col[base + (int64_t)j * p] = cq;
    ell_val[base + (int64_t)j * p] = (T)rv[q];
    j++;
  }
  for (; j < w; j++) {
    if (ell_col) ell_col[base + (int64_t)j * p] = i;
    ell_val[base + (int64_t)j * p] = (T)0;
  }
  *dinv = 1.0 / d;
}

/* Slot s of the row list: its block row. A warp takes 32
 * consecutive slots: it first copies their CSR rows into shared memory, a
 * row at a time with a lane per entry (coalesced), then each lane writes its
 * own row's block entries (coalesced across the lanes per block column).
 * Each thread reading its own row straight from global memory took 1.8 ms
 * at 10^6 rows on the H100: the rows of one color lie apart, so a warp's
 * reads touched 32 rows' cache lines per entry. */
#define FILL_WARPS 2
#define FILL_CAP 32 /* entries staged per row; a longer row is read from global memory */
template <typename T>
__global__ void __launch_bounds__(32 * FILL_WARPS)
    k_fill(int32_t n, const int32_t *rp, const int32_t *col, const double *val, const int32_t *rows,
           const int32_t *scolor, const int32_t *start, const int32_t *pad, const int64_t *off, const int32_t *width,
           const int32_t *slot, int32_t *ell_col, T *ell_val, double *dinv)
{
  __shared__ double sv[FILL_WARPS][32][FILL_CAP];
  __shared__ int32_t sc[FILL_WARPS][32][FILL_CAP];
  int wp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int32_t s0 = (blockIdx.x * FILL_WARPS + wp) * 32, s = s0 + lane;
  int32_t i = s < n ? rows[s] : 0;
  int32_t r0 = s < n ? rp[i] : 0, len = s < n ? rp[i + 1] - r0 : 0;
  for (int r = 0; r < 32; r++) { /* stage row r of the warp */
    int32_t b = __shfl_sync(0xffffffffu, r0, r), m = __shfl_sync(0xffffffffu, len, r);
    if (m > FILL_CAP) m = FILL_CAP;
    if (lane < m) {
      sc[wp][r][lane] = col[b + lane];
      sv[wp][r][lane] = val[b + lane];
    }
  }
  __syncwarp();
  if (s >= n) return;
  int32_t c = scolor[s];
  const int32_t *so = slot ? slot + (int64_t)c * MAX_DIA_SLOTS : NULL;
  int64_t base = off[c] + (s - start[c]);
  if (len <= FILL_CAP) fill_row<T>(i, sc[wp][lane], sv[wp][lane], len, base, pad[c], width[c], so, ell_col, ell_val, dinv + s);
  else fill_row<T>(i, col + r0, val + r0, len, base, pad[c], width[c], so, ell_col, ell_val, dinv + s);
}

/* ---- color-DIA detection: each color's slot offsets are those of its first
 * widest row (rep); every other row of the color must couple at a subset of
 * them. rep[c]: the smallest row-list slot of color c with width[c] entries. */
__global__ void k_dia_rep(int32_t n, const int32_t *rp, const int32_t *rows, const int32_t *scolor,
                          const int32_t *width, int32_t *rep)
{
  __shared__ int32_t sr[STAT_COLORS];
  int32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < STAT_COLORS) sr[threadIdx.x] = INT32_MAX;
  __syncthreads();
  if (s < n) {
    int32_t i = rows[s], c = scolor[s];
    if (rp[i + 1] - rp[i] - 1 == width[c]) { /* every row has its diagonal (checked) */
      if (c < STAT_COLORS) atomicMin(&sr[c], s);
      else atomicMin(&rep[c], s);
    }
  }
  __syncthreads();
  if (threadIdx.x < STAT_COLORS && sr[threadIdx.x] != INT32_MAX) atomicMin(&rep[threadIdx.x], sr[threadIdx.x]);
}

/* block c, thread j: slot j's offset of color c (the rep row's j-th off-diagonal column minus the row) */
__global__ void k_dia_slots(const int32_t *rp, const int32_t *col, const int32_t *rows, const int32_t *width,
                            const int32_t *rep, int32_t *slot)
{
  int32_t c = blockIdx.x, j = threadIdx.x;
  if (j >= width[c]) return;
  int32_t i = rows[rep[c]], k = 0;
  for (int32_t q = rp[i]; q < rp[i + 1]; q++) {
    if (col[q] == i) continue;
    if (k++ == j) {
      slot[(int64_t)c * MAX_DIA_SLOTS + j] = col[q] - i;
      return;
    }
  }
}

/* *bad = 1 when a row couples at an offset its color's slots lack */
__global__ void k_dia_verify(int32_t n, const int32_t *rp, const int32_t *col, const int32_t *color,
                             const int32_t *width, const int32_t *slot, int *bad)
{
  int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int32_t c = color[i], w = width[c];
  const int32_t *so = slot + (int64_t)c * MAX_DIA_SLOTS;
  for (int32_t q = rp[i]; q < rp[i + 1]; q++) {
    int32_t o = col[q] - i, lo = 0, hi = w;
    if (o == 0) continue;
    while (lo < hi) {
      int32_t mid = (lo + hi) / 2;
      if (so[mid] < o) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= w || so[lo] != o) {
      atomicOr(bad, 1);
      return;
    }
  }
}

static void cuda_destroy(void *dev)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  if (!d) return;
  ng_cuda_tmp_free(d->ctx->cuda, d->rows);
  ng_cuda_tmp_free(d->ctx->cuda, d->col);
  ng_cuda_tmp_free(d->ctx->cuda, d->val);
  ng_cuda_tmp_free(d->ctx->cuda, d->dinv);
  ng_cuda_tmp_free(d->ctx->cuda, d->tmp);
  ng_cuda_tmp_free(d->ctx->cuda, d->dstart);
  ng_cuda_tmp_free(d->ctx->cuda, d->dpad);
  ng_cuda_tmp_free(d->ctx->cuda, d->dwidth);
  ng_cuda_tmp_free(d->ctx->cuda, d->dintra);
  ng_cuda_tmp_free(d->ctx->cuda, d->doff);
  ng_cuda_tmp_free(d->ctx->cuda, d->scolor);
  ng_cuda_tmp_free(d->ctx->cuda, d->color);
  ng_cuda_tmp_free(d->ctx->cuda, d->bar);
  ng_cuda_tmp_free(d->ctx->cuda, d->dslot);
  ng_cuda_tmp_free(d->ctx->cuda, d->fval);
  ng_free(d->hval);
  ng_free(d->hdinv);
  ng_free(d);
}

/* The per-color arrays of lay to the device (both setups). */
static ng_status upload_colors(mcgs_cuda *d, const ng_mcgs_layout *y)
{
  int nc = y->ncolors;
  cudaStream_t s = d->ctx->cuda->stream;
  if (!d->dstart) NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->dstart, (size_t)nc + 1));
  NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->dpad, nc ? nc : 1));
  if (!d->dwidth) NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->dwidth, nc ? nc : 1));
  if (!d->dintra) NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->dintra, nc ? nc : 1));
  NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->doff, (size_t)nc + 1));
  NG_CUDA_CHECK(cudaMemcpyAsync(d->dstart, y->start, ((size_t)nc + 1) * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  NG_CUDA_CHECK(cudaMemcpyAsync(d->doff, y->off, ((size_t)nc + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, s));
  if (nc) {
    NG_CUDA_CHECK(cudaMemcpyAsync(d->dpad, y->pad, (size_t)nc * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->dwidth, y->width, (size_t)nc * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->dintra, y->intra, (size_t)nc * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  }
  return NG_SUCCESS;
}

/* ---- how a level sweeps --------------------------------------------------- */

/* k_mcgs_coop with L = 1, 2, 4, 8, 16 or 32 lanes a row: one dispatch for
 * the occupancy query and the launch */
typedef decltype(&k_mcgs_coop<1>) coop_kernel_fn;
static coop_kernel_fn coop_kernel(int L)
{
  static const coop_kernel_fn k[] = {k_mcgs_coop<1>, k_mcgs_coop<2>,  k_mcgs_coop<4>,
                                     k_mcgs_coop<8>, k_mcgs_coop<16>, k_mcgs_coop<32>};
  int b = 0;
  while ((1 << b) < L && b < 5) b++;
  return k[b];
}

static int coop_occupancy_of(int L)
{
  int nb = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, coop_kernel(L), TPB, 0) != cudaSuccess) nb = 0;
  return nb;
}

/* Whether lay's level sweeps in one cooperative launch and how: lanes per
 * row L (a power of two up to the widest row, while the largest color's rows
 * times L fit 4 blocks per multiprocessor), blocks to cover the largest
 * color (at most what is resident at once). Devices without cooperative
 * launch, and big levels, take a launch per color. */
static ng_status plan_sweeps(mcgs_cuda *d, const ng_mcgs_layout *y)
{
  const struct cudaDeviceProp *pr = &d->ctx->cuda->prop;
  int64_t total = y->off[y->ncolors];
  int wmax = 0;
  d->coop_blocks = 0;
  if (y->n == 0 || total > d->coop_entries || !pr->cooperativeLaunch) return NG_SUCCESS;
  for (int c = 0; c < y->ncolors; c++) wmax = y->width[c] > wmax ? y->width[c] : wmax;
  int64_t cap = 4LL * pr->multiProcessorCount * TPB;
  int L = 1;
  while (L < 32 && 2 * L <= wmax && (int64_t)y->max_rows * 2 * L <= cap) L *= 2;
  int64_t need = ((int64_t)y->max_rows * L + TPB - 1) / TPB;
  int64_t resident = (int64_t)coop_occupancy_of(L) * pr->multiProcessorCount;
  if (resident <= 0) return NG_SUCCESS;
  if (need > resident) need = resident;
  if (need > 4LL * pr->multiProcessorCount) need = 4LL * pr->multiProcessorCount;
  if (!d->bar) {
    NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->bar, 2));
    NG_CUDA_CHECK(cudaMemsetAsync(d->bar, 0, 2 * sizeof(unsigned), d->ctx->cuda->stream));
  }
  d->lanes = L;
  d->coop_blocks = (int)(need > 0 ? need : 1);
  return NG_SUCCESS;
}

static cudaError_t sweep_coop(mcgs_cuda *d, const ng_mcgs_layout *y, int sweeps, int backward, double omega,
                              const double *t, double *x)
{
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeCooperative;
  at[0].val.cooperative = 1;
  cfg.gridDim = dim3((unsigned)d->coop_blocks);
  cfg.blockDim = dim3(TPB);
  cfg.stream = d->ctx->cuda->stream;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, coop_kernel(d->lanes), y->ncolors, sweeps, backward, (const int32_t *)d->dstart,
                            (const int32_t *)d->dpad, (const int32_t *)d->dwidth, (const int32_t *)d->dintra,
                            (const int64_t *)d->doff, (const int32_t *)d->rows, (const int32_t *)d->col,
                            (const double *)d->val, (const double *)d->dinv, omega, t, x, d->tmp, d->bar);
}

static ng_status cuda_create(ng_context ctx, const ng_smoother_opts *o, const ng_mcgs_layout *y, void **dev)
{
  mcgs_cuda *d;
  int64_t total = y->off[y->ncolors];
  NG_CHECK(NG_CALLOC(d, 1));
  *dev = d;
  d->ctx = ctx;
  d->coop_entries = o->mcgs_coop_entries;
  NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->rows, y->n ? y->n : 1));
  NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->col, total ? total : 1));
  NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->val, total ? total : 1));
  NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->dinv, y->n ? y->n : 1));
  NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->tmp, y->max_rows ? y->max_rows : 1));
  NG_CHECK(NG_MALLOC(d->hval, total ? total : 1));
  NG_CHECK(NG_MALLOC(d->hdinv, y->n ? y->n : 1));
  cudaStream_t s = ctx->cuda->stream;
  if (y->n) NG_CUDA_CHECK(cudaMemcpyAsync(d->rows, y->rows, (size_t)y->n * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  if (total) NG_CUDA_CHECK(cudaMemcpyAsync(d->col, y->ell_col, (size_t)total * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  NG_CHECK(upload_colors(d, y));
  NG_CHECK(plan_sweeps(d, y));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

static unsigned nblocks(int64_t n) { return n > 0 ? (unsigned)((n + TPB - 1) / TPB) : 1u; }
static unsigned fill_blocks(int64_t n) { return n > 0 ? (unsigned)((n + 32 * FILL_WARPS - 1) / (32 * FILL_WARPS)) : 1u; }

/* The device-built layout's values and 1 / a_ii from its device CSR table (ell_col too on the first call). */
static ng_status device_fill(mcgs_cuda *d, const ng_mcgs_layout *y, int columns)
{
  int32_t *rp, *col;
  double *val;
  if (!*d->ops || ng_csr_cuda_arrays(*d->ops, *d->data, &rp, &col, &val) != NG_SUCCESS)
    return NG_ERROR(NG_ERR_ARGUMENT, "AMG Gauss-Seidel update: the matrix is no longer stored as a device CSR (its "
                                     "format changed after the setup): set the format back or set the preconditioner up again");
  if (y->n == 0) return NG_SUCCESS;
  cudaStream_t s = d->ctx->cuda->stream;
  const int32_t *slot = d->dslot;
  int32_t *ecol = columns && !d->dslot ? d->col : NULL;
  unsigned nb = fill_blocks(y->n);
  if (d->fval)
    k_fill<float><<<nb, 32 * FILL_WARPS, 0, s>>>(y->n, rp, col, val, d->rows, d->scolor, d->dstart, d->dpad, d->doff,
                                                 d->dwidth, slot, ecol, d->fval, d->dinv);
  else
    k_fill<double><<<nb, 32 * FILL_WARPS, 0, s>>>(y->n, rp, col, val, d->rows, d->scolor, d->dstart, d->dpad, d->doff,
                                                  d->dwidth, slot, ecol, d->val, d->dinv);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

static ng_status cuda_values(void *dev, const ng_mcgs_layout *y, ng_smoother_level *S, const ng_csr *A)
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

/* In the setup functions below: a failed CUDA call sets st (naming the call) and jumps to out. */
#define E_CHECK(call) NG_CUDA_CHECK_GOTO(st, call, "AMG Gauss-Seidel setup")

/* ---- the early checks and colors (precolor, before the hierarchy) -------- */
typedef struct {
  ng_context ctx;
  cudaStream_t stream; /* its own, non-blocking */
  cudaEvent_t done;    /* after its work */
  int32_t n;
  const int32_t *rp; /* the table's row offsets: build takes the colors for this table only */
  int32_t *color;    /* context pool (ordered on the context's stream before the side stream starts) */
  int *flag;         /* [0] k_check's flag, then the coloring's NG_COLORING_NATURAL_WORDS */
} mcgs_early;

static void cuda_early_free(void *p)
{
  mcgs_early *e = (mcgs_early *)p;
  if (!e) return;
  struct ng_cuda *cu = e->ctx->cuda;
  if (e->done) cudaStreamWaitEvent(cu->stream, e->done, 0); /* the frees after the side stream's work */
  ng_cuda_tmp_free(cu, e->color);
  ng_cuda_tmp_free(cu, e->flag);
  if (e->done) cudaEventDestroy(e->done);
  if (e->stream) cudaStreamDestroy(e->stream);
  ng_free(e);
}

static ng_status cuda_precolor(ng_context ctx, const ng_spmv_ops *ops, void *data, int32_t n, void **early)
{
  int32_t *rp, *col;
  double *val;
  mcgs_early *e;
  ng_status st = NG_SUCCESS;
  *early = NULL;
  /* NG_MCGS_EARLY_BLOCKS=off: no early start (a measuring aid; a smaller
   * grid for the early greedy was measured slower: doc/performance.md) */
  const char *off = getenv("NG_MCGS_EARLY_BLOCKS");
  if (off && !strcmp(off, "off")) return NG_ERR_UNSUPPORTED; /* quiet */
  if (n == 0 || ng_csr_cuda_arrays(ops, data, &rp, &col, &val) != NG_SUCCESS) return NG_ERR_UNSUPPORTED; /* quiet */
  struct ng_cuda *cu = ctx->cuda;
  NG_CHECK(NG_CALLOC(e, 1));
  e->ctx = ctx;
  e->n = n;
  e->rp = rp;
  E_CHECK(cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking));
  E_CHECK(cudaEventCreateWithFlags(&e->done, cudaEventDisableTiming));
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, e->color, n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, e->flag, 1 + NG_COLORING_NATURAL_WORDS), out);
  /* the side stream after the context stream's work so far (the matrix, these buffers) */
  E_CHECK(cudaEventRecord(e->done, cu->stream));
  E_CHECK(cudaStreamWaitEvent(e->stream, e->done, 0));
  E_CHECK(cudaMemsetAsync(e->flag, 0, sizeof(int), e->stream));
  k_check<<<nblocks((int64_t)n * 32), TPB, 0, e->stream>>>(n, rp, col, val, 0.0, NULL, e->flag);
  E_CHECK(cudaGetLastError());
  NG_CHECK_GOTO(st, ng_coloring_cuda_natural_begin(e->stream, n, rp, col, e->color, e->flag + 1), out);
  E_CHECK(cudaEventRecord(e->done, e->stream));
  *early = e;
  return NG_SUCCESS;
out:
  cuda_early_free(e);
  return st;
}

/* NG_AMG_TRACE=1: the milliseconds of each step of the device build (stderr) */
static void trace(ng_context ctx, const char *what, int32_t n, double *t)
{
  if (!ng_smoother_trace_on()) return;
  cudaStreamSynchronize(ctx->cuda->stream);
  double now = ng_wtime();
  fprintf(stderr, "[amg trace] mcgs n %d %s %.2f ms\n", (int)n, what, 1e3 * (now - *t));
  *t = now;
}

/* Color-DIA slots for every color of a big level (d->dslot) when
 * each color's rows couple at the offsets of its widest row; else nothing. */
static ng_status try_dia(mcgs_cuda *d, const ng_mcgs_layout *y, const int32_t *rp, const int32_t *col)
{
  struct ng_cuda *cu = d->ctx->cuda;
  cudaStream_t s = cu->stream;
  int nc = y->ncolors, bad = 0;
  int32_t *rep = NULL;
  int *flag = NULL;
  ng_status st = NG_SUCCESS;
  for (int c = 0; c < nc; c++)
    if (y->width[c] > MAX_DIA_SLOTS) return NG_SUCCESS;
  if (y->n == 0 || nc == 0) return NG_SUCCESS;
  NG_CHECK(NG_CUDA_TMP(d->ctx->cuda, d->dslot, (size_t)nc * MAX_DIA_SLOTS));
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, rep, nc), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, flag, 1), out);
  E_CHECK(cudaMemsetAsync(rep, 0x7f, (size_t)nc * sizeof(int32_t), s)); /* INT32_MAX-ish: no row yet */
  E_CHECK(cudaMemsetAsync(flag, 0, sizeof(int), s));
  E_CHECK(cudaMemsetAsync(d->dslot, 0, (size_t)nc * MAX_DIA_SLOTS * sizeof(int32_t), s));
  k_dia_rep<<<nblocks(y->n), TPB, 0, s>>>(y->n, rp, d->rows, d->scolor, d->dwidth, rep);
  E_CHECK(cudaGetLastError());
  k_dia_slots<<<nc, MAX_DIA_SLOTS, 0, s>>>(rp, col, d->rows, d->dwidth, rep, d->dslot);
  E_CHECK(cudaGetLastError());
  k_dia_verify<<<nblocks(y->n), TPB, 0, s>>>(y->n, rp, col, d->color, d->dwidth, d->dslot, flag);
  E_CHECK(cudaGetLastError());
  E_CHECK(cudaMemcpyAsync(&bad, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
  E_CHECK(cudaStreamSynchronize(s));
out:
  ng_cuda_tmp_free(cu, rep);
  ng_cuda_tmp_free(cu, flag);
  if (st != NG_SUCCESS || bad) {
    ng_cuda_tmp_free(cu, d->dslot);
    d->dslot = NULL;
  }
  return st;
}

static ng_status cuda_build(ng_context ctx, const ng_smoother_opts *o, const ng_spmv_ops *const *ops,
                            void *const *data, int32_t n, double theta, int order, void *early, ng_mcgs_layout *y,
                            void **dev)
{
  mcgs_early *e = (mcgs_early *)early; /* ours to free */
  int32_t *rp, *col, *dcolor, *iota = NULL;
  double *val, t0 = ng_wtime();
  unsigned char *keep = NULL;
  void *tmp = NULL;
  int *dflag = NULL;
  size_t tb = 0;
  int flag = 0, nc = 0, guessed = 0;
  mcgs_cuda *d;
  ng_status st = NG_SUCCESS;
  if (ng_csr_cuda_arrays(*ops, *data, &rp, &col, &val) != NG_SUCCESS) {
    cuda_early_free(e);
    return NG_ERR_UNSUPPORTED; /* quiet */
  }
  if (e && (e->n != n || e->rp != rp || theta > 0 || order != NG_COLOR_NATURAL)) { /* not this table's */
    cuda_early_free(e);
    e = NULL;
  }
  struct ng_cuda *cu = ctx->cuda;
  cudaStream_t s = cu->stream;
  int32_t nnz = 0;
  NG_CHECK_GOTO(st, NG_CALLOC(d, 1), out);
  *dev = d;
  d->ctx = ctx;
  d->coop_entries = o->mcgs_coop_entries;
  /* the pattern's checks and (theta > 0) the strong-coupling mask; with
   * early ones, their flag once the side stream is done */
  if (e) {
    E_CHECK(cudaStreamWaitEvent(s, e->done, 0));
    E_CHECK(cudaMemcpyAsync(&flag, e->flag, sizeof(int), cudaMemcpyDeviceToHost, s));
    E_CHECK(cudaStreamSynchronize(s));
    trace(ctx, "early check and colors, the wait", n, &t0);
  } else {
    E_CHECK(cudaMemcpyAsync(&nnz, rp + n, sizeof(int32_t), cudaMemcpyDeviceToHost, s));
    E_CHECK(cudaStreamSynchronize(s));
    NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, dflag, 1), out);
    if (theta > 0) NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, keep, nnz ? nnz : 1), out);
    E_CHECK(cudaMemsetAsync(dflag, 0, sizeof(int), s));
    if (n) k_check<<<nblocks((int64_t)n * 32), TPB, 0, s>>>(n, rp, col, val, theta, keep, dflag);
    E_CHECK(cudaGetLastError());
    E_CHECK(cudaMemcpyAsync(&flag, dflag, sizeof(int), cudaMemcpyDeviceToHost, s));
    E_CHECK(cudaStreamSynchronize(s));
    trace(ctx, "check", n, &t0);
  }
  if (flag) {
    st = NG_ERR_UNSUPPORTED; /* quiet: the host builds (and reports a missing diagonal) */
    goto out;
  }
  /* colors, then the rows grouped by color (stable: by row within a color) */
  if (e) { /* the early colors: their count (or, a wait timed out, JPL's same colors) */
    d->color = e->color;
    e->color = NULL;
    NG_CHECK_GOTO(st, ng_coloring_cuda_natural_end(ctx, n, rp, col, d->color, e->flag + 1, &nc, &guessed), out);
  } else {
    NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->color, n ? n : 1), out);
    NG_CHECK_GOTO(st, ng_coloring_cuda_csr(ctx, n, rp, col, keep, order, d->color, &nc, &guessed), out);
  }
  dcolor = d->color;
  trace(ctx, guessed ? "coloring (the stencil guess)" : "coloring", n, &t0);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->rows, n ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->scolor, n ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, iota, n ? n : 1), out);
  {
    int bits = 1;
    while ((1 << bits) < nc) bits++;
    if (n) k_iota<<<nblocks(n), TPB, 0, s>>>(n, iota);
    E_CHECK(cudaGetLastError());
    E_CHECK(cub::DeviceRadixSort::SortPairs(NULL, tb, dcolor, d->scolor, iota, d->rows, n, 0, bits, s));
    NG_CHECK_GOTO(st, ng_cuda_tmp_malloc(cu, &tmp, tb ? tb : 1, "MCGS sort buffer"), out);
    E_CHECK(cub::DeviceRadixSort::SortPairs(tmp, tb, dcolor, d->scolor, iota, d->rows, n, 0, bits, s));
  }
  trace(ctx, "grouping: sorted", n, &t0);
  /* per color: start, width, intra (on the host: pad, off, the largest color) */
  y->n = n;
  y->ncolors = nc;
  NG_CHECK_GOTO(st, NG_CALLOC(y->start, (size_t)nc + 1), out);
  NG_CHECK_GOTO(st, NG_CALLOC(y->width, nc ? nc : 1), out);
  NG_CHECK_GOTO(st, NG_CALLOC(y->pad, nc ? nc : 1), out);
  NG_CHECK_GOTO(st, NG_CALLOC(y->intra, nc ? nc : 1), out);
  NG_CHECK_GOTO(st, NG_CALLOC(y->off, (size_t)nc + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->dstart, (size_t)nc + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->dwidth, nc ? nc : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->dintra, nc ? nc : 1), out);
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
  trace(ctx, "grouping", n, &t0);
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
  trace(ctx, "plan: colors uploaded", n, &t0);
  NG_CHECK_GOTO(st, plan_sweeps(d, y), out);
  trace(ctx, "plan: sweeps", n, &t0);
  /* a level that sweeps a launch per color: color-DIA blocks where they fit */
  if (d->coop_blocks == 0) NG_CHECK_GOTO(st, try_dia(d, y, rp, col), out);
  trace(ctx, d->dslot ? "plan (color-DIA)" : "plan", n, &t0);
  /* the blocks: every row by k_fill (the padding past a color's rows is never read) */
  {
    int64_t total = y->off[nc];
    if (!d->dslot) NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->col, total ? total : 1), out);
    if (o->mcgs_single && d->coop_blocks == 0) /* (the cooperative sweeps read FP64 blocks) */
      NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->fval, total ? total : 1), out);
    else NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->val, total ? total : 1), out);
    NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->dinv, n ? n : 1), out);
    NG_CHECK_GOTO(st, NG_CUDA_TMP(d->ctx->cuda, d->tmp, y->max_rows ? y->max_rows : 1), out);
  }
  d->ops = ops;
  d->data = data;
  trace(ctx, "blocks: allocated", n, &t0);
  NG_CHECK_GOTO(st, device_fill(d, y, 1), out);
  trace(ctx, "blocks", n, &t0);
out:
  cuda_early_free(e);
  ng_cuda_tmp_free(cu, dflag);
  ng_cuda_tmp_free(cu, iota);
  ng_cuda_tmp_free(cu, keep);
  ng_cuda_tmp_free(cu, tmp);
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
  const int32_t *rr = d->rows + s0, *so = d->dslot ? d->dslot + (int64_t)c * MAX_DIA_SLOTS : NULL;
  const double *dd = d->dinv + s0;
  int32_t p = y->pad[c], w = y->width[c];
  if (so && d->fval) launch_dia<float>(y->n, m, p, w, rr, so, d->fval + y->off[c], dd, omega, t, x, out, s);
  else if (so) launch_dia<double>(y->n, m, p, w, rr, so, d->val + y->off[c], dd, omega, t, x, out, s);
  else if (d->fval)
    k_mcgs_color<float><<<nb, TPB, 0, s>>>(m, p, w, rr, d->col + y->off[c], d->fval + y->off[c], dd, omega, t, x, out);
  else
    k_mcgs_color<double><<<nb, TPB, 0, s>>>(m, p, w, rr, d->col + y->off[c], d->val + y->off[c], dd, omega, t, x, out);
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
  if (y->n == 0 || sweeps <= 0) return NG_SUCCESS;
  if (d->coop_blocks > 0) {
    NG_CUDA_CHECK(sweep_coop(d, y, sweeps, backward, omega, t, x));
    return NG_SUCCESS;
  }
  NG_CHECK(ng_mcgs_sweeps_by_color(dev, y, sweeps, backward, omega, t, x, cuda_color));
  return NG_SUCCESS;
}

/* k_mcgs_resid on the level's blocks: FP32 or FP64 values, idx the
 * color-DIA slots (DIA) or the ELL columns. */
template <bool DIA>
static void launch_resid(const mcgs_cuda *d, int32_t n, const int32_t *idx, const double *b, const double *x, double *r)
{
  unsigned nb = nblocks((int64_t)n * DIA_LANES);
  cudaStream_t s = d->ctx->cuda->stream;
  if (d->fval)
    k_mcgs_resid<float, DIA, DIA_LANES><<<nb, TPB, 0, s>>>(n, d->scolor, d->dstart, d->dpad, d->dwidth, d->doff,
                                                           d->rows, idx, d->fval, d->dinv, b, x, r);
  else
    k_mcgs_resid<double, DIA, DIA_LANES><<<nb, TPB, 0, s>>>(n, d->scolor, d->dstart, d->dpad, d->dwidth, d->doff,
                                                            d->rows, idx, d->val, d->dinv, b, x, r);
}

/* r = b - A x in one launch (ng_mcgs_kernels.residual) where the build
 * ran on the device (scolor: the row list's colors); a host-built layout
 * leaves it to the matrix. */
static ng_status cuda_residual(void *dev, const ng_mcgs_layout *y, const double *b, const double *x, double *r,
                               int *done)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  *done = 0;
  if (!d->scolor || y->n == 0) return NG_SUCCESS;
  if (d->dslot) launch_resid<true>(d, y->n, d->dslot, b, x, r);
  else launch_resid<false>(d, y->n, d->col, b, x, r);
  NG_CUDA_LAUNCH_CHECK();
  *done = 1;
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

static const char *cuda_kind(void *dev)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  static const char *lanes[] = {"one launch, 1 lane a row",  "one launch, 2 lanes a row",  "one launch, 4 lanes a row",
                                "one launch, 8 lanes a row",  "one launch, 16 lanes a row", "one launch, 32 lanes a row"};
  if (d->coop_blocks > 0) {
    int k = 0;
    while ((1 << k) < d->lanes && k < 5) k++;
    return lanes[k];
  }
  if (d->dslot) return d->fval ? "color-DIA FP32, a launch per color" : "color-DIA, a launch per color";
  return d->fval ? "ELL FP32, a launch per color" : "ELL, a launch per color";
}

extern "C" const ng_mcgs_kernels ng_mcgs_cuda = {"cuda",        cuda_create,   cuda_values,     cuda_color,
                                                 cuda_sweeps,   cuda_destroy,  cuda_build,      cuda_precolor,
                                                 cuda_early_free, cuda_colors, cuda_kind,   cuda_residual};
