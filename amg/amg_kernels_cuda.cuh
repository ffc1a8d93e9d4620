/* amg/amg_kernels_cuda.cuh: the AMG setup's aggregation and prolongator
 * kernels, shared by the one-rank GPU setup (amg_*_cuda.cu) and the
 * distributed one (amg_dist_aggregate_cuda.cu). Row kernels over a CSR with
 * 64-bit row offsets: MIS(2) keys (state, hash, index; the host's
 * ng_amg_mis_key), the strength graph, the MIS rounds' maxima, the joining
 * steps, P's pattern and values. Every kernel is static: each .cu that
 * includes this has its own copies (no relocatable device code). */
#ifndef NG_AMG_KERNELS_CUDA_CUH
#define NG_AMG_KERNELS_CUDA_CUH
#include <limits.h>
#include <stdint.h>
#ifndef TPB
#define TPB 256
#endif

enum { OUT = 0, UNDECIDED = 1, IN = 2 };
__device__ static uint64_t hash30(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x & 0x3fffffffull;
}
/* a row's key: state, hash and index; the index is global under MPI (the
 * rank's first row + the local one), so that keys compare across ranks */
__device__ static uint64_t key(int state, uint32_t g) { return ((uint64_t)state << 62) | (hash30((uint64_t)g) << 32) | g; }
__device__ static int key_state(uint64_t k) { return (int)(k >> 62); }
__device__ static uint32_t key_index(uint64_t k) { return (uint32_t)k; }

#define ROW_LOOP(n) for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

/* strong couplings: the host's NG_AMG_STRONG (amg.h): |a| or, signed, -a against theta s_i s_j
 * (the host's left-to-right products, not contracted) */
__device__ static bool strong(double a, double theta, double si, double sj, int sgn)
{
  return (sgn ? -a : fabs(a)) >= __dmul_rn(__dmul_rn(theta, si), sj);
}

/* rows base + i (base: 0 on one rank, the rank's first row under MPI) */
static __global__ void k_init_keys(int32_t n, uint32_t base, const int64_t *Srp, uint64_t *T)
{
  ROW_LOOP(n) T[i] = key(Srp[i + 1] > Srp[i] ? UNDECIDED : OUT, base + (uint32_t)i);
}

/* the count is summed over the warp before its one atomic (an atomic per
 * thread on the one counter serialised the first rounds) */
static __global__ void k_decide(int32_t n, uint32_t base, uint64_t *T, const uint64_t *M2, int *undecided)
{
  int c = 0;
  ROW_LOOP(n) {
    if (key_state(T[i]) != UNDECIDED) continue;
    uint32_t me = base + (uint32_t)i;
    if (key_index(M2[i]) == me) T[i] = key(IN, me);
    else if (key_state(M2[i]) == IN) T[i] = key(OUT, me);
    else c++;
  }
  for (int o = 16; o > 0; o /= 2) c += __shfl_down_sync(0xffffffffu, c, o);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(undecided, c);
}

/* ---- the aggregation's row kernels, a group of GL lanes per row ----------
 * One lane per row reads a 27-point row's entries 27 apart across a warp (a
 * new cache line per lane and entry); GL lanes per row read them side by side.
 * Every lane of a group works on the same row, so the group's shuffles and
 * ballots (mask group_mask()) see all of its lanes; results are the same as
 * one lane's loop in row order: maxima, first matches by the lowest set bit,
 * sums added in row order one matching entry at a time. */
#define GL 8
#define GROUP_LOOP(n)                                                                            \
  for (int32_t i = (int32_t)((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / GL); i < (n);   \
       i += (int32_t)((int64_t)gridDim.x * blockDim.x / GL))
__device__ static unsigned group_mask() { return ((1u << GL) - 1) << ((threadIdx.x & 31) & ~(GL - 1)); }
__device__ static int group_lane() { return threadIdx.x & (GL - 1); }
/* the group's predicate bits, lane 0 of the group in bit 0 */
__device__ static unsigned group_ballot(unsigned m, bool p)
{
  return (__ballot_sync(m, p) >> ((threadIdx.x & 31) & ~(GL - 1))) & ((1u << GL) - 1);
}

/* row i's diagonal entries added in row order, the group's GL lanes
 * reading the row side by side (every lane gets the sum) */
template <typename OA>
__device__ static double group_diagonal(int32_t i, const OA *rp, const int32_t *col, const double *val)
{
  unsigned m = group_mask();
  int gl = group_lane();
  double d = 0.0;
  for (OA k0 = rp[i], e = rp[i + 1]; k0 < e; k0 += GL) {
    OA k = k0 + gl;
    bool isd = k < e && col[k] == i;
    double v = isd ? val[k] : 0.0;
    for (unsigned b = group_ballot(m, isd); b; b &= b - 1) d += __shfl_sync(m, v, __ffs(b) - 1, GL);
  }
  return d;
}

/* s[i] = sqrt(|a_ii|), the diagonal entries added in row order (the host's
 * summation order); flag = 1 on a zero diagonal */
static __global__ void k_sqrt_diag_g(int32_t n, const int64_t *rp, const int32_t *col, const double *val, double *s, int *flag)
{
  GROUP_LOOP(n) {
    int gl = group_lane();
    double d = group_diagonal(i, rp, col, val);
    if (gl == 0) {
      if (d == 0.0) atomicExch(flag, 1);
      s[i] = sqrt(fabs(d));
    }
  }
}

/* strong couplings: count them (cnt) or pack their columns in row order (Srp, Scol) */
static __global__ void k_strength_g(int32_t n, const int64_t *rp, const int32_t *col, const double *val, const double *s,
                             double theta, int sgn, int64_t *cnt, const int64_t *Srp, int32_t *Scol)
{
  GROUP_LOOP(n) {
    unsigned m = group_mask();
    int gl = group_lane();
    int32_t c = 0;
    int64_t base = Srp ? Srp[i] : 0;
    double si = s[i];
    for (int64_t k0 = rp[i], e = rp[i + 1]; k0 < e; k0 += GL) {
      int64_t k = k0 + gl;
      int32_t j = -1;
      bool p = false;
      if (k < e) {
        j = col[k];
        p = j != i && strong(val[k], theta, si, s[j], sgn);
      }
      unsigned b = group_ballot(m, p);
      if (p && Scol) Scol[base + c + __popc(b & ((1u << gl) - 1))] = j;
      c += __popc(b);
    }
    if (cnt && gl == 0) cnt[i] = c;
  }
}

/* the largest key of row j and its neighbours, over the group's lanes */
__device__ static uint64_t group_max(unsigned m, int gl, int32_t j, const int64_t *Srp, const int32_t *Scol,
                                     const uint64_t *in)
{
  uint64_t mx = in[j];
  for (int64_t k = Srp[j] + gl, e = Srp[j + 1]; k < e; k += GL) {
    uint64_t v = in[Scol[k]];
    if (v > mx) mx = v;
  }
  for (int off = GL / 2; off > 0; off /= 2) {
    uint64_t o = __shfl_xor_sync(m, mx, off, GL);
    if (o > mx) mx = o;
  }
  return mx;
}

/* out[i] = the largest key of i and its neighbours */
static __global__ void k_max_neighbours_g(int32_t n, const int64_t *Srp, const int32_t *Scol, const uint64_t *in, uint64_t *out)
{
  GROUP_LOOP(n) {
    uint64_t mx = group_max(group_mask(), group_lane(), i, Srp, Scol, in);
    if (group_lane() == 0) out[i] = mx;
  }
}

/* ---- MIS(2)'s late rounds over the undecided rows only --------------------
 * Once few rows are undecided, a round computes the maxima only where an
 * undecided row reads them: M1 on each undecided row and its neighbours,
 * then M2 and the decision on the undecided rows, which are listed (in any
 * order: a row's result depends on the round's starting keys only, so the
 * rounds decide exactly as the dense ones). Loops are uniform per warp
 * (32 / GL rows a warp step), so a warp's shuffles and ballots see all of
 * its lanes. */

/* list the undecided rows (warp-aggregated appends) */
static __global__ void k_list_undecided(int32_t n, const uint64_t *T, int32_t *list, int *count)
{
  int lane = threadIdx.x & 31;
  for (int64_t w0 = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) & ~31ll; w0 < n;
       w0 += (int64_t)gridDim.x * blockDim.x) {
    int32_t i = (int32_t)(w0 + lane);
    bool p = i < n && key_state(T[i]) == UNDECIDED;
    unsigned b = __ballot_sync(0xffffffffu, p);
    int at = 0;
    if (lane == 0 && b) at = atomicAdd(count, __popc(b));
    at = __shfl_sync(0xffffffffu, at, 0);
    if (p) list[at + __popc(b & ((1u << lane) - 1))] = i;
  }
}

/* M1 on every listed row and its neighbours (a neighbour shared by two
 * listed rows gets the same value twice) */
static __global__ void k_max1_listed(int32_t nu, const int32_t *list, const int64_t *Srp, const int32_t *Scol,
                                     const uint64_t *T, uint64_t *M1)
{
  const int per_warp = 32 / GL, lane = threadIdx.x & 31, gl = group_lane();
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32, nwarps = (int64_t)gridDim.x * blockDim.x / 32;
  unsigned m = group_mask();
  for (int64_t r0 = warp * per_warp; r0 < nu; r0 += nwarps * per_warp) {
    int64_t r = r0 + lane / GL;
    if (r >= nu) continue; /* the whole group: its lanes share r */
    int32_t u = list[r];
    uint64_t mx = group_max(m, gl, u, Srp, Scol, T);
    if (gl == 0) M1[u] = mx;
    for (int64_t k = Srp[u], e = Srp[u + 1]; k < e; k++) {
      int32_t j = Scol[k];
      mx = group_max(m, gl, j, Srp, Scol, T);
      if (gl == 0) M1[j] = mx;
    }
  }
}

/* M2 and k_decide's decision on every listed row; the rows left undecided
 * are appended to next (warp-aggregated) and counted */
static __global__ void k_decide_listed(int32_t nu, const int32_t *list, const int64_t *Srp, const int32_t *Scol,
                                       const uint64_t *M1, uint64_t *T, int32_t *next, int *count)
{
  const int per_warp = 32 / GL, lane = threadIdx.x & 31, gl = group_lane();
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32, nwarps = (int64_t)gridDim.x * blockDim.x / 32;
  unsigned m = group_mask();
  for (int64_t r0 = warp * per_warp; r0 < nu; r0 += nwarps * per_warp) {
    int64_t r = r0 + lane / GL;
    bool left = false;
    int32_t u = 0;
    if (r < nu) {
      u = list[r];
      uint64_t m2 = group_max(m, gl, u, Srp, Scol, M1);
      if (gl == 0) {
        if (key_index(m2) == (uint32_t)u) T[u] = key(IN, (uint32_t)u);
        else if (key_state(m2) == IN) T[u] = key(OUT, (uint32_t)u);
        else left = true;
      }
    }
    unsigned b = __ballot_sync(0xffffffffu, left);
    int at = 0;
    if (lane == 0 && b) at = atomicAdd(count, __popc(b));
    at = __shfl_sync(0xffffffffu, at, 0);
    if (left) next[at + __popc(b & ((1u << lane) - 1))] = u;
  }
}

/* neighbours of a root join it (the first root in column order) */
static __global__ void k_step_g(int32_t n, const int64_t *Srp, const int32_t *Scol, const uint64_t *T, const int32_t *agg,
                         int32_t *step)
{
  GROUP_LOOP(n) {
    unsigned m = group_mask();
    int gl = group_lane();
    int32_t a = agg[i];
    if (a < 0)
      for (int64_t k0 = Srp[i], e = Srp[i + 1]; k0 < e; k0 += GL) {
        int64_t k = k0 + gl;
        int32_t c = k < e ? Scol[k] : 0;
        unsigned b = group_ballot(m, k < e && key_state(T[c]) == IN);
        if (b) {
          a = agg[__shfl_sync(m, c, __ffs(b) - 1, GL)];
          break;
        }
      }
    if (gl == 0) step[i] = a;
  }
}

/* the rest joins its first (column order) assigned neighbour's aggregate */
static __global__ void k_join_g(int32_t n, const int64_t *Srp, const int32_t *Scol, const int32_t *step, int32_t *agg)
{
  GROUP_LOOP(n) {
    unsigned m = group_mask();
    int gl = group_lane();
    int32_t a = step[i];
    if (a < 0)
      for (int64_t k0 = Srp[i], e = Srp[i + 1]; k0 < e; k0 += GL) {
        int64_t k = k0 + gl;
        int32_t v = k < e ? step[Scol[k]] : -1;
        unsigned b = group_ballot(m, v >= 0);
        if (b) {
          a = __shfl_sync(m, v, __ffs(b) - 1, GL);
          break;
        }
      }
    if (gl == 0) agg[i] = a;
  }
}

static __global__ void k_is_root(int32_t n, const uint64_t *T, int64_t *flag)
{
  ROW_LOOP(n) flag[i] = key_state(T[i]) == IN;
}
static __global__ void k_number_roots(int32_t n, const uint64_t *T, const int64_t *pos, int32_t *agg)
{
  ROW_LOOP(n) agg[i] = key_state(T[i]) == IN ? (int32_t)pos[i] : -1;
}
static __global__ void k_is_leftover(int32_t n, const int64_t *Srp, const int32_t *agg, int64_t *flag)
{
  ROW_LOOP(n) flag[i] = agg[i] < 0 && Srp[i + 1] > Srp[i];
}
static __global__ void k_number_leftover(int32_t n, const int64_t *Srp, const int64_t *pos, int32_t count, int32_t *agg)
{
  ROW_LOOP(n) if (agg[i] < 0 && Srp[i + 1] > Srp[i]) agg[i] = count + (int32_t)pos[i];
}

static __global__ void k_agg_size(int32_t n, const int32_t *agg, int32_t *size)
{
  ROW_LOOP(n) if (agg[i] >= 0) atomicAdd(&size[agg[i]], 1);
}
static __global__ void k_ptent(int32_t n, const int32_t *agg, const int32_t *size, double *ptent)
{
  ROW_LOOP(n) ptent[i] = agg[i] >= 0 ? 1.0 / sqrt((double)size[agg[i]]) : 0.0;
}

/* Row i of P: the sorted distinct aggregates of row i's columns, sorted in
 * place in scratch (A's row slots) by insertion; count, then copy. */
static __global__ void k_ppattern(int32_t n, const int64_t *rp, const int32_t *col, const int32_t *agg, int32_t *scratch,
                           int64_t *cnt, const int32_t *Prp, int32_t *Pcol)
{
  ROW_LOOP(n) {
    int32_t *s = scratch + rp[i], m = 0;
    if (!Pcol) {
      for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
        int32_t a = agg[col[k]], j = m;
        if (a < 0) continue;
        while (j > 0 && s[j - 1] > a) j--;
        if (j > 0 && s[j - 1] == a) continue;
        for (int32_t t = m; t > j; t--) s[t] = s[t - 1];
        s[j] = a;
        m++;
      }
      cnt[i] = m;
    } else {
      for (int32_t p = Prp[i]; p < Prp[i + 1]; p++) Pcol[p] = s[p - Prp[i]];
    }
  }
}

__device__ static int32_t find_col(const int32_t *col, int32_t lo, int32_t hi, int32_t c)
{
  while (hi - lo > 1) {
    int32_t mid = (lo + hi) / 2;
    if (col[mid] <= c) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* P = (I - omega D^-1 A_F) P_tent, the host's order of operations without
 * contraction (explicit _rn), so P equals the host's for the same omega.
 * sd != NULL (-amg_filter): A_F without the couplings that are not strong
 * at threshold f, added to the diagonal in row order (ng_amg_smooth_values). */
static __global__ void k_pvalues(int32_t n, const int64_t *rp, const int32_t *col, const double *val, const int32_t *agg,
                          const double *ptent, double omega, const double *sd, double f, int sgn, const double *lump,
                          const int32_t *Prp, const int32_t *Pcol, double *Pval, int *flag)
{
  ROW_LOOP(n) {
    int32_t lo = Prp[i], hi = Prp[i + 1];
    double d = 0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      if (col[k] == i) d += val[k];
    for (int32_t p = lo; p < hi; p++) Pval[p] = 0.0;
    if (d == 0.0) {
      atomicExch(flag, 1);
      continue;
    }
    double s = -omega / d, df = lump ? __dadd_rn(d, lump[i]) : d;
    if (sd)
      for (int64_t k = rp[i]; k < rp[i + 1]; k++)
        if (col[k] != i && !strong(val[k], f, sd[i], sd[col[k]], sgn)) df = __dadd_rn(df, val[k]);
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      int32_t j = col[k];
      double v = val[k];
      if (agg[j] < 0) continue;
      if ((sd || lump) && j == i) v = df;
      else if (sd && !strong(v, f, sd[i], sd[j], sgn)) continue;
      int32_t p = find_col(Pcol, lo, hi, agg[j]);
      Pval[p] = __dadd_rn(Pval[p], __dmul_rn(__dmul_rn(s, v), ptent[j]));
    }
    if (agg[i] >= 0) {
      int32_t p = find_col(Pcol, lo, hi, agg[i]);
      Pval[p] = __dadd_rn(Pval[p], ptent[i]);
    }
  }
}

/* ---- P's pattern and values, a group of G lanes per row (G >= the longest
 * row: one entry a lane) ----------------------------------------------------
 * k_ppattern / k_pvalues give a row to one lane, which reads its 27 entries
 * 27 apart across the warp and sorts with an insertion sort in a scratch
 * array as long as A (30 + 34 ms at lap27:256 on the H100). Here the row's
 * entries sit in the group's lanes side by side: a lane owns P entry
 * (i, a) when it holds the first occurrence of aggregate a in the row
 * (__match_any_sync), its place among the row's aggregates is the number of
 * smaller owned ones (G shuffles), and its value adds the row's terms for a
 * one at a time in row order (a ballot loop), so that P equals k_pvalues'
 * (and the host's) bit for bit. mode 0: counts; 1: columns and values; 2:
 * values (an update). */
template <int G> __device__ static unsigned pgroup_mask()
{
  return G == 32 ? 0xffffffffu : ((1u << G) - 1) << ((threadIdx.x & 31) & ~(G - 1));
}
template <int G>
static __global__ void __launch_bounds__(TPB) k_prow(int mode, int32_t n, const int64_t *rp, const int32_t *col,
                                                     const double *val, const int32_t *agg, const double *ptent,
                                                     double omega, const double *sd, double f, int sgn,
                                                     const double *lump, int64_t *cnt, const int32_t *Prp,
                                                     int32_t *Pcol, double *Pval, int *flag)
{
  /* each lane's aggregate and term for the group's first lanes to read (a
   * shuffle loop over all the row's lanes was most of the kernel's time) */
  __shared__ int32_t sa[TPB];
  __shared__ double sterm[TPB];
  const unsigned m = pgroup_mask<G>();
  const int gl = threadIdx.x & (G - 1), shift = (threadIdx.x & 31) & ~(G - 1);
  const int base = threadIdx.x & ~(G - 1); /* the group's first thread */
  const int64_t stride = (int64_t)gridDim.x * blockDim.x / G;
  for (int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G; r < n; r += stride) {
    const int32_t i = (int32_t)r;
    const int64_t k = rp[i] + gl;
    const bool valid = k < rp[i + 1];
    const int32_t j = valid ? col[k] : -1;
    const int32_t a = valid ? agg[j] : -1;
    const bool has = a >= 0;
    const unsigned same = __match_any_sync(m, has ? a : -1);
    const bool first = has && (int)(__ffs(same) - 1) == (int)(threadIdx.x & 31);
    const unsigned firsts = (__ballot_sync(m, first) & m) >> shift;
    __syncwarp(m); /* the previous row's reads of sa and sterm are done */
    sa[threadIdx.x] = a;
    __syncwarp(m);
    int rank = 0;
    if (first)
      for (unsigned b = firsts; b; b &= b - 1) rank += sa[base + __ffs(b) - 1] < a;
    if (mode == 0) {
      if (gl == 0) cnt[i] = __popc(firsts);
      continue;
    }
    const int32_t lo = Prp[i];
    if (mode == 1 && first) Pcol[lo + rank] = a;
    /* the diagonal, its entries added in row order */
    const double v = valid ? val[k] : 0.0;
    double d = 0.0;
    for (unsigned b = (__ballot_sync(m, valid && j == i) & m) >> shift; b; b &= b - 1)
      d += __shfl_sync(m, v, __ffs(b) - 1, G);
    if (d == 0.0) {
      if (first) Pval[lo + rank] = 0.0;
      if (gl == 0) atomicExch(flag, 1);
      continue;
    }
    const double s = -omega / d;
    /* -amg_filter: the weak couplings go onto the diagonal, in row order */
    bool st = true;
    double df = lump ? __dadd_rn(d, lump[i]) : d;
    if (sd) {
      st = valid && j != i && strong(v, f, sd[i], sd[j], sgn);
      for (unsigned b = (__ballot_sync(m, valid && j != i && !st) & m) >> shift; b; b &= b - 1)
        df = __dadd_rn(df, __shfl_sync(m, v, __ffs(b) - 1, G));
    }
    const bool incl = has && (!sd || j == i || st);
    const double term = incl ? __dmul_rn(__dmul_rn(s, (sd || lump) && j == i ? df : v), ptent[j]) : 0.0;
    /* a first lane adds the included terms of its aggregate in row order */
    const unsigned mine = (same & __ballot_sync(m, incl) & m) >> shift;
    sterm[threadIdx.x] = term;
    __syncwarp(m);
    if (first) {
      double acc = 0.0;
      for (unsigned b = mine; b; b &= b - 1) acc = __dadd_rn(acc, sterm[base + __ffs(b) - 1]);
      if (agg[i] == a) acc = __dadd_rn(acc, ptent[i]);
      Pval[lo + rank] = acc;
    }
  }
}

/* *len = the longest row (atomicMax after a warp reduction) */
static __global__ void k_max_row(int32_t n, const int64_t *rp, int *len)
{
  int mx = 0;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t l = rp[i + 1] - rp[i];
    int c = l > INT_MAX ? INT_MAX : (int)l;
    mx = c > mx ? c : mx;
  }
  for (int o = 16; o > 0; o /= 2) {
    int x = __shfl_down_sync(0xffffffffu, mx, o);
    mx = x > mx ? x : mx;
  }
  if ((threadIdx.x & 31) == 0 && mx) atomicMax(len, mx);
}

/* Blocks of TPB threads for n items (at least 1; a grid-stride loop covers
 * the rest past 8 x 65535 blocks). */
static inline int blocks(int64_t n)
{
  int64_t b = (n + TPB - 1) / TPB;
  return (int)(b < 1 ? 1 : b > 65535 * 8 ? 65535 * 8 : b);
}

/* out[i] = in[i] for i <= n: 64-bit row offsets narrowed (the caller checked they fit) */
static __global__ void k_narrow(int32_t n, const int64_t *in, int32_t *out)
{
  for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += gridDim.x * blockDim.x) out[i] = (int32_t)in[i];
}
/* out[i] = in[i] for i <= n: a 32-bit row-offset array widened */
static __global__ void k_widen(int32_t n, const int32_t *in, int64_t *out)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i <= n; i += (int64_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}
#endif
