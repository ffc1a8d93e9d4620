/* amg/amg_galerkin_cuda.cu: the GPU setup's Galerkin phase (the host's is
 * amg_galerkin.c): A P and R (A P) by a row-wise SpGEMM with a hash table
 * per warp in shared memory (values added in a fixed order), the
 * sparsification of -amg_sparsify (amg_sparsify.c step by step, bit for
 * bit), A_c's host copy, and the distributed setup's local products. */
#include "amg_setup_cuda.cuh"
#include <cub/cub.cuh>
#include <limits.h>
#include <math.h>
#include "amg_kernels_cuda.cuh"
#include "amg_dist_dx.cuh"

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
      if (st == NG_SUCCESS) st = ng_amg_gpu_read_flag(g, &over);
      if (st != NG_SUCCESS || !over || *hc == HC) break;
      *hc = *hc == HC_TINY ? HC_SMALL : HC; /* a row longer than the table: again with the next one */
      if (cudaMemsetAsync(g->flag, 0, sizeof(int), cu->stream) != cudaSuccess)
        st = NG_ERROR(NG_ERR_CUDA, "AMG GPU SpGEMM: resetting the overflow flag failed");
      if (st != NG_SUCCESS) break;
    }
    if (st == NG_SUCCESS && over)
      st = NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU setup: a row of %s has more than %d columns", what, HC);
    if (st == NG_SUCCESS) st = ng_amg_gpu_scan_rowptr(g, cnt, n, Crp, nnz, what, 1);
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
  NG_CHECK(ng_amg_gpu_read_flag(g, &over));
  if (over) return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU setup: a row of %s has more than %d columns", what, *hc);
  return NG_SUCCESS;
}

/* C = A B for the distributed setup's boundary products (amg_dist_offrank_cuda.cu):
 * spgemm() with A's offsets 32-bit */
ng_status ng_amg_gpu_spgemm32(amg_gpu *g, int32_t n, const int32_t *Arp, const int32_t *Acol, const double *Aval,
                              const int32_t *Brp, const int32_t *Bcol, const double *Bval, int32_t nrowsB, int64_t nnzB,
                              int32_t **Crp, int32_t **Ccol, double **Cval, int64_t *nnz, int sorted, int *hc,
                              const char *what)
{
  NG_CHECK(spgemm(g, n, Arp, Acol, Aval, Brp, Bcol, Bval, Crp, Ccol, Cval, nnz, sorted, hc, nrowsB, nnzB, what));
  return NG_SUCCESS;
}

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
  if (st == NG_SUCCESS) st = ng_amg_gpu_scan_rowptr(g, cnt, n, &g->Crp, &g->nnzC, "the sparsified coarse operator", 1);
  if (st == NG_SUCCESS) st = NG_CUDA_TMP(g->ctx->cuda, g->Ccol, g->nnzC ? g->nnzC : 1);
  if (st == NG_SUCCESS) st = NG_CUDA_TMP(g->ctx->cuda, g->Cval, g->nnzC ? g->nnzC : 1);
  if (st == NG_SUCCESS) st = NG_CUDA_TMP(g->ctx->cuda, g->smap, g->nnzG ? g->nnzG : 1);
  if (st == NG_SUCCESS) {
    k_sp_fill<<<blocks((int64_t)n * 32), TPB, 0, s>>>(n, g->Grp, g->Gcol, g->Gval, d, tau, g->Crp, g->Ccol, g->smap, g->flag);
    if (cudaGetLastError() != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU sparsify: the fill kernel failed");
  }
  if (st == NG_SUCCESS) st = ng_amg_gpu_read_flag(g, &bad);
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

/* g's coarse operator into the host CSR C->A: the whole matrix (whole: its
 * pattern too, C->A allocated here) or its values only; C->host_stale = 0. */
ng_status ng_amg_gpu_host_copy(amg_gpu *g, ng_amg_level *C, int whole)
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

/* Part 2 of a level's transfer: the products A P and R (A P) (with
 * -amg_sparsify the full product G, then C), and A_c's host copy when a
 * host level reads it. */
ng_status ng_amg_gpu_galerkin(amg_gpu *g, ng_amg *M, ng_amg_level *C, int refresh)
{
  int32_t n = g->n;
  int bad = 0;
  double t = ng_wtime(), tt = t;
  NG_CHECK(spgemm(g, n, g->Arp, g->Acol, g->Aval, g->Prp, g->Pcol, g->Pval, &g->APrp, &g->APcol, &g->APval, &g->nnzAP,
                  0, &g->hcAP, n, g->nnzP, "A P", HC_TINY));
  ng_amg_gpu_trace(g, "galerkin: A P", &tt);
  if (!(M->sparsify > 0))
    NG_CHECK(spgemm(g, g->nagg, g->Rrp, g->Rcol, g->Rval, g->APrp, g->APcol, g->APval, &g->Crp, &g->Ccol, &g->Cval,
                    &g->nnzC, 1, &g->hcC, n, g->nnzAP, "the Galerkin operator"));
  else { /* the full product G, then C = its sparsified copy (kept as the level's operator) */
    NG_CHECK(spgemm(g, g->nagg, g->Rrp, g->Rcol, g->Rval, g->APrp, g->APcol, g->APval, &g->Grp, &g->Gcol, &g->Gval,
                    &g->nnzG, 1, &g->hcC, n, g->nnzAP, "the Galerkin operator"));
    NG_CHECK(ng_amg_gpu_read_flag(g, &bad));
    if (bad) return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU update: a product row outgrew its hash table");
    if (!refresh) NG_CHECK(sparsify_setup(g, M->sparsify));
    NG_CHECK(sparsify_values(g));
  }
  ng_amg_gpu_trace(g, "galerkin: R (A P), sparsify", &tt);
  NG_CHECK(ng_amg_gpu_read_flag(g, &bad)); /* the update's products did not wait */
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
    if (!device_only) NG_CHECK(ng_amg_gpu_host_copy(g, C, C->host_stale == 2)); /* whole when it was never made */
    else if (C->host_stale != 2) C->host_stale = 1;
  }
  ng_amg_gpu_trace(g, "galerkin: A_c's host copy", &tt);
  M->t_galerkin += ng_wtime() - t;
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
  if (values_only && (X->nrows != s->nrows[k] || X->nnz != s->nnz[k]))
    return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU Galerkin: an update's operand %d has %lld entries, its setup's %lld", k,
                    (long long)X->nnz, (long long)s->nnz[k]);
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
  NG_CHECK(ng_amg_gpu_read_flag(&s->g, &over)); /* also waits for the products */
  if (over) return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU Galerkin: a product row outgrew the hash table");
  if (s->nnzT) NG_CUDA_CHECK(cudaMemcpyAsync(T->val, s->Tval, (size_t)s->nnzT * sizeof(double), cudaMemcpyDeviceToHost, stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(stream));
  return NG_SUCCESS;
}

