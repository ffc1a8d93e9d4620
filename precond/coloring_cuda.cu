/* precond/coloring_cuda.cu: the colorings of coloring.c on the GPU, from a
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
 * which give the same result. */
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

/* Sequential greedy in row order, sync-free (top of the file). ticket: 0 on
 * entry. A block takes the next range of GREEDY_ROWS rows until none is
 * left (with a grid of one block per range, one range each), keeping the
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
    k_greedy_natural(int32_t n, const R *rp, const int32_t *col, const unsigned char *keep, int32_t *color,
                     unsigned int *ticket, int *fail)
{
  __shared__ unsigned int blk;
  __shared__ int32_t sc[GREEDY_ROWS];
  volatile int32_t *vc = color;
  volatile int32_t *vs = sc;
  for (;;) {
    __syncthreads(); /* every thread has read blk and is done with sc */
    if (threadIdx.x == 0) blk = atomicAdd(ticket, 1u);
    sc[threadIdx.x] = -1;
    __syncthreads();
    if ((int64_t)blk * GREEDY_ROWS >= n) return;
    int32_t first = (int32_t)(blk * GREEDY_ROWS), v = first + (int32_t)threadIdx.x;
    if (v >= n) continue;
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
    if (mine >= POISON) atomicExch(fail, 1);
  }
}

__global__ void k_max(int32_t n, const int32_t *color, int *most)
{
  int32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) atomicMax(most, color[v]);
}

#define E_CHECK(call)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      st = NG_ERROR(NG_ERR_CUDA, "GPU coloring: %s failed: %s", #call, cudaGetErrorString(e_));    \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)

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

/* The natural order's greedy launched on stream s, a block per range of
 * rows; cnt: 2 device ints (the ticket, the timeout flag). */
template <typename R>
static ng_status natural_begin(cudaStream_t s, int32_t n, const R *rp, const int32_t *col, const unsigned char *keep,
                               int32_t *color, int *cnt)
{
  ng_status st = NG_SUCCESS;
  unsigned nbg = (unsigned)((n + GREEDY_ROWS - 1) / GREEDY_ROWS);
  E_CHECK(cudaMemsetAsync(color, 0xff, (size_t)n * sizeof(int32_t), s)); /* -1 */
  E_CHECK(cudaMemsetAsync(cnt, 0, 2 * sizeof(int), s));
  k_greedy_natural<R><<<nbg, GREEDY_ROWS, 0, s>>>(n, rp, col, keep, color, (unsigned int *)cnt, cnt + 1);
  E_CHECK(cudaGetLastError());
out:
  return st;
}

/* ... and its end on the context's stream (after the greedy's work there):
 * the number of colors, or, when a wait timed out, the same colors again by
 * JPL rounds with index keys. */
template <typename R>
static ng_status natural_end(ng_context ctx, int32_t n, const R *rp, const int32_t *col, const unsigned char *keep,
                             int32_t *color, int *cnt, int *ncolors)
{
  cudaStream_t s = ctx->cuda->stream;
  int h[2] = {0, 0};
  ng_status st = NG_SUCCESS;
  E_CHECK(cudaMemcpyAsync(h, cnt, sizeof(h), cudaMemcpyDeviceToHost, s));
  E_CHECK(cudaStreamSynchronize(s));
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
                              int order, int32_t *color, int *ncolors)
{
  int *cnt = NULL;
  ng_status st = NG_SUCCESS;
  *ncolors = 0;
  if (n == 0) return NG_SUCCESS;
  if (order != NG_COLOR_NATURAL) return color_jpl<R>(ctx, n, rp, col, keep, order, color, ncolors);
  NG_CHECK(NG_CUDA_TMP(ctx->cuda, cnt, 2));
  st = natural_begin<R>(ctx->cuda->stream, n, rp, col, keep, color, cnt);
  if (st == NG_SUCCESS) st = natural_end<R>(ctx, n, rp, col, keep, color, cnt, ncolors);
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
                                                  int32_t *color, int *cnt, int *ncolors)
{
  *ncolors = 0;
  if (n == 0) return NG_SUCCESS;
  NG_CHECK(natural_end<int32_t>(ctx, n, rp, col, NULL, color, cnt, ncolors));
  return NG_SUCCESS;
}

extern "C" ng_status ng_coloring_cuda_csr(ng_context ctx, int32_t n, const int32_t *rp, const int32_t *col,
                                          const unsigned char *keep, int order, int32_t *color, int *ncolors)
{
  NG_CHECK(color_device<int32_t>(ctx, n, rp, col, keep, order, color, ncolors));
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
  NG_CHECK_GOTO(st, color_device<int64_t>(ctx, n, rp, col, NULL, order, dcolor, ncolors), out);
  {
    cudaError_t e = n ? cudaMemcpyAsync(color, dcolor, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost, s) : cudaSuccess;
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "GPU coloring: downloading the colors failed: %s", cudaGetErrorString(e));
  }
out:
  cudaFree(rp);
  cudaFree(col);
  cudaFree(dcolor);
  return st;
}

extern "C" const ng_coloring_ops ng_coloring_cuda = {"cuda", color_cuda};
