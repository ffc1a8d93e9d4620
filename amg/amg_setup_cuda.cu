/* amg/amg_setup_cuda.cu: the big levels' part of the AMG setup on the
 * GPU (-amg_setup gpu; the finest level, and the next ones while they have
 * at least -amg_gpu_min_rows rows): strength of connection, the deterministic MIS(2)
 * aggregation (the same keys, hash and rounds as amg_aggregate.c, so the
 * aggregates are identical to the host's), the tentative and smoothed P, R =
 * P^T (a stable radix sort of P's entries by column) and the Galerkin product R (A P) by a row-wise
 * SpGEMM with a hash table per warp in shared memory. P and R stay on the
 * device as csr_cuda SpMV tables for the V-cycle and the coarse operator is
 * the next level's input on the device; each coarse operator is also
 * downloaded (the host computes its rho and keeps it for update) and the
 * host code builds the small levels.
 * refresh() recomputes only the values (same aggregates and patterns).
 * A and its strength graph have 64-bit row offsets on every level (the
 * matrix's own in csr_cuda's 64-bit layout, else a widened copy of n + 1
 * offsets), so a finest level past 2^31 - 1 entries (lap27:432, issue 16
 * item 6) is set up here too; P, A P and A_c keep 32-bit offsets (the SpMV
 * tables' layout), and a level whose product passes 2^31 - 1 entries is
 * refused (NG_ERR_UNSUPPORTED) and built on the host.
 * Memory: the temporaries and every level array but A's copies and P's and
 * R's (which the SpMV tables adopt) come stream-ordered from the context's
 * pool (ng_cuda_tmp_malloc / ng_cuda_tmp_free): no cudaMalloc or cudaFree,
 * each a device-wide wait, per array. MIS(2)'s late rounds run over the
 * undecided rows only (k_max1_listed, k_decide_listed). */
#include "cuda_internal.h"
#include "amg.h"
#include <pthread.h>
#include <cub/cub.cuh>
#include <limits.h>
#include <math.h>
#include "amg_kernels_cuda.cuh"
#include "amg_dist_dx.cuh"
#include "amg_gpu_level.h"

/* spmv/csr_cuda.cu: CSR SpMV tables over new device arrays (ng_csr_cuda_adopt: spmv/spmv.h). */
extern "C" ng_status ng_csr_cuda_make(ng_context ctx, int32_t nrows, int32_t ncols, int64_t nnz,
                                      ng_status (*fill)(void *arg, int32_t *rowptr, int32_t *col, double *val),
                                      void *arg, void **data);

#define TPB 256
#define HC 512 /* hash slots per warp (power of two) */
#define HC_SMALL 256 /* the first try: 8 x 256 x 12 bytes = 24 KiB of shared memory per block */
/* A P's first try: a fine row of A P has a few dozen columns (lap27:256: the
 * aggregates of a 5^3 box), and every row clears and compacts the whole
 * table, so 64 slots do a quarter of 256's work there (A P: 56 -> 46 ms
 * at lap27:256 on the H100) */
#define HC_TINY 64
#define WPB 8  /* warps per block in the SpGEMM kernels: 8 x 512 x 12 bytes = 48 KiB of shared memory */


/* -amg_sparsify on the device, the host's ng_amg_sparsify step by step
 * (amg_sparsify.c): |g_ii| (the diagonal entries summed, as ng_csr_diagonal),
 * the kept entries per row, their columns and the map k -> slot (a dropped
 * entry goes to its row's diagonal), then values added in row order, so C
 * equals the host's bit for bit. A warp per row (G's rows are long on the
 * coarse levels: a thread per row took 1.3 ms at 9K rows); the warp's
 * chunks of 32 entries go in row order, kept columns are placed by a ballot
 * prefix, and sums that take several entries (the diagonal's) are added by
 * one lane in row order. */
#define SP_WARP_LOOP(n)                                                                          \
  for (int32_t i = (int32_t)((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32); i < (n);   \
       i += (int32_t)((int64_t)gridDim.x * blockDim.x / 32))
__device__ static unsigned lanes_below() { return (1u << (threadIdx.x & 31)) - 1; }
/* the sum, in row order, of val[k] over row i's entries where pick(k)
 * holds (lane 0's result; 0.0 + each in turn, as the host's loop) */
template <typename Pick>
__device__ static double sp_ordered_sum(int32_t i, const int32_t *rp, const double *val, Pick pick)
{
  double s = 0.0;
  int lane = threadIdx.x & 31;
  for (int32_t k0 = rp[i]; k0 < rp[i + 1]; k0 += 32) {
    int32_t k = k0 + lane;
    bool p = k < rp[i + 1] && pick(k);
    double v = p ? val[k] : 0.0;
    for (unsigned b = __ballot_sync(0xffffffffu, p); b; b &= b - 1) {
      double x = __shfl_sync(0xffffffffu, v, __ffs(b) - 1);
      if (lane == 0) s += x;
    }
  }
  return s;
}
struct sp_col_is {
  const int32_t *col;
  int32_t i;
  __device__ bool operator()(int32_t k) const { return col[k] == i; }
};
struct sp_slot_is {
  const int32_t *smap;
  int32_t slot;
  __device__ bool operator()(int32_t k) const { return smap[k] == slot; }
};
__global__ void k_sp_diag(int32_t n, const int32_t *rp, const int32_t *col, const double *val, double *d)
{
  SP_WARP_LOOP(n) {
    double s = sp_ordered_sum(i, rp, val, sp_col_is{col, i});
    if ((threadIdx.x & 31) == 0) d[i] = fabs(s);
  }
}
__device__ static bool sp_keep(int32_t i, int32_t j, double v, double tau, const double *d)
{
  return j == i || fabs(v) >= __dmul_rn(tau, d[i] < d[j] ? d[i] : d[j]);
}
__global__ void k_sp_count(int32_t n, const int32_t *rp, const int32_t *col, const double *val, const double *d,
                           double tau, int64_t *cnt)
{
  SP_WARP_LOOP(n) {
    int64_t c = 0;
    for (int32_t k0 = rp[i]; k0 < rp[i + 1]; k0 += 32) {
      int32_t k = k0 + (threadIdx.x & 31);
      c += __popc(__ballot_sync(0xffffffffu, k < rp[i + 1] && sp_keep(i, col[k], val[k], tau, d)));
    }
    if ((threadIdx.x & 31) == 0) cnt[i] = c;
  }
}
__global__ void k_sp_fill(int32_t n, const int32_t *rp, const int32_t *col, const double *val, const double *d,
                          double tau, const int32_t *Crp, int32_t *Ccol, int32_t *smap, int *flag)
{
  SP_WARP_LOOP(n) {
    int32_t p = Crp[i], diag = -1;
    for (int32_t k0 = rp[i]; k0 < rp[i + 1]; k0 += 32) {
      int32_t k = k0 + (threadIdx.x & 31);
      bool in = k < rp[i + 1], keep = in && sp_keep(i, col[k], val[k], tau, d);
      unsigned b = __ballot_sync(0xffffffffu, keep), bd = __ballot_sync(0xffffffffu, keep && col[k] == i);
      int32_t at = p + __popc(b & lanes_below());
      if (keep) {
        Ccol[at] = col[k];
        smap[k] = at;
      } else if (in)
        smap[k] = -1;
      if (bd) diag = p + __popc(b & ((1u << (__ffs(bd) - 1)) - 1));
      p += __popc(b);
    }
    if (diag < 0) {
      if ((threadIdx.x & 31) == 0) atomicExch(flag, 1);
      continue;
    }
    for (int32_t k = rp[i] + (threadIdx.x & 31); k < rp[i + 1]; k += 32)
      if (smap[k] < 0) smap[k] = diag; /* this lane's own entries of the pass above */
  }
}
/* a slot with one entry gets 0.0 + it; the diagonal's slot its entries'
 * sum in row order */
__global__ void k_sp_values(int32_t n, const int32_t *rp, const int32_t *col, const double *val, const int32_t *Crp,
                            const int32_t *smap, double *Cval)
{
  SP_WARP_LOOP(n) {
    int32_t diag = -1;
    for (int32_t k0 = rp[i]; k0 < rp[i + 1]; k0 += 32) {
      int32_t k = k0 + (threadIdx.x & 31);
      unsigned bd = __ballot_sync(0xffffffffu, k < rp[i + 1] && col[k] == i);
      if (bd) diag = __shfl_sync(0xffffffffu, k < rp[i + 1] ? smap[k] : -1, __ffs(bd) - 1);
    }
    for (int32_t k = rp[i] + (threadIdx.x & 31); k < rp[i + 1]; k += 32)
      if (smap[k] != diag) Cval[smap[k]] = 0.0 + val[k];
    if (diag >= 0) {
      double s = sp_ordered_sum(i, rp, val, sp_slot_is{smap, diag});
      if ((threadIdx.x & 31) == 0) Cval[diag] = s;
    }
  }
}

/* An update: P's new values into R through rperm (entry k of P is entry rperm[k] of R). */
__global__ void k_rvalues(int64_t nnz, const int32_t *rperm, const double *Pval, double *Rval)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
    Rval[rperm[k]] = Pval[k];
}
/* R = P^T (transpose_p): entry numbers 0..nnz-1, the entries per column of
 * P (R's row lengths), the row of each entry, and R's columns, values and
 * rperm from the entries stably sorted by column */
__global__ void k_iota(int64_t nnz, int32_t *idx)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
    idx[k] = (int32_t)k;
}
__global__ void k_col_count(int64_t nnz, const int32_t *col, int64_t *cnt)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
    atomicAdd((unsigned long long *)&cnt[col[k]], 1ull);
}
__global__ void k_entry_row(int32_t n, const int32_t *rp, int32_t *row)
{
  ROW_LOOP(n) for (int32_t p = rp[i]; p < rp[i + 1]; p++) row[p] = i;
}
__global__ void k_transpose_fill(int64_t nnz, const int32_t *sorted, const int32_t *row, const double *Pval,
                                 int32_t *Rcol, double *Rval, int32_t *rperm)
{
  for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < nnz; j += (int64_t)gridDim.x * blockDim.x) {
    int32_t k = sorted[j];
    Rcol[j] = row[k];
    Rval[j] = Pval[k];
    rperm[k] = (int32_t)j;
  }
}

/* C = A B row by row, one warp per row, its distinct columns in a hash table
 * of H slots in shared memory (linear probing). cnt != NULL: count the
 * columns of each row; else write the row at Crp[row], sorted when sorted,
 * in hash order otherwise. A row with more than H distinct columns sets
 * *overflow (the caller then retries with the bigger table). H = HC_SMALL
 * keeps 8 blocks of 256 threads per SM (24 KiB each); HC only 4. */
template <bool NUMERIC, int H, typename OA>
__global__ void __launch_bounds__(WPB * 32) k_spgemm(int32_t n, const OA *Arp, const int32_t *Acol,
                                                     const double *Aval, const int32_t *Brp, const int32_t *Bcol,
                                                     const double *Bval, int64_t *cnt, const int32_t *Crp,
                                                     int32_t *Ccol, double *Cval, int sorted, int G, int *overflow)
{
  __shared__ int32_t keys[WPB][H];
  __shared__ double vals[NUMERIC ? WPB : 1][NUMERIC ? H : 1];
  int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  int32_t row = blockIdx.x * WPB + w;
  if (row >= n) return; /* whole warps leave together */
  int32_t *K = keys[w];
  double *V = NUMERIC ? vals[w] : NULL;
  for (int s = lane; s < H; s += 32) {
    K[s] = -1;
    if (NUMERIC) V[s] = 0.0;
  }
  __syncwarp();
  /* the warp works on 32 / G entries of A's row at once, G lanes on each
   * one's B row (G = 8 for short B rows such as P's: no idle lanes) */
  int mine = 0, full = 0, sub = lane / G, sl = lane % G;
  if constexpr (NUMERIC) {
    /* values without floating-point atomics (a double's atomicAdd in shared
     * memory is a compare-and-swap loop on sm_90, and the groups' products
     * meet on the same columns: A P's values took twice its pattern's
     * time): the warp's loops are uniform, a B row's columns are distinct,
     * so each group adds its products with plain shared-memory updates,
     * the groups one after another (in a fixed order: the same sums bit
     * for bit from run to run) */
    const int nsub = 32 / G;
    const OA a1 = Arp[row + 1];
    for (OA base = Arp[row]; base < a1; base += nsub) {
      const OA ka = base + sub;
      const bool act = ka < a1;
      const int32_t c = act ? Acol[ka] : 0;
      const double a = act ? Aval[ka] : 0.0;
      const int32_t b0 = act ? Brp[c] : 0, len = act ? Brp[c + 1] - b0 : 0;
      const int32_t most = __reduce_max_sync(0xffffffffu, len);
      for (int32_t t0 = 0; t0 < most; t0 += G) {
        const int32_t t = t0 + sl;
        int h = -1;
        double prod = 0.0;
        if (t < len) {
          const int32_t k = Bcol[b0 + t];
          prod = a * Bval[b0 + t];
          uint32_t hh = ((uint32_t)k * 2654435761u) & (H - 1);
          for (int probe = 0; probe < H; probe++) {
            int32_t old = atomicCAS(&K[hh], -1, k);
            if (old == -1 || old == k) {
              h = (int)hh;
              break;
            }
            hh = (hh + 1) & (H - 1);
          }
          if (h < 0) full = 1;
        }
        for (int g2 = 0; g2 < nsub; g2++) {
          if (sub == g2 && h >= 0) V[h] += prod;
          __syncwarp();
        }
      }
    }
  } else {
    for (OA ka = Arp[row] + sub; ka < Arp[row + 1] && !full; ka += 32 / G) {
      int32_t c = Acol[ka];
      for (int32_t kb = Brp[c] + sl; kb < Brp[c + 1] && !full; kb += G) {
        int32_t k = Bcol[kb];
        uint32_t h = ((uint32_t)k * 2654435761u) & (H - 1);
        int probe = 0;
        for (; probe < H; probe++) {
          int32_t old = atomicCAS(&K[h], -1, k);
          if (old == -1 || old == k) {
            mine += old == -1;
            break;
          }
          h = (h + 1) & (H - 1);
        }
        if (probe == H) full = 1;
      }
    }
  }
  full = __any_sync(0xffffffffu, full);
  __syncwarp();
  if (full) {
    if (lane == 0) atomicExch(overflow, 1);
    return;
  }
  for (int o = 16; o > 0; o /= 2) mine += __shfl_xor_sync(0xffffffffu, mine, o);
  if (!NUMERIC) {
    if (lane == 0) cnt[row] = mine;
    return;
  }
  /* the occupied slots to the front of the table, in slot order (in place:
   * a chunk's slots are read before any of its lanes writes, and writes
   * never pass the chunk being read) */
  int32_t m = 0;
  for (int s0 = 0; s0 < H; s0 += 32) {
    int32_t k = K[s0 + lane];
    double v = V[s0 + lane];
    unsigned b = __ballot_sync(0xffffffffu, k >= 0);
    __syncwarp(); /* every lane's read above before any write below (racecheck) */
    if (k >= 0) {
      int32_t p = m + __popc(b & ((1u << lane) - 1));
      K[p] = k;
      V[p] = v;
    }
    m += __popc(b);
    __syncwarp();
  }
  int32_t base = Crp[row];
  if (sorted) { /* rank = number of smaller keys, over the m occupied ones only */
    for (int s = lane; s < m; s += 32) {
      int32_t k = K[s], rank = 0;
      for (int t = 0; t < m; t++) rank += K[t] < k;
      Ccol[base + rank] = k;
      Cval[base + rank] = V[s];
    }
  } else {
    for (int s = lane; s < m; s += 32) {
      Ccol[base + s] = K[s];
      Cval[base + s] = V[s];
    }
  }
}

/* amg_prolong.c's start_value: keep them equal */
__device__ static double start_value(int32_t i)
{
  uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + 12345;
  x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return 0.5 + (double)(x & 0xffff) / 65536.0;
}

/* s = |a_ii|^-1/2 (the diagonal entries added in row order, GL lanes a row
 * reading it side by side); *bad = the first row with a zero diagonal */
template <typename OA> /* 32-bit row offsets, or the 64-bit layout past 2^31 - 1 entries */
__global__ void k_rho_init_g(int32_t n, const OA *rp, const int32_t *col, const double *val, double *s, int *bad)
{
  GROUP_LOOP(n) {
    unsigned m = group_mask();
    int gl = group_lane();
    double d = 0.0;
    for (OA k0 = rp[i], e = rp[i + 1]; k0 < e; k0 += GL) {
      OA k = k0 + gl;
      bool isd = k < e && col[k] == i;
      double v = isd ? val[k] : 0.0;
      for (unsigned b = group_ballot(m, isd); b; b &= b - 1) d += __shfl_sync(m, v, __ffs(b) - 1, GL);
    }
    if (gl == 0) {
      if (d == 0.0) atomicMin(bad, i);
      s[i] = 1.0 / sqrt(fabs(d));
    }
  }
}
/* the start vector (row i's value by its global row off + i, as the
 * host's), times s when s != NULL */
__global__ void k_rho_start(int32_t n, int32_t off, const double *s, double *t)
{
  ROW_LOOP(n) t[i] = s ? start_value(off + i) * s[i] : start_value(off + i);
}

/* Power iteration for rho(D^-1 A) on the device (amg_prolong.c's
 * ng_amg_spectral_radius with B = D^-1/2 A D^-1/2, s = |a_ii|^-1/2) without
 * host round trips. The iterate is kept as t = s .* v; y = A t comes from
 * k_rho_apply (the level's device CSR, G lanes per row); k_rho_post makes w = s .* y in place and
 * per-block sums of v.v, v.w, w.w over a fixed grid; k_rho_sum adds them in
 * a fixed order (deterministic) and keeps est = |v.w / v.v| and 1/||w||;
 * k_rho_scale sets t = s .* w / ||w||. A zero sum stops the iteration
 * (red[RHO_STOP]) as the host's loop breaks. */
#define RHO_BLOCKS 1024
#define RHO_EST (3 * RHO_BLOCKS)
#define RHO_SCALE (RHO_EST + 1)
#define RHO_STOP (RHO_EST + 2)
#define RHO_RED (RHO_EST + 3)
template <int G>
__global__ void __launch_bounds__(TPB) k_rho_apply(int32_t n, const int32_t *rp, const int32_t *col, const double *val,
                                                   const double *t, double *y, const double *red)
{
  const int per_warp = 32 / G, lane = threadIdx.x % 32;
  const int64_t warp = ((int64_t)blockIdx.x * TPB + threadIdx.x) / 32, nwarps = (int64_t)gridDim.x * TPB / 32;
  if (red[RHO_STOP] != 0.0) return;
  for (int64_t r0 = warp * per_warp; r0 < n; r0 += nwarps * per_warp) { /* uniform per warp */
    int32_t i = (int32_t)(r0 + lane / G);
    double sum = 0;
    if (i < n)
      for (int32_t k = rp[i] + lane % G; k < rp[i + 1]; k += G) sum += val[k] * t[col[k]];
    for (int o = G / 2; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (i < n && lane % G == 0) y[i] = sum;
  }
}
__global__ void __launch_bounds__(TPB) k_rho_post(int32_t n, const double *s, const double *t, double *w, double *red)
{
  typedef cub::BlockReduce<double, TPB> BR;
  __shared__ typename BR::TempStorage tmp;
  double vv = 0, vw = 0, ww = 0;
  if (red[RHO_STOP] == 0.0)
    for (int32_t i = blockIdx.x * TPB + threadIdx.x; i < n; i += RHO_BLOCKS * TPB) {
      double si = s[i], vi = t[i] / si, wi = si * w[i];
      w[i] = wi;
      vv += vi * vi;
      vw += vi * wi;
      ww += wi * wi;
    }
  double a = BR(tmp).Sum(vv);
  __syncthreads();
  double b = BR(tmp).Sum(vw);
  __syncthreads();
  double c = BR(tmp).Sum(ww);
  if (threadIdx.x == 0) {
    red[3 * blockIdx.x] = a;
    red[3 * blockIdx.x + 1] = b;
    red[3 * blockIdx.x + 2] = c;
  }
}
__global__ void __launch_bounds__(TPB) k_rho_sum(double *red)
{
  typedef cub::BlockReduce<double, TPB> BR;
  __shared__ typename BR::TempStorage tmp;
  double x[3] = {0, 0, 0};
  for (int b = threadIdx.x; b < RHO_BLOCKS; b += TPB)
    for (int q = 0; q < 3; q++) x[q] += red[3 * b + q];
  for (int q = 0; q < 3; q++) {
    double t = BR(tmp).Sum(x[q]);
    __syncthreads();
    if (threadIdx.x == 0) x[q] = t;
  }
  if (threadIdx.x == 0 && red[RHO_STOP] == 0.0) {
    if (!(x[2] > 0) || !(x[0] > 0)) red[RHO_STOP] = 1.0;
    else {
      red[RHO_EST] = fabs(x[1] / x[0]);
      red[RHO_SCALE] = 1.0 / sqrt(x[2]);
    }
  }
}
__global__ void k_rho_scale(int32_t n, const double *s, const double *w, double *t, const double *red)
{
  if (red[RHO_STOP] != 0.0) return;
  double c = red[RHO_SCALE];
  ROW_LOOP(n) t[i] = s[i] * (w[i] * c);
}

/* dinv = omega / a_ii (the host's summation order): the smoother's diagonal */
__global__ void k_dinv(int32_t n, const int64_t *rp, const int32_t *col, const double *val, double omega, double *dinv,
                       int *flag)
{
  ROW_LOOP(n) {
    double d = 0.0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      if (col[k] == i) d += val[k];
    if (d == 0.0) atomicExch(flag, 1);
    dinv[i] = omega / d;
  }
}


/* ---- host side ------------------------------------------------------------ */

/* NG_AMG_TRACE=1: each step of the GPU setup waits for the device and prints
 * its milliseconds on stderr (a profiling aid for machines without Nsight;
 * the waits make the whole setup slower, so bench/amg's phases are run without) */
static void trace(amg_gpu *g, const char *what, double *t)
{
  if (!ng_amg_trace_on()) return;
  cudaStreamSynchronize(g->ctx->cuda->stream);
  double now = ng_wtime();
  fprintf(stderr, "[amg trace] n %d %s %.2f ms\n", (int)g->n, what, 1e3 * (now - *t));
  *t = now;
}


/* Exclusive scan of cnt (n entries, int64) into new 64-bit offsets *out
 * (n + 1); *total receives the sum. */
static ng_status scan_offsets64(amg_gpu *g, int64_t *cnt, int32_t n, int64_t **out, int64_t *total, const char *what)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int64_t *pos = NULL;
  void *tmp = NULL;
  size_t tb = 0;
  ng_status st = NG_SUCCESS;
  *out = NULL;
  NG_CHECK(NG_CUDA_TMP(cu, pos, (size_t)n + 1)); /* the caller frees it with ng_cuda_tmp_free */
#define SCAN_CHECK(call)                                                                          \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: %s of %s failed: %s", #call, what, cudaGetErrorString(e_)); \
      goto out;                                                                                   \
    }                                                                                             \
  } while (0)
  SCAN_CHECK(cudaMemsetAsync(cnt + n, 0, sizeof(int64_t), cu->stream));
  SCAN_CHECK(cub::DeviceScan::ExclusiveSum(NULL, tb, cnt, pos, n + 1, cu->stream));
  NG_CHECK_GOTO(st, ng_cuda_tmp_malloc(cu, &tmp, tb ? tb : 1, "AMG scan buffer"), out);
  SCAN_CHECK(cub::DeviceScan::ExclusiveSum(tmp, tb, cnt, pos, n + 1, cu->stream));
  SCAN_CHECK(cudaMemcpyAsync(total, pos + n, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream));
  SCAN_CHECK(cudaStreamSynchronize(cu->stream));
#undef SCAN_CHECK
out:
  ng_cuda_tmp_free(cu, tmp);
  if (st == NG_SUCCESS) *out = pos;
  else ng_cuda_tmp_free(cu, pos);
  return st;
}

/* The same into a new 32-bit rowptr (P, A P, A_c: the SpMV tables' and
 * cuSPARSE's layout); NG_ERR_UNSUPPORTED past 2^31 - 1 entries. */
static ng_status scan_rowptr(amg_gpu *g, int64_t *cnt, int32_t n, int32_t **rp, int64_t *total, const char *what,
                             int pooled)
{
  int64_t *pos = NULL;
  ng_status st = NG_SUCCESS;
  *rp = NULL;
  NG_CHECK(scan_offsets64(g, cnt, n, &pos, total, what));
  if (*total > INT32_MAX)
    st = NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU setup: %s has %lld entries, more than 32-bit indices hold", what,
                  (long long)*total);
  if (st == NG_SUCCESS)
    st = pooled ? ng_cuda_tmp_malloc(g->ctx->cuda, (void **)rp, ((size_t)n + 1) * sizeof(int32_t), what)
                : ng_cuda_malloc((void **)rp, ((size_t)n + 1) * sizeof(int32_t), what);
  if (st == NG_SUCCESS) {
    k_narrow<<<blocks(n + 1), TPB, 0, g->ctx->cuda->stream>>>(n, pos, *rp);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: narrowing the offsets of %s failed: %s", what, cudaGetErrorString(e));
  }
  ng_cuda_tmp_free(g->ctx->cuda, pos); /* after k_narrow, in the stream's order */
  return st;
}

static ng_status read_flag(amg_gpu *g, int *v)
{
  struct ng_cuda *cu = g->ctx->cuda;
  NG_CUDA_CHECK(cudaMemcpyAsync(v, g->flag, sizeof(int), cudaMemcpyDeviceToHost, cu->stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(cu->stream));
  return NG_SUCCESS;
}

/* A's 64-bit row offsets from a 32-bit device array (once: the pattern
 * does not change on update). */
static ng_status widen_offsets(amg_gpu *g, const int32_t *rp)
{
  if (g->own_rp) return NG_SUCCESS;
  NG_CHECK(NG_CUDA_MALLOC(g->own_rp, (size_t)g->n + 1));
  k_widen<<<blocks((int64_t)g->n + 1), TPB, 0, g->ctx->cuda->stream>>>(g->n, rp, g->own_rp);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

/* Device CSR of the finest A: the matrix's own csr_cuda arrays (their
 * 64-bit offsets, or 32-bit ones widened), else a copy. */
static ng_status device_matrix(amg_gpu *g, ng_matrix A, int refresh)
{
  struct ng_cuda *cu = g->ctx->cuda;
  const ng_csr *H = &A->local;
  int32_t *rp, *col;
  int64_t *rp64;
  double *val;
  if (!g->own_val && ng_csr_cuda_arrays64(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp64, &col, &val) == NG_SUCCESS) {
    g->Arp = rp64;
    g->Acol = col;
    g->Aval = val;
    return NG_SUCCESS;
  }
  if (!g->own_val && ng_csr_cuda_arrays(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp, &col, &val) == NG_SUCCESS) {
    NG_CHECK(widen_offsets(g, rp));
    g->Arp = g->own_rp;
    g->Acol = col;
    g->Aval = val;
    return NG_SUCCESS;
  }
  if (!refresh) {
    NG_CHECK(NG_CUDA_MALLOC(g->own_rp, (size_t)g->n + 1));
    NG_CHECK(NG_CUDA_MALLOC(g->own_col, H->nnz ? H->nnz : 1));
    NG_CHECK(NG_CUDA_MALLOC(g->own_val, H->nnz ? H->nnz : 1));
    NG_CUDA_CHECK(cudaMemcpy(g->own_rp, H->rowptr, ((size_t)g->n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
    NG_CUDA_CHECK(cudaMemcpy(g->own_col, H->col, (size_t)H->nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
  }
  NG_CUDA_CHECK(cudaMemcpyAsync(g->own_val, H->val, (size_t)H->nnz * sizeof(double), cudaMemcpyHostToDevice, cu->stream));
  g->Arp = g->own_rp;
  g->Acol = g->own_col;
  g->Aval = g->own_val;
  return NG_SUCCESS;
}

/* MIS(2)'s undecided count: zeroed before a round, read after it (the read
 * waits for the round). */
static ng_status zero_count(struct ng_cuda *cu, int *dund)
{
  if (cudaMemsetAsync(dund, 0, sizeof(int), cu->stream) != cudaSuccess)
    return NG_ERROR(NG_ERR_CUDA, "AMG GPU aggregation: resetting the undecided count failed");
  return NG_SUCCESS;
}
static ng_status read_count(struct ng_cuda *cu, const int *dund, int *undecided)
{
  if (cudaMemcpyAsync(undecided, dund, sizeof(int), cudaMemcpyDeviceToHost, cu->stream) != cudaSuccess ||
      cudaStreamSynchronize(cu->stream) != cudaSuccess)
    return NG_ERROR(NG_ERR_CUDA, "AMG GPU aggregation: reading the undecided count failed");
  return NG_SUCCESS;
}

/* Strength graph on the device and MIS(2) aggregation: agg on the device
 * only (ng_amg_gpu_aggregates copies it to L->agg when the host needs it:
 * a copy into fresh pageable memory cost 50 ms at 256^3, page faults mostly). */
static ng_status aggregate(amg_gpu *g, ng_amg *M, ng_amg_level *L, double theta)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int32_t n = g->n, *Scol = NULL, *step = NULL;
  int64_t *Srp = NULL; /* 64-bit: S has as many entries as A */
  int64_t *cnt = NULL, nnzS = 0, total = 0;
  double *s = NULL;
  uint64_t *T = NULL, *M1 = NULL, *M2 = NULL;
  int bad = 0, undecided = 0, *dund = NULL;
  ng_status st = NG_SUCCESS;
  double tt = ng_wtime();
  int rounds = 0;
#define K_CHECK() NG_CHECK_GOTO(st, cudaGetLastError() == cudaSuccess ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "AMG GPU aggregation kernel failed: %s", cudaGetErrorString(cudaGetLastError())), out)
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, s, n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, cnt, (size_t)n + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, dund, 1), out);
  k_sqrt_diag_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->Aval, s, g->flag);
  K_CHECK();
  NG_CHECK_GOTO(st, read_flag(g, &bad), out);
  if (bad) {
    st = NG_ERROR(NG_ERR_NUMERIC, "AMG: the finest matrix has a zero or missing diagonal entry");
    goto out;
  }
  trace(g, "aggregate: sqrt diagonal", &tt);
  k_strength_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->Aval, s, theta, M->strength_signed, cnt, NULL, NULL);
  K_CHECK();
  NG_CHECK_GOTO(st, scan_offsets64(g, cnt, n, &Srp, &nnzS, "the strength graph"), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, Scol, nnzS ? nnzS : 1), out);
  trace(g, "aggregate: strength count, scan, alloc", &tt);
  k_strength_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->Aval, s, theta, M->strength_signed, NULL, Srp, Scol);
  K_CHECK();
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, T, n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, M1, n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, M2, n), out);
  k_init_keys<<<blocks(n), TPB, 0, cu->stream>>>(n, 0, Srp, T);
  K_CHECK();
  trace(g, "aggregate: strength fill, key alloc", &tt);
  /* the host's rounds, the same decisions: over every row, then, once few
   * are undecided, over a list of those only (cnt, free until the
   * numbering, holds the list and the next one) */
  for (int round = 0, listed = 0, nu = 0;; round++) {
    int32_t *list = (int32_t *)cnt + (round & 1) * (int64_t)n, *next = (int32_t *)cnt + (~round & 1) * (int64_t)n;
    NG_CHECK_GOTO(st, zero_count(cu, dund), out);
    if (!listed) {
      k_max_neighbours_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, Srp, Scol, T, M1);
      k_max_neighbours_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, Srp, Scol, M1, M2);
      k_decide<<<blocks(n), TPB, 0, cu->stream>>>(n, 0, T, M2, dund);
    } else {
      k_max1_listed<<<blocks((int64_t)nu * GL), TPB, 0, cu->stream>>>(nu, list, Srp, Scol, T, M1);
      k_decide_listed<<<blocks((int64_t)nu * GL), TPB, 0, cu->stream>>>(nu, list, Srp, Scol, M1, T, next, dund);
    }
    K_CHECK();
    NG_CHECK_GOTO(st, read_count(cu, dund, &undecided), out);
    if (!undecided) break;
    rounds++;
    if (round > n) {
      st = NG_ERROR(NG_ERR_INTERNAL, "MIS(2) aggregation did not finish after %d rounds", round);
      goto out;
    }
    if (!listed && (double)undecided * ((double)nnzS / n + 1.0) <= (double)n) {
      NG_CHECK_GOTO(st, zero_count(cu, dund), out); /* the next round's list: the undecided rows */
      k_list_undecided<<<blocks(n), TPB, 0, cu->stream>>>(n, T, next, dund);
      K_CHECK();
      listed = 1;
    }
    nu = undecided;
  }
  /* roots numbered in index order, then the two joining steps, then leftovers */
  if (ng_amg_trace_on()) {
    char what[64];
    snprintf(what, sizeof(what), "aggregate: MIS(2), %d rounds", rounds + 1);
    trace(g, what, &tt);
  }
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, g->agg, n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, step, n), out);
  k_is_root<<<blocks(n), TPB, 0, cu->stream>>>(n, T, cnt);
  K_CHECK();
  {
    /* positions by a scan of the flags (M1 is free: it holds them) */
    void *tmp = NULL;
    size_t tb = 0;
    int64_t *pos = (int64_t *)M1, last[2] = {0, 0}, extra[2] = {0, 0};
    cudaError_t e = cub::DeviceScan::ExclusiveSum(NULL, tb, cnt, pos, n, cu->stream);
    if (e == cudaSuccess) {
      st = ng_cuda_tmp_malloc(cu, &tmp, tb ? tb : 1, "AMG scan buffer");
      if (st != NG_SUCCESS) goto out;
      e = cub::DeviceScan::ExclusiveSum(tmp, tb, cnt, pos, n, cu->stream);
    }
    if (e == cudaSuccess && n > 0) e = cudaMemcpyAsync(last, pos + n - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream);
    if (e == cudaSuccess && n > 0) e = cudaMemcpyAsync(last + 1, cnt + n - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream);
    if (e == cudaSuccess) {
      k_number_roots<<<blocks(n), TPB, 0, cu->stream>>>(n, T, pos, g->agg);
      k_step_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, Srp, Scol, T, g->agg, step);
      k_join_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, Srp, Scol, step, g->agg);
      k_is_leftover<<<blocks(n), TPB, 0, cu->stream>>>(n, Srp, g->agg, cnt);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream); /* last[] is read below */
    total = last[0] + last[1];
    if (e == cudaSuccess) e = cub::DeviceScan::ExclusiveSum(tmp, tb, cnt, pos, n, cu->stream);
    if (e == cudaSuccess) {
      k_number_leftover<<<blocks(n), TPB, 0, cu->stream>>>(n, Srp, pos, (int32_t)total, g->agg);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess && n > 0) e = cudaMemcpyAsync(extra, pos + n - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream);
    if (e == cudaSuccess && n > 0) e = cudaMemcpyAsync(extra + 1, cnt + n - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream);
    ng_cuda_tmp_free(cu, tmp);
    if (e != cudaSuccess) {
      st = NG_ERROR(NG_ERR_CUDA, "AMG GPU aggregation failed: %s", cudaGetErrorString(e));
      goto out;
    }
    L->nagg = g->nagg = (int32_t)(total + extra[0] + extra[1]);
  }
#undef K_CHECK
  trace(g, "aggregate: numbering", &tt);
out:
  /* -amg_filter: P's values test strength with the same sqrt |a_ii| */
  if (st == NG_SUCCESS && M->filter && theta > 0 && !g->sd) {
    g->sd = s;
    g->sd_fresh = 1;
    s = NULL;
  }
  ng_cuda_tmp_free(cu, s);
  ng_cuda_tmp_free(cu, cnt);
  ng_cuda_tmp_free(cu, dund);
  ng_cuda_tmp_free(cu, Srp);
  ng_cuda_tmp_free(cu, Scol);
  ng_cuda_tmp_free(cu, T);
  ng_cuda_tmp_free(cu, M1);
  ng_cuda_tmp_free(cu, M2);
  ng_cuda_tmp_free(cu, step);
  trace(g, "aggregate: frees", &tt);
  return st;
}

/* One pass of k_spgemm with the table size *hc (HC_SMALL or HC). */
template <typename OA>
static void spgemm_launch(amg_gpu *g, bool numeric, int hc, int G, int nb, int32_t n, const OA *Arp, const int32_t *Acol,
                          const double *Aval, const int32_t *Brp, const int32_t *Bcol, const double *Bval, int64_t *cnt,
                          const int32_t *Crp, int32_t *Ccol, double *Cval, int sorted)
{
  cudaStream_t s = g->ctx->cuda->stream;
  if (numeric && hc == HC_TINY)
    k_spgemm<true, HC_TINY, OA><<<nb, WPB * 32, 0, s>>>(n, Arp, Acol, Aval, Brp, Bcol, Bval, cnt, Crp, Ccol, Cval, sorted, G, g->flag);
  else if (!numeric && hc == HC_TINY)
    k_spgemm<false, HC_TINY, OA><<<nb, WPB * 32, 0, s>>>(n, Arp, Acol, Aval, Brp, Bcol, Bval, cnt, Crp, Ccol, Cval, sorted, G, g->flag);
  else if (numeric && hc == HC_SMALL)
    k_spgemm<true, HC_SMALL, OA><<<nb, WPB * 32, 0, s>>>(n, Arp, Acol, Aval, Brp, Bcol, Bval, cnt, Crp, Ccol, Cval, sorted, G, g->flag);
  else if (numeric)
    k_spgemm<true, HC, OA><<<nb, WPB * 32, 0, s>>>(n, Arp, Acol, Aval, Brp, Bcol, Bval, cnt, Crp, Ccol, Cval, sorted, G, g->flag);
  else if (hc == HC_SMALL)
    k_spgemm<false, HC_SMALL, OA><<<nb, WPB * 32, 0, s>>>(n, Arp, Acol, Aval, Brp, Bcol, Bval, cnt, Crp, Ccol, Cval, sorted, G, g->flag);
  else
    k_spgemm<false, HC, OA><<<nb, WPB * 32, 0, s>>>(n, Arp, Acol, Aval, Brp, Bcol, Bval, cnt, Crp, Ccol, Cval, sorted, G, g->flag);
}

/* C = A B on the device (pattern when *Crp is NULL, then values). The
 * pattern pass tries the table of `first` slots (A P: the tiny one), then the bigger ones, and keeps in *hc the size
 * that held every row; the value passes (setup and update) use it, so the
 * unsorted A P keeps one column order. */
template <typename OA> /* A's row offsets: 64-bit for the level's A, 32-bit for R and the triple's operands */
static ng_status spgemm(amg_gpu *g, int32_t n, const OA *Arp, const int32_t *Acol, const double *Aval,
                        const int32_t *Brp, const int32_t *Bcol, const double *Bval, int32_t **Crp, int32_t **Ccol,
                        double **Cval, int64_t *nnz, int sorted, int *hc, int32_t nrowsB, int64_t nnzB,
                        const char *what, int first = HC_SMALL)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int over = 0;
  /* lanes per B row: B's mean row length rounded up to 8, 16 or 32 */
  int G = nnzB <= 8 * (int64_t)nrowsB ? 8 : nnzB <= 16 * (int64_t)nrowsB ? 16 : 32;
  int nb = (int)(((int64_t)n + WPB - 1) / WPB);
  if (nb == 0) nb = 1;
  int had_pattern = *Crp != NULL;
  if (!had_pattern) {
    int64_t *cnt = NULL;
    ng_status st = NG_SUCCESS;
    NG_CHECK(NG_CUDA_TMP(cu, cnt, (size_t)n + 1));
    *hc = first;
    for (;;) {
      spgemm_launch(g, false, *hc, G, nb, n, Arp, Acol, Aval, Brp, Bcol, Bval, cnt, NULL, NULL, NULL, sorted);
      st = cudaGetLastError() == cudaSuccess ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "AMG GPU SpGEMM kernel failed");
      if (st == NG_SUCCESS) st = read_flag(g, &over);
      if (st != NG_SUCCESS || !over || *hc == HC) break;
      *hc = *hc == HC_TINY ? HC_SMALL : HC; /* a row longer than the table: again with the next one */
      if (cudaMemsetAsync(g->flag, 0, sizeof(int), cu->stream) != cudaSuccess)
        st = NG_ERROR(NG_ERR_CUDA, "AMG GPU SpGEMM: resetting the overflow flag failed");
      if (st != NG_SUCCESS) break;
    }
    if (st == NG_SUCCESS && over)
      st = NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU setup: a row of %s has more than %d columns", what, HC);
    if (st == NG_SUCCESS) st = scan_rowptr(g, cnt, n, Crp, nnz, what, 1);
    ng_cuda_tmp_free(cu, cnt);
    NG_CHECK(st);
    NG_CHECK(NG_CUDA_TMP(cu, *Ccol, *nnz ? *nnz : 1));
    NG_CHECK(NG_CUDA_TMP(cu, *Cval, *nnz ? *nnz : 1));
  }
  spgemm_launch(g, true, *hc, G, nb, n, Arp, Acol, Aval, Brp, Bcol, Bval, NULL, *Crp, *Ccol, *Cval, sorted);
  NG_CUDA_LAUNCH_CHECK();
  /* update: the same pattern in the same table cannot overflow; the caller
   * reads the flag once after both products instead of waiting here */
  if (had_pattern) return NG_SUCCESS;
  NG_CHECK(read_flag(g, &over));
  if (over) return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU setup: a row of %s has more than %d columns", what, *hc);
  return NG_SUCCESS;
}

/* P (pattern unless refresh, values), R = P^T, A P, R (A P); A_c to the host. */
/* -amg_sparsify tau (setup): C, its pattern and the map from G (kernels
 * above); the values follow in sparsify_values. */
static ng_status sparsify_setup(amg_gpu *g, double tau)
{
  cudaStream_t s = g->ctx->cuda->stream;
  int32_t n = g->nagg;
  double *d = NULL;
  int64_t *cnt = NULL;
  int bad = 0;
  ng_status st = NG_CUDA_TMP(g->ctx->cuda, d, n ? n : 1);
  if (st == NG_SUCCESS) st = NG_CUDA_TMP(g->ctx->cuda, cnt, (size_t)n + 1);
  if (st == NG_SUCCESS) {
    k_sp_diag<<<blocks((int64_t)n * 32), TPB, 0, s>>>(n, g->Grp, g->Gcol, g->Gval, d);
    k_sp_count<<<blocks((int64_t)n * 32), TPB, 0, s>>>(n, g->Grp, g->Gcol, g->Gval, d, tau, cnt);
    if (cudaGetLastError() != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU sparsify: the count kernels failed");
  }
  if (st == NG_SUCCESS) st = scan_rowptr(g, cnt, n, &g->Crp, &g->nnzC, "the sparsified coarse operator", 1);
  if (st == NG_SUCCESS) st = NG_CUDA_TMP(g->ctx->cuda, g->Ccol, g->nnzC ? g->nnzC : 1);
  if (st == NG_SUCCESS) st = NG_CUDA_TMP(g->ctx->cuda, g->Cval, g->nnzC ? g->nnzC : 1);
  if (st == NG_SUCCESS) st = NG_CUDA_TMP(g->ctx->cuda, g->smap, g->nnzG ? g->nnzG : 1);
  if (st == NG_SUCCESS) {
    k_sp_fill<<<blocks((int64_t)n * 32), TPB, 0, s>>>(n, g->Grp, g->Gcol, g->Gval, d, tau, g->Crp, g->Ccol, g->smap, g->flag);
    if (cudaGetLastError() != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU sparsify: the fill kernel failed");
  }
  if (st == NG_SUCCESS) st = read_flag(g, &bad);
  if (st == NG_SUCCESS && bad)
    st = NG_ERROR(NG_ERR_NUMERIC, "AMG: a coarse row has no diagonal entry to lump dropped entries into");
  ng_cuda_tmp_free(g->ctx->cuda, d);
  ng_cuda_tmp_free(g->ctx->cuda, cnt);
  return st;
}

static ng_status sparsify_values(amg_gpu *g)
{
  k_sp_values<<<blocks((int64_t)g->nagg * 32), TPB, 0, g->ctx->cuda->stream>>>(g->nagg, g->Grp, g->Gcol, g->Gval, g->Crp,
                                                                               g->smap, g->Cval);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

/* R = P^T with its rows sorted (R's row offsets, columns and values, and
 * rperm for the updates), without cuSPARSE: its csr2csc cost about 30 ms at
 * its first call in a process (a cold setup's whole R = P^T at lap7:128).
 * P's entry numbers, in P's row order, are sorted by column with a radix
 * sort, which is stable: within each column (a row of R) the entries stay in
 * P's row order, so R's columns come out ascending, as the host's. */
static ng_status transpose_p(amg_gpu *g)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int32_t n = g->n, nagg = g->nagg, *keys = NULL, *idx = NULL, *sorted = NULL, *row = NULL;
  int64_t nnz = g->nnzP, *cnt = NULL, total = 0;
  void *tmp = NULL;
  size_t tb = 0;
  int bits = 1;
  ng_status st = NG_SUCCESS;
  cudaError_t e = cudaSuccess;
  while (bits < 31 && ((int64_t)1 << bits) < nagg) bits++;
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, cnt, (size_t)nagg + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, g->rperm, nnz ? nnz : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, keys, nnz ? nnz : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, idx, nnz ? nnz : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, sorted, nnz ? nnz : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, row, nnz ? nnz : 1), out);
  e = cudaMemsetAsync(cnt, 0, ((size_t)nagg + 1) * sizeof(int64_t), cu->stream);
  if (e == cudaSuccess && nnz) {
    k_col_count<<<blocks(nnz), TPB, 0, cu->stream>>>(nnz, g->Pcol, cnt);
    k_iota<<<blocks(nnz), TPB, 0, cu->stream>>>(nnz, idx);
    k_entry_row<<<blocks(n), TPB, 0, cu->stream>>>(n, g->Prp, row);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cub::DeviceRadixSort::SortPairs(NULL, tb, g->Pcol, keys, idx, sorted, (int)nnz, 0, bits, cu->stream);
    if (e == cudaSuccess) {
      st = ng_cuda_tmp_malloc(cu, &tmp, tb ? tb : 1, "AMG transpose sort buffer");
      if (st != NG_SUCCESS) goto out;
      e = cub::DeviceRadixSort::SortPairs(tmp, tb, g->Pcol, keys, idx, sorted, (int)nnz, 0, bits, cu->stream);
    }
  }
  if (e != cudaSuccess) {
    st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: sorting P's entries for R = P^T failed: %s", cudaGetErrorString(e));
    goto out;
  }
  NG_CHECK_GOTO(st, scan_rowptr(g, cnt, nagg, &g->Rrp, &total, "the restriction", 0), out);
  if (total != nnz) {
    st = NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: R = P^T has %lld entries, P %lld", (long long)total, (long long)nnz);
    goto out;
  }
  if (nnz) {
    k_transpose_fill<<<blocks(nnz), TPB, 0, cu->stream>>>(nnz, sorted, row, g->Pval, g->Rcol, g->Rval, g->rperm);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream);
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: R = P^T failed: %s", cudaGetErrorString(e));
  }
out:
  ng_cuda_tmp_free(cu, tmp); /* after the stream's work on them */
  ng_cuda_tmp_free(cu, cnt);
  ng_cuda_tmp_free(cu, keys);
  ng_cuda_tmp_free(cu, idx);
  ng_cuda_tmp_free(cu, sorted);
  ng_cuda_tmp_free(cu, row);
  return st;
}

/* g's coarse operator into the host CSR C->A: the whole matrix (whole: its
 * pattern too, C->A allocated here) or its values only; C->host_stale = 0. */
static ng_status host_copy(amg_gpu *g, ng_amg_level *C, int whole)
{
  cudaStream_t s = g->ctx->cuda->stream;
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  if (whole) {
    int32_t *h = NULL;
    NG_CHECK(ng_csr_alloc(&C->A, g->nagg, g->nagg, g->nnzC));
    /* fresh pages fault one by one inside a pageable copy (85 ms for A_c
     * at lap27:256): touch them first, on all threads */
    ng_host_prefault(C->A.col, (size_t)g->nnzC * sizeof(int32_t));
    ng_host_prefault(C->A.val, (size_t)g->nnzC * sizeof(double));
    NG_CHECK(NG_MALLOC(h, (size_t)g->nagg + 1));
    cudaError_t e = cudaMemcpy(h, g->Crp, ((size_t)g->nagg + 1) * sizeof(int32_t), cudaMemcpyDeviceToHost);
    for (int32_t i = 0; e == cudaSuccess && i <= g->nagg; i++) C->A.rowptr[i] = h[i];
    ng_free(h);
    if (e != cudaSuccess)
      return NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: downloading A_c's row offsets failed: %s", cudaGetErrorString(e));
    if (g->nnzC) NG_CUDA_CHECK(cudaMemcpy(C->A.col, g->Ccol, (size_t)g->nnzC * sizeof(int32_t), cudaMemcpyDeviceToHost));
  }
  if (g->nnzC) NG_CUDA_CHECK(cudaMemcpy(C->A.val, g->Cval, (size_t)g->nnzC * sizeof(double), cudaMemcpyDeviceToHost));
  C->host_stale = 0;
  return NG_SUCCESS;
}

/* g->pgroup: the lanes a row of k_prow, 16 or 32, the fewer that hold the
 * longest row of A; 0 (the lane-a-row kernels) past 32 entries or up to 8. */
static ng_status prow_group(amg_gpu *g)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int *d = NULL, len = 0;
  NG_CHECK(NG_CUDA_TMP(cu, d, 1));
  cudaError_t e = cudaMemsetAsync(d, 0, sizeof(int), cu->stream);
  if (e == cudaSuccess && g->n) {
    k_max_row<<<blocks(g->n), TPB, 0, cu->stream>>>(g->n, g->Arp, d);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&len, d, sizeof(int), cudaMemcpyDeviceToHost, cu->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream);
  ng_cuda_tmp_free(cu, d);
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: the longest row of A: %s", cudaGetErrorString(e));
  /* rows of at most 8 (lap7) are read well enough a lane a row: the group's
   * ballots and shuffles cost more there (prolong 24 against 20 ms at lap7:256) */
  g->pgroup = len <= 8 ? 0 : len <= 16 ? 16 : len <= 32 ? 32 : 0;
  return NG_SUCCESS;
}

/* k_prow<g->pgroup> over A's rows (mode: 0 counts into cnt, 1 columns and
 * values, 2 values) */
static ng_status prow_launch(amg_gpu *g, int mode, double omega, const double *sd, double f, int sgn, int64_t *cnt)
{
  cudaStream_t s = g->ctx->cuda->stream;
  int nb = blocks((int64_t)g->n * g->pgroup);
#define PROW(G)                                                                                  \
  k_prow<G><<<nb, TPB, 0, s>>>(mode, g->n, g->Arp, g->Acol, g->Aval, g->agg, g->ptent, omega, sd, f, sgn, g->lump, cnt, \
                               g->Prp, g->Pcol, g->Pval, g->flag)
  if (g->pgroup == 8) PROW(8);
  else if (g->pgroup == 16) PROW(16);
  else PROW(32);
#undef PROW
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG GPU prolongator kernel failed: %s", cudaGetErrorString(e));
  return NG_SUCCESS;
}

/* part 1: P and R; part 2: the products (A P, R (A P), sparsification) and
 * A_c's host copy; 3 both. The uncoupled distributed level runs part 2 on
 * a thread of its own while the host makes the off-rank block
 * (ng_amg_gpu_products_start). */
static ng_status transfer(amg_gpu *g, ng_amg *M, ng_amg_level *L, ng_amg_level *C, int refresh, double filter, int part)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int32_t n = g->n;
  int bad = 0;
  double omega_p = 4.0 / (3.0 * L->s.rho), t = ng_wtime();
  double tt = t;
  if (part & 1) {
    if (!refresh) {
      int32_t *size = NULL, *scratch = NULL;
      int64_t *cnt = NULL;
      ng_status st = NG_SUCCESS;
      NG_CHECK(NG_CUDA_TMP(cu, g->ptent, n));
      NG_CHECK(prow_group(g));
      NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, size, g->nagg ? g->nagg : 1), tfail);
      NG_CHECK_GOTO(st, cudaMemsetAsync(size, 0, (size_t)g->nagg * sizeof(int32_t), cu->stream) == cudaSuccess ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "cudaMemsetAsync failed"), tfail);
      k_agg_size<<<blocks(n), TPB, 0, cu->stream>>>(n, g->agg, size);
      k_ptent<<<blocks(n), TPB, 0, cu->stream>>>(n, g->agg, size, g->ptent);
      NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, cnt, (size_t)n + 1), tfail);
      if (g->pgroup) { /* the counts only; columns and values below in one pass */
        NG_CHECK_GOTO(st, prow_launch(g, 0, omega_p, NULL, 0.0, M->strength_signed, cnt), tfail);
      } else {
        NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, scratch, g->nnzA ? g->nnzA : 1), tfail);
        k_ppattern<<<blocks(n), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->agg, scratch, cnt, NULL, NULL);
      }
      NG_CHECK_GOTO(st, cudaGetLastError() == cudaSuccess ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "AMG GPU P pattern kernel failed"), tfail);
      NG_CHECK_GOTO(st, scan_rowptr(g, cnt, n, &g->Prp, &g->nnzP, "the prolongator", 0), tfail);
      NG_CHECK_GOTO(st, NG_CUDA_MALLOC(g->Pcol, g->nnzP ? g->nnzP : 1), tfail);
      NG_CHECK_GOTO(st, NG_CUDA_MALLOC(g->Pval, g->nnzP ? g->nnzP : 1), tfail);
      if (!g->pgroup)
        k_ppattern<<<blocks(n), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->agg, scratch, NULL, g->Prp, g->Pcol);
      NG_CHECK_GOTO(st, cudaGetLastError() == cudaSuccess ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "AMG GPU P pattern kernel failed"), tfail);
      NG_CHECK_GOTO(st, NG_CUDA_MALLOC(g->Rcol, g->nnzP ? g->nnzP : 1), tfail);
      NG_CHECK_GOTO(st, NG_CUDA_MALLOC(g->Rval, g->nnzP ? g->nnzP : 1), tfail);
    tfail: /* freed in the stream's order, after the kernels above */
      ng_cuda_tmp_free(cu, size);
      ng_cuda_tmp_free(cu, scratch);
      ng_cuda_tmp_free(cu, cnt);
      NG_CHECK(st);
    }
    trace(g, "transfer: P pattern", &tt);
    if (filter > 0) { /* -amg_filter: sqrt |a_ii| for the filter's strength test */
      if (!g->sd) NG_CHECK(NG_CUDA_TMP(cu, g->sd, n ? n : 1));
      if (refresh || !g->sd_fresh) /* the setup's own from the aggregation, else new values */
        k_sqrt_diag_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->Aval, g->sd, g->flag);
      g->sd_fresh = 0;
      NG_CUDA_LAUNCH_CHECK();
    }
    if (g->pgroup) /* the setup's columns with the values, or an update's values */
      NG_CHECK(prow_launch(g, refresh ? 2 : 1, omega_p, filter > 0 ? g->sd : NULL, filter, M->strength_signed, NULL));
    else
      k_pvalues<<<blocks(n), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->Aval, g->agg, g->ptent, omega_p,
                                                   filter > 0 ? g->sd : NULL, filter, M->strength_signed, g->lump,
                                                   g->Prp, g->Pcol, g->Pval, g->flag);
    cudaError_t pe = cudaGetLastError();
    if (pe != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG GPU prolongator kernel failed: %s", cudaGetErrorString(pe));
    trace(g, "transfer: P values", &tt);
    if (!refresh) {
      NG_CHECK(transpose_p(g));
    } else if (g->nnzP) {
      k_rvalues<<<blocks(g->nnzP), TPB, 0, cu->stream>>>(g->nnzP, g->rperm, g->Pval, g->Rval);
      NG_CUDA_LAUNCH_CHECK();
    }
    trace(g, "transfer: R = P^T", &tt);
    NG_CHECK(read_flag(g, &bad)); /* also waits for P and R (the phase times) */
    if (bad) return NG_ERROR(NG_ERR_NUMERIC, "AMG: the finest matrix has a zero or missing diagonal entry");
    M->t_prolong += ng_wtime() - t;
    if (!(part & 2)) return NG_SUCCESS;
  }
  t = tt = ng_wtime();
  NG_CHECK(spgemm(g, n, g->Arp, g->Acol, g->Aval, g->Prp, g->Pcol, g->Pval, &g->APrp, &g->APcol, &g->APval, &g->nnzAP,
                  0, &g->hcAP, n, g->nnzP, "A P", HC_TINY));
  trace(g, "galerkin: A P", &tt);
  if (!(M->sparsify > 0))
    NG_CHECK(spgemm(g, g->nagg, g->Rrp, g->Rcol, g->Rval, g->APrp, g->APcol, g->APval, &g->Crp, &g->Ccol, &g->Cval,
                    &g->nnzC, 1, &g->hcC, n, g->nnzAP, "the Galerkin operator"));
  else { /* the full product G, then C = its sparsified copy (kept as the level's operator) */
    NG_CHECK(spgemm(g, g->nagg, g->Rrp, g->Rcol, g->Rval, g->APrp, g->APcol, g->APval, &g->Grp, &g->Gcol, &g->Gval,
                    &g->nnzG, 1, &g->hcC, n, g->nnzAP, "the Galerkin operator"));
    NG_CHECK(read_flag(g, &bad));
    if (bad) return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU update: a product row outgrew its hash table");
    if (!refresh) NG_CHECK(sparsify_setup(g, M->sparsify));
    NG_CHECK(sparsify_values(g));
  }
  trace(g, "galerkin: R (A P), sparsify", &tt);
  NG_CHECK(read_flag(g, &bad)); /* the update's products did not wait */
  if (bad) return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU update: a product row outgrew its hash table");
  /* A_c's host copy: not made at the setup (C->host_stale = 2: the coarse
   * levels that need it, those built on the host, download it through
   * ng_amg_level_host; a GPU level fed by this product never reads it: at
   * lap7:128 the download was 7 of the setup's 38 ms); an update refreshes
   * the values of a copy that exists unless the next level is a GPU level
   * with a device CSR table (its rho, diagonal, transfer and table all come
   * from the device copy) */
  if (!refresh) {
    ng_csr_free(&C->A);
    C->A.nrows = C->A.ncols = g->nagg;
    C->A.nnz = g->nnzC;
    C->host_stale = 2;
  } else if (C->A.nnz != g->nnzC)
    return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU update: A_c has %lld entries, %lld at setup", (long long)g->nnzC,
                    (long long)C->A.nnz);
  else {
    int32_t *drp, *dcol;
    double *dval;
    int device_only = C->host_taken ||
                      (C->gpu && C->s.Aops && ng_csr_cuda_arrays(C->s.Aops, C->s.Adata, &drp, &dcol, &dval) == NG_SUCCESS);
    if (!device_only) NG_CHECK(host_copy(g, C, C->host_stale == 2)); /* whole when it was never made */
    else if (C->host_stale != 2) C->host_stale = 1;
  }
  trace(g, "galerkin: A_c's host copy", &tt);
  M->t_galerkin += ng_wtime() - t;
  return NG_SUCCESS;
}

/* A level's arrays: from the context's pool (ng_cuda_tmp_free, in the
 * stream's order) but A's own copies and P's and R's, which the SpMV tables
 * adopt and free with cudaFree. */
static void gpu_free(amg_gpu *g)
{
  if (!g) return;
  struct ng_cuda *cu = g->ctx->cuda;
  ng_cuda_free(g->own_rp);
  ng_cuda_free(g->own_col);
  ng_cuda_free(g->own_val);
  void *pooled[] = {g->agg, g->ptent, g->rperm, g->APrp, g->APcol, g->APval, g->Crp, g->Ccol,
                    g->Cval, g->Grp, g->Gcol, g->Gval, g->smap, g->flag, g->sd, g->lump};
  for (size_t k = 0; k < sizeof(pooled) / sizeof(pooled[0]); k++) ng_cuda_tmp_free(cu, pooled[k]);
  /* P and R arrays belong to the SpMV tables once adopted */
  if (!g->adoptedP) {
    ng_cuda_free(g->Prp);
    ng_cuda_free(g->Pcol);
    ng_cuda_free(g->Pval);
  }
  if (!g->adoptedR) {
    ng_cuda_free(g->Rrp);
    ng_cuda_free(g->Rcol);
    ng_cuda_free(g->Rval);
  }
  ng_free(g);
}

/* M->gpu: one state per level built on the GPU (NULL for host levels). */
static amg_gpu **levels(ng_amg *M) { return ng_amg_gpu_levels(M); }

extern "C" void ng_amg_gpu_free(ng_amg *M)
{
  amg_gpu **lv = levels(M);
  ng_cuda_free(M->rho_work);
  M->rho_work = NULL;
  M->rho_work_n = 0;
  ng_amg_fine_free_dev(M);
  if (!lv) return;
  for (int l = 0; l < M->max_levels; l++) gpu_free(lv[l]);
  ng_free(lv);
  M->gpu = NULL;
}

extern "C" void ng_amg_gpu_drop(ng_amg *M, int l)
{
  amg_gpu **lv = levels(M);
  if (!lv) return;
  gpu_free(lv[l]);
  lv[l] = NULL;
}

extern "C" ng_status ng_amg_gpu_aggregate(ng_amg *M, ng_matrix A, int l)
{
  amg_gpu *g, **lv;
  ng_amg_level *L = &M->L[l];
  double t = ng_wtime();
  if (!M->gpu) {
    NG_CHECK(NG_CALLOC(lv, M->max_levels));
    M->gpu = lv;
  }
  lv = levels(M);
  if (l > 0 && (!lv[l - 1] || !lv[l - 1]->Crp))
    return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: level %d's operator is not on the device", l);
  /* A and its strength graph have 64-bit offsets here (past 2^31 entries
   * too; P, A P and A_c are 32-bit and refuse more, see scan_rowptr); the
   * grid-stride row loops (ROW_LOOP: int32 i plus at most 65535 * 8 * TPB)
   * must not wrap: past that the host builds the level (amg_setup.c clears
   * this error) */
  if (l == 0 && (int64_t)A->n_local > INT32_MAX - (int64_t)65535 * 8 * TPB)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU setup: %d rows, too many for its 32-bit row loops; built on the host",
                    (int)A->n_local);
  NG_CHECK(NG_CALLOC(g, 1));
  lv[l] = g;
  g->ctx = A->ctx;
  NG_CHECK(NG_CUDA_TMP(g->ctx->cuda, g->flag, 1));
  NG_CUDA_CHECK(cudaMemsetAsync(g->flag, 0, sizeof(int), g->ctx->cuda->stream));
  if (l == 0) {
    g->n = A->n_local;
    g->nnzA = A->local.nnz;
    NG_CHECK(device_matrix(g, A, 0));
  } else { /* the previous level's Galerkin product, still on the device */
    amg_gpu *f = lv[l - 1];
    g->n = f->nagg;
    g->nnzA = f->nnzC;
    NG_CHECK(widen_offsets(g, f->Crp));
    g->Arp = g->own_rp;
    g->Acol = f->Ccol;
    g->Aval = f->Cval;
  }
  NG_CHECK(aggregate(g, M, L, ng_amg_level_theta(M, l)));
  M->t_aggregate += ng_wtime() - t;
  M->t_gpu += ng_wtime() - t;
  return NG_SUCCESS;
}

/* L->agg (host) from level l's device aggregates: for the host's fallback
 * transfer and for tests; the GPU setup itself never reads it */
extern "C" ng_status ng_amg_gpu_aggregates(ng_amg *M, int l)
{
  amg_gpu *g = M->gpu && l >= 0 && l < M->max_levels ? levels(M)[l] : NULL;
  ng_amg_level *L = &M->L[l];
  if (!g || !g->agg) return NG_ERROR(NG_ERR_INTERNAL, "AMG: level %d has no device aggregates", l);
  if (!L->agg) NG_CHECK(NG_MALLOC(L->agg, g->n ? g->n : 1));
  NG_CUDA_CHECK(cudaStreamSynchronize(g->ctx->cuda->stream));
  NG_CUDA_CHECK(cudaMemcpy(L->agg, g->agg, (size_t)g->n * sizeof(int32_t), cudaMemcpyDeviceToHost));
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_transfer_part(ng_amg *M, ng_matrix A, int l, int refresh, int part)
{
  amg_gpu *g = M->gpu ? levels(M)[l] : NULL;
  ng_amg_level *L = &M->L[l];
  double t = ng_wtime();
  if (!g) return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: level %d was not aggregated on the device", l);
  /* the W- and K-cycles' hybrid lumping is the host's (amg_sparsify.c):
   * their levels' transfers are built there from the device's aggregates */
  if (M->sparsify > 0 && ng_amg_hybrid(M))
    return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU setup: the W- and K-cycles' sparsification is built on the host");
  if ((part & 1) && refresh && l == 0) M->t_gpu = 0;
  if ((part & 1) && refresh && l == 0) NG_CHECK(device_matrix(g, A, 1));
  NG_CHECK(transfer(g, M, L, &M->L[l + 1], refresh, M->filter ? ng_amg_level_theta(M, l) : 0.0, part));
  if (!refresh && (part & 1)) { /* the V-cycle's P and R: csr_cuda tables over these arrays */
    NG_CHECK(ng_csr_cuda_adopt(g->ctx, g->n, g->nagg, g->nnzP, g->Prp, g->Pcol, g->Pval, &L->Pdata));
    L->Pops = ng_spmv_find("csr", 1);
    g->adoptedP = 1;
    NG_CHECK(ng_csr_cuda_adopt(g->ctx, g->nagg, g->n, g->nnzP, g->Rrp, g->Rcol, g->Rval, &L->Rdata));
    L->Rops = L->Pops;
    g->adoptedR = 1;
  }
  M->t_gpu += ng_wtime() - t;
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_transfer(ng_amg *M, ng_matrix A, int l, int refresh)
{
  NG_CHECK(ng_amg_gpu_transfer_part(M, A, l, refresh, 3));
  return NG_SUCCESS;
}

/* ---- the products on a thread of their own (the uncoupled level) ---------- */
struct gpu_job {
  ng_amg *M;
  ng_matrix A;
  int l, refresh, device, started;
  pthread_t th;
  ng_status st;
  char msg[1024]; /* the thread's error message (messages are per thread) */
};

static void *job_run(void *arg)
{
  gpu_job *j = (gpu_job *)arg;
  cudaError_t e = cudaSetDevice(j->device); /* the current device is per thread */
  if (e != cudaSuccess) j->st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: cudaSetDevice on the products' thread: %s", cudaGetErrorString(e));
  else j->st = ng_amg_gpu_transfer_part(j->M, j->A, j->l, j->refresh, 2);
  if (j->st) snprintf(j->msg, sizeof(j->msg), "%s", ng_last_error());
  return NULL;
}

extern "C" ng_status ng_amg_gpu_products_start(ng_amg *M, ng_matrix A, int l, int refresh, void **job)
{
  gpu_job *j = NULL;
  *job = NULL;
  NG_CHECK(NG_CALLOC(j, 1));
  j->M = M;
  j->A = A;
  j->l = l;
  j->refresh = refresh;
  cudaError_t e = cudaGetDevice(&j->device);
  if (e != cudaSuccess) {
    ng_free(j);
    return NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: cudaGetDevice: %s", cudaGetErrorString(e));
  }
  *job = j;
  /* no thread to be had: the products run here, now (same result, no overlap) */
  j->started = pthread_create(&j->th, NULL, job_run, j) == 0;
  if (!j->started) job_run(j);
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_products_wait(void *job)
{
  gpu_job *j = (gpu_job *)job;
  if (!j) return NG_SUCCESS;
  if (j->started) pthread_join(j->th, NULL);
  ng_status st = j->st;
  ng_status out = st ? NG_ERROR(st, "%s", j->msg) : NG_SUCCESS;
  ng_free(j);
  return out;
}

/* Setup: level l's operator table (l > 0) as a device CSR copied on the
 * device from GPU level l - 1's product (no upload of the host copy);
 * *done = 0 when the requested format is not the device CSR. */
/* level l - 1's product into a new table's arrays (ng_csr_cuda_make's fill) */
static ng_status fill_product(void *arg, int32_t *rp, int32_t *col, double *val)
{
  amg_gpu *f = (amg_gpu *)arg;
  cudaStream_t s = f->ctx->cuda->stream;
  if (cudaMemcpyAsync(rp, f->Crp, ((size_t)f->nagg + 1) * sizeof(int32_t), cudaMemcpyDeviceToDevice, s) != cudaSuccess ||
      cudaMemcpyAsync(col, f->Ccol, (size_t)f->nnzC * sizeof(int32_t), cudaMemcpyDeviceToDevice, s) != cudaSuccess ||
      cudaMemcpyAsync(val, f->Cval, (size_t)f->nnzC * sizeof(double), cudaMemcpyDeviceToDevice, s) != cudaSuccess)
    return NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: copying a coarse operator on the device failed");
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_coarse_table(ng_amg *M, int l, const ng_spmv_ops **ops, void **data, int *done)
{
  amg_gpu *f = M->gpu && l > 0 ? levels(M)[l - 1] : NULL;
  const ng_spmv_ops *csr = ng_spmv_find("csr", 1);
  *done = 0;
  if (!f || !f->Crp || !csr || ng_spmv_find(M->format, 1) != csr) return NG_SUCCESS;
  NG_CHECK(ng_csr_cuda_make(f->ctx, f->nagg, f->nagg, f->nnzC, fill_product, f, data));
  *ops = csr;
  *done = 1;
  return NG_SUCCESS;
}

/* ---- an uncoupled distributed level (amg_dist_local.c) ---------------------- */
__global__ void k_lump_scatter(int32_t cnt, const int32_t *rows, const double *vals, double *lump)
{
  ROW_LOOP(cnt) lump[rows[i]] = vals[i];
}

/* lump = 0 but at rows[k], where it is vals[k] (the rows with off-rank couplings: a boundary's worth) */
extern "C" ng_status ng_amg_gpu_lump(ng_amg *M, int l, const int32_t *rows, const double *vals, int32_t cnt)
{
  amg_gpu *g = M->gpu ? levels(M)[l] : NULL;
  if (!g) return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: level %d was not aggregated on the device", l);
  struct ng_cuda *cu = g->ctx->cuda;
  int32_t *dr = NULL;
  double *dv = NULL;
  ng_status st = NG_SUCCESS;
  if (!g->lump) NG_CHECK(NG_CUDA_TMP(cu, g->lump, g->n ? g->n : 1));
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, dr, cnt ? cnt : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, dv, cnt ? cnt : 1), out);
  {
    cudaError_t e = cudaMemsetAsync(g->lump, 0, (size_t)g->n * sizeof(double), cu->stream);
    if (e == cudaSuccess && cnt) e = cudaMemcpyAsync(dr, rows, (size_t)cnt * sizeof(int32_t), cudaMemcpyHostToDevice, cu->stream);
    if (e == cudaSuccess && cnt) e = cudaMemcpyAsync(dv, vals, (size_t)cnt * sizeof(double), cudaMemcpyHostToDevice, cu->stream);
    if (e == cudaSuccess && cnt) {
      k_lump_scatter<<<blocks(cnt), TPB, 0, cu->stream>>>(cnt, dr, dv, g->lump);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream); /* rows, vals: the caller's pageable memory */
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: the off-rank lumping: %s", cudaGetErrorString(e));
  }
out:
  ng_cuda_tmp_free(cu, dr);
  ng_cuda_tmp_free(cu, dv);
  return st;
}

/* cnt[k] = the length of P's row rows[k]; then the rows copied to their offsets */
__global__ void k_prow_len(int32_t cnt, const int32_t *rows, const int32_t *Prp, int64_t *len)
{
  ROW_LOOP(cnt) len[i] = Prp[rows[i] + 1] - Prp[rows[i]];
}
__global__ void k_prow_copy(int32_t cnt, const int32_t *rows, const int32_t *Prp, const int32_t *Pcol,
                            const double *Pval, const int64_t *off, int32_t *col, double *val)
{
  ROW_LOOP(cnt) {
    int64_t o = off[i];
    for (int32_t p = Prp[rows[i]]; p < Prp[rows[i] + 1]; p++, o++) {
      col[o] = Pcol[p];
      val[o] = Pval[p];
    }
  }
}

extern "C" ng_status ng_amg_gpu_prows(ng_amg *M, int l, const int32_t *rows, int32_t cnt, ng_csr *out)
{
  amg_gpu *g = M->gpu ? levels(M)[l] : NULL;
  if (!g || !g->Prp) return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: level %d has no device P", l);
  struct ng_cuda *cu = g->ctx->cuda;
  int32_t *drows = NULL, *dcol = NULL;
  int64_t *len = NULL, *off = NULL, total = 0;
  double *dval = NULL;
  void *tmp = NULL;
  size_t tb = 0;
  ng_status st = NG_SUCCESS;
  cudaError_t e = cudaSuccess;
  memset(out, 0, sizeof(*out));
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, drows, cnt ? cnt : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, len, (size_t)cnt + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, off, (size_t)cnt + 1), out);
  if (cnt) e = cudaMemcpyAsync(drows, rows, (size_t)cnt * sizeof(int32_t), cudaMemcpyHostToDevice, cu->stream);
  if (e == cudaSuccess) e = cudaMemsetAsync(len, 0, ((size_t)cnt + 1) * sizeof(int64_t), cu->stream);
  if (e == cudaSuccess && cnt) {
    k_prow_len<<<blocks(cnt), TPB, 0, cu->stream>>>(cnt, drows, g->Prp, len);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cub::DeviceScan::ExclusiveSum(NULL, tb, len, off, cnt + 1, cu->stream);
  if (e == cudaSuccess) {
    NG_CHECK_GOTO(st, ng_cuda_tmp_malloc(cu, &tmp, tb ? tb : 1, "AMG P rows scan buffer"), out);
    e = cub::DeviceScan::ExclusiveSum(tmp, tb, len, off, cnt + 1, cu->stream);
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&total, off + cnt, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream);
  if (e != cudaSuccess) {
    st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: P's interface rows: %s", cudaGetErrorString(e));
    goto out;
  }
  NG_CHECK_GOTO(st, ng_csr_alloc(out, cnt, g->nagg, total), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, dcol, total ? total : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, dval, total ? total : 1), out);
  if (cnt) {
    k_prow_copy<<<blocks(cnt), TPB, 0, cu->stream>>>(cnt, drows, g->Prp, g->Pcol, g->Pval, off, dcol, dval);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(out->rowptr, off, ((size_t)cnt + 1) * sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream);
  if (e == cudaSuccess && total)
    e = cudaMemcpyAsync(out->col, dcol, (size_t)total * sizeof(int32_t), cudaMemcpyDeviceToHost, cu->stream);
  if (e == cudaSuccess && total)
    e = cudaMemcpyAsync(out->val, dval, (size_t)total * sizeof(double), cudaMemcpyDeviceToHost, cu->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream);
  if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: P's interface rows: %s", cudaGetErrorString(e));
out:
  ng_cuda_tmp_free(cu, tmp);
  ng_cuda_tmp_free(cu, drows);
  ng_cuda_tmp_free(cu, len);
  ng_cuda_tmp_free(cu, off);
  ng_cuda_tmp_free(cu, dcol);
  ng_cuda_tmp_free(cu, dval);
  if (st) ng_csr_free(out);
  return st;
}

/* Update: level l's operator table (l > 0, the product of GPU level l - 1)
 * takes its new values from the device product (no upload of the host copy);
 * *done = 0 when the table is not a device CSR of the same size. */
extern "C" ng_status ng_amg_gpu_coarse_values(ng_amg *M, int l, const ng_spmv_ops *ops, void *data, int *done)
{
  amg_gpu *f = M->gpu && l > 0 ? levels(M)[l - 1] : NULL;
  int32_t *rp, *col;
  double *val;
  *done = 0;
  if (!f || !f->Cval || ng_csr_cuda_arrays(ops, data, &rp, &col, &val) != NG_SUCCESS) return NG_SUCCESS;
  if (M->L[l].A.nnz != f->nnzC) return NG_SUCCESS;
  if (f->nnzC)
    NG_CUDA_CHECK(cudaMemcpyAsync(val, f->Cval, (size_t)f->nnzC * sizeof(double), cudaMemcpyDeviceToDevice,
                                  f->ctx->cuda->stream));
  *done = 1;
  return NG_SUCCESS;
}

/* Level l's operator values from GPU level l - 1's device product straight
 * into val (nnz entries, the host CSR's order): an update of a level whose
 * pattern the host already holds elsewhere (the uncoupled level's coarse
 * matrix) downloads the values alone. *done = 0: not on the device. */
extern "C" ng_status ng_amg_gpu_coarse_values_host(ng_amg *M, int l, double *val, int64_t nnz, int *done)
{
  amg_gpu *f = M->gpu && l > 0 ? levels(M)[l - 1] : NULL;
  *done = 0;
  if (!f || !f->Cval || nnz != f->nnzC) return NG_SUCCESS;
  NG_CUDA_CHECK(cudaStreamSynchronize(f->ctx->cuda->stream));
  if (nnz) NG_CUDA_CHECK(cudaMemcpy(val, f->Cval, (size_t)nnz * sizeof(double), cudaMemcpyDeviceToHost));
  *done = 1;
  return NG_SUCCESS;
}

/* Level l's host operator from GPU level l - 1's device product when the
 * setup left it there (host_stale 2) or an update refreshed only the device
 * values (1). */
extern "C" ng_status ng_amg_gpu_level_host(ng_amg *M, int l)
{
  amg_gpu *f = M->gpu && l > 0 ? levels(M)[l - 1] : NULL;
  ng_amg_level *L = &M->L[l];
  if (!L->host_stale) return NG_SUCCESS;
  if (!f || !f->Crp) return NG_ERROR(NG_ERR_INTERNAL, "AMG: level %d's operator is neither on the host nor on the device", l);
  return host_copy(f, L, L->host_stale == 2);
}

extern "C" ng_status ng_amg_gpu_dinv(ng_amg *M, int l, double omega, double *dinv)
{
  amg_gpu *g = M->gpu ? levels(M)[l] : NULL;
  int bad = 0;
  if (!g) return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: level %d's operator is not on the device", l);
  k_dinv<<<blocks(g->n), TPB, 0, g->ctx->cuda->stream>>>(g->n, g->Arp, g->Acol, g->Aval, omega, dinv, g->flag);
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(read_flag(g, &bad));
  if (bad) return NG_ERROR(NG_ERR_NUMERIC, "AMG: level %d has a zero or missing diagonal entry", l);
  return NG_SUCCESS;
}

/* rho(D^-1 A) by `iters` power iterations from the fixed start vector (the
 * same values at every call: an update with unchanged values reproduces
 * the setup's estimate exactly) of the device CSR rp/col/val (the finest
 * level's too: k_rho_apply, not cuSPARSE, whose first call in a process
 * cost 3.5 ms and every call a partition kernel). *bad: the first row
 * with a zero diagonal, n when none. The work vectors live in M->rho_work
 * (made at the setup, reused by every update, freed with the hierarchy). */
static ng_status device_rho(ng_amg *M, ng_context ctx, int32_t n, int64_t nnz, const int32_t *rp,
                            const int64_t *rp64, const int32_t *col, const double *val, const ng_spmv_ops *ops,
                            void *data, int iters, double *rho, int32_t *bad)
{
  cudaStream_t st = ctx->cuda->stream;
  double *s, *t, *w, *red, est = 0;
  int *dbad, hbad = INT_MAX;
  cudaError_t e = cudaSuccess;
  double mean = n ? (double)nnz / n : 0;
  /* s, t, w (n each), the reduction slots and the flag: one buffer kept
   * from call to call (the finest level, the largest, sizes it first), so
   * that an update allocates nothing here */
  int64_t need = 3 * (int64_t)n + RHO_RED + 1;
  if (M->rho_work_n < need) {
    ng_cuda_free(M->rho_work); /* after the stream's work on it: cudaFree waits */
    M->rho_work = NULL;
    M->rho_work_n = 0;
    NG_CHECK(NG_CUDA_MALLOC(M->rho_work, need));
    M->rho_work_n = need;
  }
  s = M->rho_work, t = s + n, w = t + n, red = w + n, dbad = (int *)(red + RHO_RED);
  /* est, scale, stop = 0; first zero-diagonal row = 0x7f7f7f7f (none) */
  e = cudaMemsetAsync(red + RHO_EST, 0, 3 * sizeof(double), st);
  if (e == cudaSuccess) e = cudaMemsetAsync(dbad, 0x7f, sizeof(int), st);
  if (e == cudaSuccess) {
    if (rp64) k_rho_init_g<<<blocks((int64_t)n * GL), TPB, 0, st>>>(n, rp64, col, val, s, dbad);
    else k_rho_init_g<<<blocks((int64_t)n * GL), TPB, 0, st>>>(n, rp, col, val, s, dbad);
    k_rho_start<<<blocks(n), TPB, 0, st>>>(n, 0, s, t);
    e = cudaGetLastError();
  }
  for (int it = 0; it < iters && e == cudaSuccess; it++) {
    if (ops) { /* the finest level's V-cycle table (dia_half: 0.76 against 2.4 ms a product at lap27:256) */
      ng_status as = ops->apply(data, 1.0, t, 0.0, w);
      if (as != NG_SUCCESS) return ng_error_trace(as, __FILE__, __LINE__);
    } else if (mean <= 16) /* about four entries per lane */ k_rho_apply<4><<<RHO_BLOCKS, TPB, 0, st>>>(n, rp, col, val, t, w, red);
    else if (mean <= 32) k_rho_apply<8><<<RHO_BLOCKS, TPB, 0, st>>>(n, rp, col, val, t, w, red);
    else if (mean <= 64) k_rho_apply<16><<<RHO_BLOCKS, TPB, 0, st>>>(n, rp, col, val, t, w, red);
    else k_rho_apply<32><<<RHO_BLOCKS, TPB, 0, st>>>(n, rp, col, val, t, w, red);
    k_rho_post<<<RHO_BLOCKS, TPB, 0, st>>>(n, s, t, w, red);
    k_rho_sum<<<1, TPB, 0, st>>>(red);
    k_rho_scale<<<blocks(n), TPB, 0, st>>>(n, s, w, t, red);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&est, red + RHO_EST, sizeof(double), cudaMemcpyDeviceToHost, st);
  if (e == cudaSuccess) e = cudaMemcpyAsync(&hbad, dbad, sizeof(int), cudaMemcpyDeviceToHost, st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(st);
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG rho estimate on the device failed: %s", cudaGetErrorString(e));
  *rho = est;
  *bad = hbad < n ? hbad : n;
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_rho(ng_amg *M, ng_matrix A, int l, int iters, double *rho, int *done)
{
  const int32_t *rp = NULL, *col;
  const int64_t *rp64 = NULL;
  const double *val;
  int32_t n = 0, bad = INT32_MAX;
  int64_t nnz;
  double est = 0;
  const ng_spmv_ops *ops = NULL;
  void *data = NULL;
  *done = 0;
  if (l == 0) { /* the user's matrix when it is one rank's device CSR (its diagonal read from there) */
    int32_t *r, *c;
    int64_t *r64;
    double *x;
    if (!A->ctx->on_gpu || A->n_local != A->n_global) return NG_SUCCESS;
    /* the products on the cycle's own copy of A when there is one (made first, amg_setup.c) */
    if (M->L[0].s.Aops && M->L[0].s.Aops->on_gpu) ops = M->L[0].s.Aops, data = M->L[0].s.Adata;
    if (ng_csr_cuda_arrays(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &r, &c, &x) == NG_SUCCESS) rp = r;
    /* the 64-bit layout (past 2^31 - 1 entries): only with the cycle's copy for the products
     * (lap27:432: 1.49 s through the context's SpMV and the host's loop) */
    else if (ops && ng_csr_cuda_arrays64(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &r64, &c, &x) == NG_SUCCESS) rp64 = r64;
    else return NG_SUCCESS;
    col = c, val = x, n = A->n_local, nnz = A->local.nnz;
  } else { /* level l - 1's device product */
    amg_gpu *f = M->gpu ? levels(M)[l - 1] : NULL;
    if (!f || !f->Crp) return NG_SUCCESS;
    rp = f->Crp, col = f->Ccol, val = f->Cval, n = f->nagg, nnz = f->nnzC;
  }
  NG_CHECK(device_rho(M, A->ctx, n, nnz, rp, rp64, col, val, ops, data, iters, &est, &bad));
  if (bad < n) return NG_ERROR(NG_ERR_NUMERIC, "AMG: %s %d (0-based %d) has a zero or missing diagonal entry",
                                    l ? "a coarse level's row" : "row", (int)bad + 1, (int)bad);
  if (!(est > 0) || !isfinite(est))
    return NG_ERROR(NG_ERR_NUMERIC, "AMG: the spectral radius estimate of D^-1 A is %g on a level of %d rows", est, (int)n);
  *rho = est;
  *done = 1;
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_rho_init(ng_matrix A, double *s, double *v, int *done)
{
  int32_t *rp, *col, *dbad = NULL, n = A->n_local, bad = INT32_MAX;
  double *val;
  cudaStream_t stream = A->ctx->cuda->stream;
  *done = 0;
  if (ng_csr_cuda_arrays(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp, &col, &val) != NG_SUCCESS) return NG_SUCCESS;
  NG_CHECK(NG_CUDA_MALLOC(dbad, 1));
  cudaError_t e = cudaMemcpyAsync(dbad, &bad, sizeof(int32_t), cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) {
    k_rho_init_g<<<blocks((int64_t)n * GL), TPB, 0, stream>>>(n, rp, col, val, s, dbad);
    if (v) k_rho_start<<<blocks(n), TPB, 0, stream>>>(n, (int32_t)A->row_begin, NULL, v);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&bad, dbad, sizeof(int32_t), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  ng_cuda_free(dbad);
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG rho estimate: the device diagonal failed: %s", cudaGetErrorString(e));
  if (bad < n)
    return NG_ERROR(NG_ERR_NUMERIC, "AMG: row %lld (0-based %lld) has a zero or missing diagonal entry",
                    (long long)(A->row_begin + bad + 1), (long long)(A->row_begin + bad));
  *done = 1;
  return NG_SUCCESS;
}

/* ---- the distributed setup's local Galerkin products (amg_dist_galerkin.c) --
 * T = C (A B) for host CSRs, both products on the device with the SpGEMM
 * above (A B stays there); the state keeps the device patterns so that an
 * update uploads values only and downloads T's values. */
typedef struct {
  amg_gpu g;
  int32_t *rp[3], *col[3];
  double *val[3];
  int32_t nrows[3];
  int64_t nnz[3];
  int32_t *ABrp, *ABcol, *Trp, *Tcol;
  double *ABval, *Tval;
  int64_t nnzAB, nnzT;
  int hcAB, hcT;
} gpu_triple;

extern "C" void ng_amg_gpu_triple_free(void *state)
{
  gpu_triple *s = (gpu_triple *)state;
  if (!s) return;
  for (int k = 0; k < 3; k++) {
    ng_cuda_free(s->rp[k]);
    ng_cuda_free(s->col[k]);
    ng_cuda_free(s->val[k]);
  }
  /* the products' arrays and the flag come from the pool (spgemm) */
  void *pooled[] = {s->ABrp, s->ABcol, s->ABval, s->Trp, s->Tcol, s->Tval, s->g.flag};
  for (size_t k = 0; k < sizeof(pooled) / sizeof(pooled[0]); k++) ng_cuda_tmp_free(s->g.ctx->cuda, pooled[k]);
  ng_free(s);
}

/* Operand k's values (and, at setup, its pattern with 32-bit offsets). */
static ng_status triple_upload(gpu_triple *s, int k, const ng_csr *X, int values_only)
{
  cudaStream_t st = s->g.ctx->cuda->stream;
  if (!values_only) {
    int32_t *rp = NULL;
    if (X->nnz > INT32_MAX) return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU Galerkin: %lld entries in one operand", (long long)X->nnz);
    s->nrows[k] = X->nrows;
    s->nnz[k] = X->nnz;
    NG_CHECK(NG_CUDA_MALLOC(s->rp[k], (size_t)X->nrows + 1));
    NG_CHECK(NG_CUDA_MALLOC(s->col[k], X->nnz ? X->nnz : 1));
    NG_CHECK(NG_CUDA_MALLOC(s->val[k], X->nnz ? X->nnz : 1));
    NG_CHECK(NG_MALLOC(rp, (size_t)X->nrows + 1));
    for (int32_t i = 0; i <= X->nrows; i++) rp[i] = (int32_t)X->rowptr[i];
    cudaError_t e = cudaMemcpyAsync(s->rp[k], rp, ((size_t)X->nrows + 1) * sizeof(int32_t), cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    ng_free(rp);
    if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG GPU Galerkin: uploading row offsets failed: %s", cudaGetErrorString(e));
    if (X->nnz) NG_CUDA_CHECK(cudaMemcpyAsync(s->col[k], X->col, (size_t)X->nnz * sizeof(int32_t), cudaMemcpyHostToDevice, st));
  }
  if (X->nnz) NG_CUDA_CHECK(cudaMemcpyAsync(s->val[k], X->val, (size_t)X->nnz * sizeof(double), cudaMemcpyHostToDevice, st));
  return NG_SUCCESS;
}

/* T = C (A B) with A a host CSR (uploaded) or, x != NULL, the level's
 * device rows (amg_dist_dx.cuh: nothing uploaded for A). */
static ng_status triple(ng_context ctx, const ng_csr *A, const ng_amg_dx *x, const ng_csr *B, const ng_csr *C,
                        ng_csr *T, void **state);

extern "C" ng_status ng_amg_gpu_triple(ng_context ctx, const ng_csr *A, const ng_csr *B, const ng_csr *C, ng_csr *T,
                                       void **state)
{
  return triple(ctx, A, NULL, B, C, T, state);
}

extern "C" ng_status ng_amg_gpu_triple_dx(ng_context ctx, const void *dx, const ng_csr *B, const ng_csr *C, ng_csr *T,
                                          void **state)
{
  return triple(ctx, NULL, (const ng_amg_dx *)dx, B, C, T, state);
}

static ng_status triple(ng_context ctx, const ng_csr *A, const ng_amg_dx *x, const ng_csr *B, const ng_csr *C,
                        ng_csr *T, void **state)
{
  gpu_triple *s = (gpu_triple *)*state;
  int refresh = s != NULL;
  cudaStream_t stream = ctx->cuda->stream;
  if (!refresh) {
    NG_CHECK(NG_CALLOC(s, 1));
    *state = s;
    s->g.ctx = ctx;
    NG_CHECK(NG_CUDA_TMP(ctx->cuda, s->g.flag, 1));
    NG_CUDA_CHECK(cudaMemsetAsync(s->g.flag, 0, sizeof(int), stream));
  }
  const ng_csr *X[3] = {A, B, C};
  for (int k = x ? 1 : 0; k < 3; k++) NG_CHECK(triple_upload(s, k, X[k], refresh));
  int32_t nA = x ? x->n : A->nrows;
  if (x)
    NG_CHECK(spgemm(&s->g, nA, (const int64_t *)x->Xrp, x->Xcol, x->Xval, s->rp[1], s->col[1], s->val[1], &s->ABrp,
                    &s->ABcol, &s->ABval, &s->nnzAB, 0, &s->hcAB, B->nrows, B->nnz, "the local A P"));
  else
    NG_CHECK(spgemm(&s->g, nA, s->rp[0], s->col[0], s->val[0], s->rp[1], s->col[1], s->val[1], &s->ABrp, &s->ABcol,
                    &s->ABval, &s->nnzAB, 0, &s->hcAB, B->nrows, B->nnz, "the local A P"));
  NG_CHECK(spgemm(&s->g, C->nrows, s->rp[2], s->col[2], s->val[2], s->ABrp, s->ABcol, s->ABval, &s->Trp, &s->Tcol,
                  &s->Tval, &s->nnzT, 1, &s->hcT, nA, s->nnzAB, "the local P^T (A P)"));
  if (!refresh) {
    int32_t *rp = NULL;
    NG_CHECK(ng_csr_alloc(T, C->nrows, B->ncols, s->nnzT));
    NG_CHECK(NG_MALLOC(rp, (size_t)C->nrows + 1));
    cudaError_t e = cudaMemcpyAsync(rp, s->Trp, ((size_t)C->nrows + 1) * sizeof(int32_t), cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess && s->nnzT)
      e = cudaMemcpyAsync(T->col, s->Tcol, (size_t)s->nnzT * sizeof(int32_t), cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    for (int32_t i = 0; e == cudaSuccess && i <= C->nrows; i++) T->rowptr[i] = rp[i];
    ng_free(rp);
    if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG GPU Galerkin: downloading T failed: %s", cudaGetErrorString(e));
  }
  int over = 0;
  NG_CHECK(read_flag(&s->g, &over)); /* also waits for the products */
  if (over) return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU Galerkin: a product row outgrew the hash table");
  if (s->nnzT) NG_CUDA_CHECK(cudaMemcpyAsync(T->val, s->Tval, (size_t)s->nnzT * sizeof(double), cudaMemcpyDeviceToHost, stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(stream));
  return NG_SUCCESS;
}
