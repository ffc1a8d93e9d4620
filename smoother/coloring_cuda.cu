/* smoother/coloring_cuda.cu: the colorings of coloring.c on the GPU, from a
 * host graph (uploaded) or straight from a device CSR pattern (the level's
 * own device matrix: diagonal skipped, optionally only the entries a keep
 * mask marks), identical to the host reference in both cases.
 *
 * Hashed and largest-degree-first keys: Jones-Plassmann-Luby rounds, one
 * kernel decides (every uncolored vertex whose key beats its uncolored
 * neighbours' takes the smallest color its colored neighbours lack), one
 * commits, so a round reads only the previous rounds' colors; the host
 * reads the counters every JPL_BATCH rounds (setup only).
 *
 * Row index order (NG_COLOR_NATURAL, the finest level): JPL would need as
 * many rounds as the longest chain of increasing indices (about nx + 2 ny +
 * 4 nz on a 27-point grid: hundreds), so one sync-free kernel runs instead:
 * blocks take consecutive row ranges in the order they start (a ticket
 * counter, so every lower row's block has already started: no deadlock),
 * and each row polls until its lower neighbours have published their
 * colors (see k_greedy_natural for how, cheaply), then takes the first free
 * one. That is the sequential greedy coloring exactly. A wait that lasts
 * past a time limit (it should not happen) poisons the row and raises a
 * flag; the colors are then made again by the JPL rounds with index keys,
 * which give the same result.
 *
 * Before that kernel, a guess (NG_COLOR_NATURAL without a keep mask): on a
 * grid numbered x fastest, then y, then z, the greedy's colors are a formula
 * of the position, (x + y + z) mod 2 for 5- and 7-point stencils and
 * (x mod 2) + 2 (y mod 2) + 4 (z mod 2) for 9- and 27-point ones. A coloring
 * is the greedy one exactly when every row's color is the first one absent
 * from its lower neighbours' (by induction on the row index), which one
 * parallel pass checks for both formulas at once. So: nx and nx ny from the
 * offsets of the widest of some sampled rows, the check, the colors of a
 * formula that holds, and the greedy kernel's blocks return at once; when
 * neither holds, the greedy runs as before. All stream-ordered, no host
 * wait. NG_COLORING_GUESS=off skips the guess, =only fails when it does not
 * hold (measuring and test aids). */
#include "cuda_internal.h"
#include "smoother.h"

#define TPB 256
#define JPL_BATCH 4 /* JPL rounds queued between two reads of the counters */
#define POISON 0x40000000           /* a row whose wait timed out */

/* ng_coloring_key (coloring.c) on the device: the same bits. */
__device__ static uint64_t dev_key(int order, int64_t degree, uint32_t i)
{
  if (order == NG_COLOR_NATURAL) return ~(uint64_t)i;
  uint32_t x = i;
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  if (order != NG_COLOR_LDF) return ((uint64_t)x << 32) | i;
  uint64_t d = degree < (1 << 20) ? (uint64_t)degree : (1u << 20) - 1;
  return (d << 43) | ((uint64_t)(x & 0xfffu) << 31) | i;
}

/* entry k of row v is an edge of the graph */
#define EDGE(v, u, k) ((u) != (v) && (!keep || keep[k]))

template <typename R>
__global__ void k_keys(int32_t n, const R *rp, const int32_t *col, const unsigned char *keep, int order, uint64_t *key,
                       int32_t *color)
{
  int32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int64_t d = 0;
  for (R k = rp[v]; k < rp[v + 1]; k++) d += EDGE(v, col[k], k);
  key[v] = dev_key(order, d, (uint32_t)v);
  color[v] = -1;
}

template <typename R>
__global__ void k_jpl_decide(int32_t n, const R *rp, const int32_t *col, const unsigned char *keep, const uint64_t *key,
                             const int32_t *color, int32_t *next)
{
  int32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  next[v] = -1;
  if (color[v] >= 0) return;
  uint64_t kv = key[v];
  for (R k = rp[v]; k < rp[v + 1]; k++) {
    int32_t u = col[k];
    if (EDGE(v, u, k) && color[u] < 0 && key[u] > kv) return;
  }
  for (int32_t base = 0;; base += 64) {
    unsigned long long used = 0;
    for (R k = rp[v]; k < rp[v + 1]; k++) {
      int32_t u = col[k];
      if (!EDGE(v, u, k)) continue;
      int32_t c = color[u] - base;
      if (c >= 0 && c < 64) used |= 1ull << c;
    }
    if (~used) {
      next[v] = base + __ffsll((long long)~used) - 1;
      return;
    }
  }
}

/* counters[0]: vertices colored so far, counters[1]: the largest color */
__global__ void k_jpl_commit(int32_t n, const int32_t *next, int32_t *color, int *counters)
{
  int32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || next[v] < 0) return;
  color[v] = next[v];
  atomicAdd(&counters[0], 1);
  atomicMax(&counters[1], next[v]);
}

/* ---- the stencil guess (top of the file) ----
 * w (NG_COLORING_NATURAL_WORDS ints, 0 on entry): [0] the greedy's ticket,
 * [1] its timeout flag, [2] the formula taken + 1 (0: none), [3] the
 * formulas that failed (bits), [4] nx and [5] nx ny (0: no grid found). */
#define GUESS_RUNS 8 /* runs of consecutive upper offsets in a row: 5 on a 27-point grid */

/* The parities of a row's grid position: x | y << 1 | z << 2. */
__device__ static __forceinline__ unsigned grid_parity(uint32_t v, uint32_t nx, uint32_t nxny)
{
  uint32_t r = v % nxny;
  return ((r % nx) & 1u) | ((r / nx) & 1u) << 1 | ((v / nxny) & 1u) << 2;
}

/* Formula f's color from the parities: 0, (x + y + z) mod 2; 1, x + 2 y + 4 z. */
__device__ static __forceinline__ unsigned guess_color(int f, unsigned p) { return f ? p : (__popc(p) & 1u); }

/* One block: the widest row among the TPB rows at each eighth of the
 * matrix (an interior row of a grid), then from its upper offsets, in runs
 * of consecutive ones, {1} {nx (+-1)} [{nx ny - nx (+-1)}] {nx ny (+-1)}
 * [{nx ny + nx (+-1)}]: nx and nx ny. Anything else: no guess. */
template <typename R>
__global__ void k_guess_grid(int32_t n, const R *rp, const int32_t *col, int *w)
{
  __shared__ unsigned long long best;
  if (threadIdx.x == 0) best = 0;
  __syncthreads();
  for (int k = 1; k < 8; k++) {
    int64_t v = (int64_t)n * k / 8 + threadIdx.x;
    if (v < n) atomicMax(&best, (unsigned long long)(rp[v + 1] - rp[v]) << 32 | (0xffffffffu - (uint32_t)v));
  }
  __syncthreads();
  if (threadIdx.x) return;
  int32_t v = (int32_t)(0xffffffffu - (uint32_t)(best & 0xffffffffu));
  int64_t lo[GUESS_RUNS], hi[GUESS_RUNS], prev = 0, nx = 0, nxny = 0;
  int nr = 0;
  for (R k = rp[v]; k < rp[v + 1] && nr >= 0; k++) {
    int64_t o = (int64_t)col[k] - v;
    if (o <= 0) continue;
    if (o <= prev) nr = -1; /* unsorted */
    else if (nr > 0 && o == prev + 1) hi[nr - 1] = o;
    else if (nr == GUESS_RUNS) nr = -1;
    else lo[nr] = hi[nr] = o, nr++;
    prev = o;
  }
  if (nr >= 1 && lo[0] == 1 && hi[0] == 1) {
    if (nr == 1) nx = nxny = n; /* a line */
    else if ((hi[1] - lo[1]) % 2 == 0) {
      nx = (lo[1] + hi[1]) / 2;
      int m = nr == 3 ? 2 : nr == 5 ? 3 : 0; /* the nx ny run */
      if (nr == 2) nxny = nx * ((n + nx - 1) / nx); /* a plane */
      else if (m && (hi[m] - lo[m]) % 2 == 0) nxny = (lo[m] + hi[m]) / 2;
    }
  }
  if (nx < 2 || nxny < nx || nxny % nx || nxny > 0xffffffffll) nx = nxny = 0;
  w[4] = (int)(uint32_t)nx;
  w[5] = (int)(uint32_t)nxny;
}

/* Each row: is each formula's color the first one absent from its lower
 * neighbours' colors under the same formula? Failures into w[3] (a block's
 * vote, one atomic a block). */
template <typename R>
__global__ void k_guess_check(int32_t n, const R *rp, const int32_t *col, int *w)
{
  __shared__ int skip;
  volatile int *vw = w;
  uint32_t nx = (uint32_t)w[4], nxny = (uint32_t)w[5];
  if (threadIdx.x == 0) skip = !nx || vw[3] == 3; /* both failed already */
  __syncthreads();
  if (skip) return;
  int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned bad = 0;
  if (v < n) {
    unsigned u0 = 0, u1 = 0;
    for (R k = rp[v]; k < rp[v + 1]; k++) {
      int32_t u = col[k];
      if (u >= v) continue;
      unsigned p = grid_parity((uint32_t)u, nx, nxny);
      u0 |= 1u << guess_color(0, p);
      u1 |= 1u << p;
    }
    unsigned p = grid_parity((uint32_t)v, nx, nxny);
    bad = ((unsigned)(__ffs(~u0) - 1) != guess_color(0, p)) | ((unsigned)(__ffs(~u1) - 1) != p) << 1;
  }
  /* the block's vote, one atomic a block (a warp vote written as
   * bad = any(bad & 1) | any(bad & 2) missed the cut grid's one failing row
   * of test gpu_coloring_stencil_guess on the H100; this form finds it) */
  int f0 = __syncthreads_or((int)(bad & 1u)), f1 = __syncthreads_or((int)(bad & 2u));
  if (threadIdx.x == 0 && (f0 || f1)) atomicOr(w + 3, (f0 ? 1 : 0) | (f1 ? 2 : 0));
}

/* The colors of the first formula that held (none held: nothing). */
__global__ void k_guess_write(int32_t n, int *w, int32_t *color)
{
  uint32_t nx = (uint32_t)w[4], nxny = (uint32_t)w[5];
  int bad = w[3], f = bad & 1;
  if (!nx || bad == 3) return;
  int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) color[v] = (int32_t)guess_color(f, grid_parity((uint32_t)v, nx, nxny));
  if (v == 0) w[2] = f + 1;
}

/* Sequential greedy in row order, sync-free (top of the file), a block per
 * range of GREEDY_ROWS rows; cnt: the guess's words. Each block takes the
 * next range in the order blocks start (cnt[0], the ticket), keeping the
 * range's colors in shared memory beside the global array. Each row runs
 * one loop of passes over its entries, GREEDY_W at a time: the first pass
 * reads every lower neighbour (those of earlier ranges in global memory:
 * their blocks started before this one; those of this range in shared
 * memory), then the row polls only its largest still-uncolored lower
 * neighbour, and when that one has its color, reads the rest again. In row
 * order that neighbour is nearly always the last to be colored and in the
 * same range, so the polling stays in shared memory and off the L2 cache
 * that the whole grid's polls would otherwise saturate. A row publishes its
 * color in the pass that completes it, and every lane of a warp runs the
 * same loop: no lane spins in a loop of its own waiting for a lane of its
 * own warp, which the warp scheduler serves slowly.
 *
 * On the H100 at 100^3 (27-point, chains of 693 rows): 3.2 ms, against
 * 5.3 ms when each neighbour was awaited in a spin loop of its own in
 * global memory, and 7.2 ms when every pass polled every neighbour
 * (doc/performance.md). */
#define GREEDY_ROWS 256
#define WAIT_POLLS 50000000u /* polls of one neighbour, each at least a shared- or global-memory read: seconds */
#define GREEDY_W 16 /* sorted rows: a 27-point row's 13 lower neighbours in the first */

/* Smallest color absent from the lower neighbours of row v (all final now),
 * past the first 64, which are all taken. */
template <typename R>
__device__ static int32_t greedy_past_64(int32_t v, int32_t first, const R *rp, const int32_t *col,
                                         const unsigned char *keep, volatile const int32_t *vc,
                                         volatile const int32_t *vs)
{
  for (int32_t base = 64;; base += 64) {
    unsigned long long used = 0;
    for (R k = rp[v]; k < rp[v + 1]; k++) {
      int32_t u = col[k];
      if (u >= v || (keep && !keep[k])) continue;
      int32_t c = (u >= first ? vs[u - first] : vc[u]) - base;
      if (c >= 0 && c < 64) used |= 1ull << c;
    }
    if (~used) return base + __ffsll((long long)~used) - 1;
  }
}

/* The lower neighbours among entries w .. w + GREEDY_W - 1 of row v. */
template <typename R>
__device__ static uint32_t greedy_lower(int32_t v, R w, R r1, const int32_t *col, const unsigned char *keep)
{
  uint32_t pend = 0;
  int m = r1 - w < GREEDY_W ? (int)(r1 - w) : GREEDY_W;
  for (int i = 0; i < m; i++)
    if (col[w + i] < v && (!keep || keep[w + i])) pend |= 1u << i;
  return pend;
}

/* Whether entries from .. r1 - 1 of row v hold a lower neighbour (read at
 * a row's start, so that the pass completing the row reads nothing more). */
template <typename R>
__device__ static bool greedy_tail(int32_t v, R from, R r1, const int32_t *col, const unsigned char *keep)
{
  for (R k = from; k < r1; k++)
    if (col[k] < v && (!keep || keep[k])) return true;
  return false;
}

template <typename R>
__global__ void __launch_bounds__(GREEDY_ROWS, 4)
    k_greedy_natural(int32_t n, const R *rp, const int32_t *col, const unsigned char *keep, int32_t *color, int *cnt)
{
  __shared__ unsigned int blk;
  __shared__ int32_t sc[GREEDY_ROWS];
  volatile int32_t *vc = color;
  volatile int32_t *vs = sc;
  if (cnt[2]) return; /* the stencil guess held */
  if (threadIdx.x == 0) blk = atomicAdd((unsigned int *)cnt, 1u);
  sc[threadIdx.x] = -1;
  __syncthreads();
  int32_t first = (int32_t)(blk * GREEDY_ROWS), v = first + (int32_t)threadIdx.x;
  if (v >= n) return;
  const R r1 = rp[v + 1];
  R w = rp[v]; /* the entries this pass looks at: w .. w + GREEDY_W - 1 */
  uint32_t pend = greedy_lower<R>(v, w, r1, col, keep);
  bool tail = greedy_tail<R>(v, w + GREEDY_W, r1, col, keep);
  unsigned long long used = 0;
  bool batch = true, bad = false;
  int32_t mine = -1;
  unsigned polls = 0; /* the time limit, counted in polls (fewer registers than a clock) */
  while (mine < 0) {
    if (batch) { /* every pending read first, then look at them */
      int32_t c[GREEDY_W];
#pragma unroll
      for (int i = 0; i < GREEDY_W; i++)
        if (pend >> i & 1) {
          int32_t u = col[w + i];
          c[i] = u >= first ? vs[u - first] : vc[u];
        }
#pragma unroll
      for (int i = 0; i < GREEDY_W; i++)
        if ((pend >> i & 1) && c[i] >= 0) {
          pend &= ~(1u << i);
          if (c[i] >= POISON) bad = true;
          else if (c[i] < 64) used |= 1ull << c[i];
        }
      batch = false;
    } else { /* the largest pending one */
      int i = 31 - __clz(pend);
      int32_t u = col[w + i];
      int32_t c = u >= first ? vs[u - first] : vc[u];
      if (c >= 0) {
        pend &= ~(1u << i);
        if (c >= POISON) bad = true;
        else if (c < 64) used |= 1ull << c;
        batch = pend != 0;
      } else if (++polls > WAIT_POLLS)
        bad = true;
    }
    if (!pend && !bad && tail) { /* lower neighbours past these entries (unsorted or long rows) */
      w += GREEDY_W;
      pend = greedy_lower<R>(v, w, r1, col, keep);
      tail = greedy_tail<R>(v, w + GREEDY_W, r1, col, keep);
      batch = true;
      continue;
    }
    if (bad) mine = POISON;
    else if (!pend)
      mine = ~used ? __ffsll((long long)~used) - 1 : greedy_past_64<R>(v, first, rp, col, keep, vc, vs);
    if (mine >= 0) { /* publish in this pass: to the range, then to the later ranges */
      vs[threadIdx.x] = mine;
      vc[v] = mine;
    }
  }
  if (mine >= POISON) atomicExch(cnt + 1, 1);
}

__global__ void k_max(int32_t n, const int32_t *color, int *most)
{
  int32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) atomicMax(most, color[v]);
}

#define E_CHECK(call) NG_CUDA_CHECK_GOTO(st, call, "GPU coloring")

/* Jones-Plassmann-Luby rounds with the order's keys (top of the file). */
template <typename R>
static ng_status color_jpl(ng_context ctx, int32_t n, const R *rp, const int32_t *col, const unsigned char *keep,
                           int order, int32_t *color, int *ncolors)
{
  cudaStream_t s = ctx->cuda->stream;
  int32_t *next = NULL;
  uint64_t *key = NULL;
  int *cnt = NULL, h[2] = {0, -1};
  ng_status st = NG_SUCCESS;
  unsigned nb = (unsigned)((n + TPB - 1) / TPB);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(ctx->cuda, cnt, 2), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(ctx->cuda, key, n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(ctx->cuda, next, n), out);
  k_keys<R><<<nb, TPB, 0, s>>>(n, rp, col, keep, order, key, color);
  E_CHECK(cudaGetLastError());
  E_CHECK(cudaMemcpyAsync(cnt, h, sizeof(h), cudaMemcpyHostToDevice, s));
  /* JPL_BATCH rounds per look at the counters (a round after the last
   * colors nothing and costs two small launches; a look costs a sync) */
  for (int colored = 0;;) {
    for (int b = 0; b < JPL_BATCH; b++) {
      k_jpl_decide<R><<<nb, TPB, 0, s>>>(n, rp, col, keep, key, color, next);
      E_CHECK(cudaGetLastError());
      k_jpl_commit<<<nb, TPB, 0, s>>>(n, next, color, cnt);
      E_CHECK(cudaGetLastError());
    }
    E_CHECK(cudaMemcpyAsync(h, cnt, sizeof(h), cudaMemcpyDeviceToHost, s));
    E_CHECK(cudaStreamSynchronize(s));
    if (h[0] >= n) break;
    if (h[0] == colored) {
      st = NG_ERROR(NG_ERR_INTERNAL, "GPU coloring: %d rounds colored nothing (%lld vertices left)", JPL_BATCH,
                    (long long)(n - h[0]));
      goto out;
    }
    colored = h[0];
  }
  *ncolors = h[1] + 1;
out: /* (the context's pool: stream-ordered, no device-wide wait) */
  ng_cuda_tmp_free(ctx->cuda, key);
  ng_cuda_tmp_free(ctx->cuda, next);
  ng_cuda_tmp_free(ctx->cuda, cnt);
  return st;
}

/* NG_COLORING_GUESS: 0 (unset) guess, then the greedy where it fails; 1
 * (off) the greedy only; 2 (only) fail where the guess fails. */
static int guess_mode(void)
{
  const char *g = getenv("NG_COLORING_GUESS");
  return !g ? 0 : !strcmp(g, "off") ? 1 : !strcmp(g, "only") ? 2 : 0;
}

/* The natural order's colors queued on stream s: the stencil guess (no
 * keep mask), then the greedy, a block per range of rows (its blocks return
 * at once where the guess held); cnt: NG_COLORING_NATURAL_WORDS device ints. */
template <typename R>
static ng_status natural_begin(cudaStream_t s, int32_t n, const R *rp, const int32_t *col, const unsigned char *keep,
                               int32_t *color, int *cnt)
{
  ng_status st = NG_SUCCESS;
  unsigned nbg = (unsigned)((n + GREEDY_ROWS - 1) / GREEDY_ROWS), nb = (unsigned)((n + TPB - 1) / TPB);
  E_CHECK(cudaMemsetAsync(color, 0xff, (size_t)n * sizeof(int32_t), s)); /* -1 */
  E_CHECK(cudaMemsetAsync(cnt, 0, NG_COLORING_NATURAL_WORDS * sizeof(int), s));
  if (!keep && guess_mode() != 1) {
    k_guess_grid<R><<<1, TPB, 0, s>>>(n, rp, col, cnt);
    E_CHECK(cudaGetLastError());
    k_guess_check<R><<<nb, TPB, 0, s>>>(n, rp, col, cnt);
    E_CHECK(cudaGetLastError());
    k_guess_write<<<nb, TPB, 0, s>>>(n, cnt, color);
    E_CHECK(cudaGetLastError());
  }
  k_greedy_natural<R><<<nbg, GREEDY_ROWS, 0, s>>>(n, rp, col, keep, color, cnt);
  E_CHECK(cudaGetLastError());
out:
  return st;
}

/* ... and its end on the context's stream (after the greedy's work there):
 * the number of colors, or, when a wait timed out, the same colors again by
 * JPL rounds with index keys; *guessed: whether the stencil guess held. */
template <typename R>
static ng_status natural_end(ng_context ctx, int32_t n, const R *rp, const int32_t *col, const unsigned char *keep,
                             int32_t *color, int *cnt, int *ncolors, int *guessed)
{
  cudaStream_t s = ctx->cuda->stream;
  int h[3] = {0, 0, 0};
  ng_status st = NG_SUCCESS;
  E_CHECK(cudaMemcpyAsync(h, cnt, sizeof(h), cudaMemcpyDeviceToHost, s));
  E_CHECK(cudaStreamSynchronize(s));
  if (guessed) *guessed = h[2] != 0;
  if (!h[2] && !keep && guess_mode() == 2)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "GPU coloring: the stencil guess does not hold (NG_COLORING_GUESS=only)");
  if (h[1]) return color_jpl<R>(ctx, n, rp, col, keep, NG_COLOR_NATURAL, color, ncolors);
  h[0] = -1;
  E_CHECK(cudaMemcpyAsync(cnt, h, sizeof(int), cudaMemcpyHostToDevice, s));
  k_max<<<(unsigned)((n + TPB - 1) / TPB), TPB, 0, s>>>(n, color, cnt);
  E_CHECK(cudaGetLastError());
  E_CHECK(cudaMemcpyAsync(h, cnt, sizeof(int), cudaMemcpyDeviceToHost, s));
  E_CHECK(cudaStreamSynchronize(s));
  *ncolors = h[0] + 1;
out:
  return st;
}

/* The coloring of the device pattern (rp, col, keep) into the device array color. */
template <typename R>
static ng_status color_device(ng_context ctx, int32_t n, const R *rp, const int32_t *col, const unsigned char *keep,
                              int order, int32_t *color, int *ncolors, int *guessed)
{
  int *cnt = NULL;
  ng_status st = NG_SUCCESS;
  *ncolors = 0;
  if (guessed) *guessed = 0;
  if (n == 0) return NG_SUCCESS;
  if (order != NG_COLOR_NATURAL) return color_jpl<R>(ctx, n, rp, col, keep, order, color, ncolors);
  NG_CHECK(NG_CUDA_TMP(ctx->cuda, cnt, NG_COLORING_NATURAL_WORDS));
  st = natural_begin<R>(ctx->cuda->stream, n, rp, col, keep, color, cnt);
  if (st == NG_SUCCESS) st = natural_end<R>(ctx, n, rp, col, keep, color, cnt, ncolors, guessed);
  ng_cuda_tmp_free(ctx->cuda, cnt);
  return st;
}
#undef E_CHECK

/* The natural-order coloring of a device CSR pattern in two halves: begin
 * queues it on stream s before the rest of the setup,
 * end collects it on the context's stream once s's work is ordered before. */
extern "C" ng_status ng_coloring_cuda_natural_begin(cudaStream_t s, int32_t n, const int32_t *rp, const int32_t *col,
                                                    int32_t *color, int *cnt)
{
  if (n == 0) return NG_SUCCESS;
  NG_CHECK(natural_begin<int32_t>(s, n, rp, col, NULL, color, cnt));
  return NG_SUCCESS;
}

extern "C" ng_status ng_coloring_cuda_natural_end(ng_context ctx, int32_t n, const int32_t *rp, const int32_t *col,
                                                  int32_t *color, int *cnt, int *ncolors, int *guessed)
{
  *ncolors = 0;
  if (guessed) *guessed = 0;
  if (n == 0) return NG_SUCCESS;
  NG_CHECK(natural_end<int32_t>(ctx, n, rp, col, NULL, color, cnt, ncolors, guessed));
  return NG_SUCCESS;
}

extern "C" ng_status ng_coloring_cuda_csr(ng_context ctx, int32_t n, const int32_t *rp, const int32_t *col,
                                          const unsigned char *keep, int order, int32_t *color, int *ncolors,
                                          int *guessed)
{
  NG_CHECK(color_device<int32_t>(ctx, n, rp, col, keep, order, color, ncolors, guessed));
  return NG_SUCCESS;
}

/* A host graph: uploaded, colored on the device, colors downloaded. */
static ng_status color_cuda(ng_context ctx, const ng_graph *G, int order, int32_t *color, int *ncolors)
{
  cudaStream_t s = ctx->cuda->stream;
  int32_t n = G->n;
  int64_t nnz = G->rowptr[n];
  int64_t *rp = NULL;
  int32_t *col = NULL, *dcolor = NULL;
  ng_status st = NG_SUCCESS;
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(rp, (size_t)n + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(col, nnz ? nnz : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(dcolor, n ? n : 1), out);
  {
    cudaError_t e = cudaMemcpyAsync(rp, G->rowptr, ((size_t)n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess && nnz)
      e = cudaMemcpyAsync(col, G->col, (size_t)nnz * sizeof(int32_t), cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) {
      st = NG_ERROR(NG_ERR_CUDA, "GPU coloring: uploading the graph failed: %s", cudaGetErrorString(e));
      goto out;
    }
  }
  NG_CHECK_GOTO(st, color_device<int64_t>(ctx, n, rp, col, NULL, order, dcolor, ncolors, NULL), out);
  {
    cudaError_t e = n ? cudaMemcpyAsync(color, dcolor, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost, s) : cudaSuccess;
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "GPU coloring: downloading the colors failed: %s", cudaGetErrorString(e));
  }
out:
  ng_cuda_free(rp);
  ng_cuda_free(col);
  ng_cuda_free(dcolor);
  return st;
}

extern "C" const ng_coloring_ops ng_coloring_cuda = {"cuda", color_cuda};
