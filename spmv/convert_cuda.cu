/* spmv/convert_cuda.cu: the GPU converters of dia, dia_half, ell, ellr and
 * sell (METHODS.md section 2) from a CSR on the device, one thread per row,
 * slot or slice. Each writes the same arrays, in the same order and with the
 * same summation order per slot, as the host converter in dia.c, ell.c or
 * sell.c, and refuses the same matrices with the same messages; the GPU
 * tables call them for create and update_values (no host conversion), and
 * test/test_formats_gpu.c compares them with the host converters byte for
 * byte (through test/formats_cuda_host.cu). */
#include "convert_cuda.h"
#include "autotune.h"
#include <new>
#include <thrust/count.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

namespace {

const int TPB = 256;
inline unsigned blocks(int64_t m) { return (unsigned)((m + TPB - 1) / TPB); }
#define TID (blockIdx.x * (int64_t)blockDim.x + threadIdx.x)

/* thrust throws; the library returns statuses */
#define THRUST_TRY(call, label)                                                                                       \
  do {                                                                                                               \
    try {                                                                                                            \
      call;                                                                                                          \
    } catch (std::exception & e) {                                                                                   \
      return NG_ERROR(NG_ERR_CUDA, "%s failed on the device: %s", label, e.what());                                   \
    }                                                                                                                \
  } while (0)

template <typename T> ng_status dalloc(T **p, int64_t count, const char *what)
{
  *p = NULL;
  return ng_cuda_malloc((void **)p, (size_t)(count > 0 ? count : 1) * sizeof(T), what);
}
template <typename T> ng_status down(cudaStream_t s, T *host, const T *dev, int64_t count)
{
  if (count > 0) NG_CUDA_CHECK(cudaMemcpyAsync(host, dev, (size_t)count * sizeof(T), cudaMemcpyDeviceToHost, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}
/* a converter's temporary from the context's pool (ng_cuda_tmp_malloc),
 * freed in the stream's order at scope exit */
template <typename T> struct tptr {
  struct ng_cuda *cu;
  T *p = NULL;
  explicit tptr(ng_context ctx) : cu(ctx->cuda) {}
  ~tptr() { ng_cuda_tmp_free(cu, p); }
  ng_status alloc(int64_t count, const char *what)
  {
    return ng_cuda_tmp_malloc(cu, (void **)&p, (size_t)(count > 0 ? count : 1) * sizeof(T), what);
  }
};
/* frees a device pointer at scope exit unless released */
template <typename T> struct dptr {
  T *p = NULL;
  ~dptr() { ng_cuda_free(p); }
  T *take()
  {
    T *q = p;
    p = NULL;
    return q;
  }
};

__global__ void k_row_len(int64_t n, const int64_t *rp, int64_t *len)
{
  int64_t i = TID;
  if (i < n) len[i] = rp[i + 1] - rp[i];
}
__global__ void k_sort_keys(int64_t n, const int64_t *rp, int sigma, unsigned long long *key, int32_t *row)
{
  int64_t i = TID;
  if (i >= n) return;
  key[i] = ((unsigned long long)(i / sigma) << 32) | (unsigned long long)(0xFFFFFFFFu - (uint32_t)(rp[i + 1] - rp[i]));
  row[i] = (int32_t)i;
}

/* ---- ELL / ELLR: ell.c's ng_ell_fill, one thread per row ------------------------- */
__global__ void k_ell_fill(int64_t n, int32_t w, const int64_t *rp, const int32_t *acol, const double *aval,
                           int32_t *col, double *val, int32_t *rl)
{
  int64_t i = TID;
  if (i >= n) return;
  int64_t p0 = rp[i], len = rp[i + 1] - p0;
  int32_t pad = len ? acol[p0 + len - 1] : 0;
  for (int32_t k = 0; k < w; k++) {
    size_t s = (size_t)k * n + i;
    if (col) col[s] = k < len ? acol[p0 + k] : pad;
    val[s] = k < len ? aval[p0 + k] : 0.0;
  }
  if (rl) rl[i] = (int32_t)len;
}

/* ---- SELL: sell.c's ng_sell_fill, one thread per sorted position ------------------ */
__global__ void k_sell_width(int64_t n, int C, int64_t ns, const int64_t *rp, const int32_t *perm, int64_t *slots)
{
  int64_t s = TID;
  if (s >= ns) return;
  int64_t w = 0;
  for (int64_t t = s * C; t < (s + 1) * C && t < n; t++) {
    int64_t l = rp[perm[t] + 1] - rp[perm[t]];
    w = l > w ? l : w;
  }
  slots[s] = w * C;
}
__global__ void k_sell_fill(int64_t nt, int64_t n, int C, const int64_t *sptr, const int32_t *perm, const int64_t *rp,
                            const int32_t *acol, const double *aval, int32_t *col, double *val)
{
  int64_t t = TID;
  if (t >= nt) return;
  int64_t s = t / C, r = t % C;
  int64_t w = (sptr[s + 1] - sptr[s]) / C, p0 = 0, len = 0;
  if (t < n) {
    p0 = rp[perm[t]];
    len = rp[perm[t] + 1] - p0;
  }
  int32_t pad = len ? acol[p0 + len - 1] : 0;
  for (int64_t k = 0; k < w; k++) {
    int64_t q = sptr[s] + k * C + r;
    if (col) col[q] = k < len ? acol[p0 + k] : pad;
    val[q] = k < len ? aval[p0 + k] : 0.0;
  }
}

/* ---- DIA: dia.c's ng_dia_build / ng_dia_fill ------------------------------------- */
/* first k >= 1 where +k and -k differ */
__global__ void k_dia_symmetric_pattern(int64_t n, const unsigned char *mark, unsigned long long *first)
{
  int64_t k = TID + 1;
  if (k < n && mark[n - 1 + k] != mark[n - 1 - k]) atomicMin(first, (unsigned long long)k);
}
/* the diagonals' offsets into the block's shared memory: dia_find's binary
 * search reads them for every entry */
__device__ void dia_offsets_shared(const int32_t *goff, int32_t nd, int32_t *off)
{
  for (int t = threadIdx.x; t < nd; t += blockDim.x) off[t] = goff[t];
  __syncthreads();
}
__device__ int32_t dia_find(const int32_t *off, int32_t nd, int64_t o)
{
  int32_t lo = 0, hi = nd - 1;
  while (lo <= hi) {
    int32_t m = (lo + hi) / 2;
    if (off[m] == o) return m;
    if (off[m] < o) lo = m + 1;
    else hi = m - 1;
  }
  return -1;
}
/* dia_find with a guess tried first: a stencil row that holds every
 * diagonal in column order has its k-th entry on diagonal k (its upper
 * k-th, mirrored, on L-1-k), so interior rows skip the binary search and
 * its branches (the latency Nsight Compute found in the fill). The offsets
 * are distinct, so a hit is the diagonal whatever the row's order. */
__device__ int32_t dia_find_guess(const int32_t *off, int32_t nd, int64_t o, int64_t guess)
{
  if (guess >= 0 && guess < nd && off[guess] == o) return (int32_t)guess;
  return dia_find(off, nd, o);
}
/* The DIA kernels with DG lanes a row: with a lane a row, a 27-point row's
 * entries were read 27 apart across the warp (the marks, the fill and the
 * mirror made most of the 46 ms of lap27:256's dia_half conversion on the
 * H100); the group reads them side by side. The stored count is summed over
 * the warp before its one atomic. An entry adds into its slot as the
 * lane-a-row loop did, one entry at a time in row order: the lanes of a
 * chunk whose entries share a slot (duplicates) are walked in lane order by
 * the slot's first lane, so the sums are the same bit for bit. */
#define DG 8
__device__ unsigned dg_mask() { return ((1u << DG) - 1) << ((threadIdx.x & 31) & ~(DG - 1)); }
/* slot[q] += v in row order over the chunk's lanes (q < 0: nothing) */
__device__ void dg_add(unsigned m, int64_t q, double v, double *slot)
{
  const int lane = threadIdx.x & 31, shift = lane & ~(DG - 1);
  unsigned same = __match_any_sync(m, q);
  /* no two lanes of the chunk on one slot (the rule: duplicates are rare):
   * each adds its own entry, slot + v as the walk below would */
  if (!__any_sync(m, q >= 0 && __popc(same) > 1)) {
    if (q >= 0) slot[q] += v;
    return;
  }
  bool lead = q >= 0 && (int)(__ffs(same) - 1) == lane;
  double acc = lead ? slot[q] : 0.0;
  for (unsigned b = (__ballot_sync(m, q >= 0) & m) >> shift; b; b &= b - 1) {
    int src = __ffs(b) - 1;
    int64_t qs = __shfl_sync(m, q, src, DG);
    double vs = __shfl_sync(m, v, src, DG);
    if (lead && qs == q) acc += vs;
  }
  if (lead) slot[q] = acc;
}
/* mark[off + n - 1] = 1 for every entry's diagonal offset. A stencil has a
 * few dozen offsets, so every warp wrote the same few bytes: their L2 lines
 * served all of the matrix's entries (most of lap27:256's 3.9 ms). Each
 * block now keeps the offsets it has marked in a shared-memory set and
 * walks its rows grid-stride (a few blocks per multiprocessor), so the
 * global marks number about blocks x offsets; a set that fills marks
 * directly. */
#define MARK_SET 256
__global__ void k_dia_mark_g(int64_t n, int half, const int64_t *rp, const int32_t *acol, unsigned char *mark,
                             unsigned long long *stored)
{
  __shared__ int32_t seen[MARK_SET];
  for (int t = threadIdx.x; t < MARK_SET; t += blockDim.x) seen[t] = INT32_MIN; /* |off| < n <= 2^30 */
  __syncthreads();
  unsigned long long c = 0;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x / DG;
  for (int64_t i = TID / DG; i < n; i += stride)
    for (int64_t p = rp[i] + (threadIdx.x & (DG - 1)); p < rp[i + 1]; p += DG) {
      int32_t off = (int32_t)((int64_t)acol[p] - i);
      uint32_t h = ((uint32_t)off * 2654435761u) & (MARK_SET - 1);
      bool fresh = true; /* marked by this thread (a full set: always) */
      for (int probe = 0; probe < MARK_SET; probe++) {
        int32_t old = atomicCAS(&seen[h], INT32_MIN, off);
        if (old == INT32_MIN) break;
        if (old == off) {
          fresh = false;
          break;
        }
        h = (h + 1) & (MARK_SET - 1);
      }
      if (fresh && !mark[off + n - 1]) mark[off + n - 1] = 1;
      c += !half || off <= 0;
    }
  for (int o = 16; o > 0; o /= 2) c += __shfl_down_sync(0xffffffffu, c, o);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(stored, c);
}
/* val[d][i] += a_ij (half: the lower triangle and the diagonal), the rows
 * walked grid-stride by groups of DG lanes. For half storage's symmetry
 * check it also sets flag[DIA_UNSORTED] when a row's columns are not
 * strictly increasing (unsorted, or duplicates) and counts the nonzero
 * strictly lower entries (flag[DIA_LOWER]). */
#define DIA_BAD_ROW 0  /* first row with an entry off the pattern's diagonals */
#define DIA_BAD_SLOT 1 /* first slot d * n + j whose mirrored upper entry differs */
#define DIA_UNSORTED 2
#define DIA_LOWER 3    /* nonzero strictly lower entries */
#define DIA_MATCHED 4  /* upper entries equal to a nonzero stored mirror */
#define DIA_FLAGS 5
__device__ void dia_count(unsigned long long c, unsigned long long *sum)
{
  for (int o = 16; o > 0; o /= 2) c += __shfl_down_sync(0xffffffffu, c, o);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(sum, c);
}
__global__ void k_dia_fill_g(int64_t n, int half, int32_t nd, const int32_t *goff, const int64_t *rp, const int32_t *acol,
                             const double *aval, double *val, unsigned long long *flag)
{
  __shared__ int32_t off[NG_DIA_MAXD];
  dia_offsets_shared(goff, nd, off);
  const unsigned m = dg_mask();
  const int64_t stride = (int64_t)gridDim.x * blockDim.x / DG;
  bool unsorted = false;
  unsigned long long lower = 0;
  for (int64_t i = TID / DG; i < n; i += stride) /* the whole group */
    for (int64_t p0 = rp[i], b = rp[i], e = rp[i + 1]; p0 < e; p0 += DG) {
      int64_t p = p0 + (threadIdx.x & (DG - 1)), q = -1;
      double v = 0.0;
      if (p < e) {
        int64_t j = acol[p], o = j - i;
        if (p > b && acol[p - 1] >= j) unsorted = true;
        if (!(half && o > 0)) {
          int32_t d = dia_find_guess(off, nd, o, p - b);
          if (d < 0) atomicMin(&flag[DIA_BAD_ROW], (unsigned long long)i);
          else q = (int64_t)d * n + i, v = aval[p];
          lower += o < 0 && v != 0.0;
        }
      }
      dg_add(m, q, v, val);
    }
  if (unsorted) flag[DIA_UNSORTED] = 1; /* rare: a plain store, every writer writes 1 */
  if (half) dia_count(lower, &flag[DIA_LOWER]);
}
/* The half storage's symmetry check in one pass after the fill, for rows in
 * strictly increasing column order (each entry is then its slot's only
 * one): every upper A(i, j), j > i, against the stored mirror val[d][j] =
 * A(j, i), off[d] = i - j. Those matching a nonzero mirror are counted: when
 * they are fewer than the nonzero lower entries, some A(j, i) != 0 has no
 * A(i, j) and the caller compares slot by slot. Nothing when the fill found
 * an unsorted row. */
__global__ void k_dia_check_g(int64_t n, int32_t nd, const int32_t *goff, const int64_t *rp, const int32_t *acol,
                              const double *aval, const double *val, unsigned long long *flag)
{
  __shared__ int32_t off[NG_DIA_MAXD];
  dia_offsets_shared(goff, nd, off);
  if (flag[DIA_UNSORTED]) return; /* the whole grid */
  const int64_t stride = (int64_t)gridDim.x * blockDim.x / DG;
  unsigned long long matched = 0;
  for (int64_t i = TID / DG; i < n; i += stride)
    for (int64_t e = rp[i + 1], p = rp[i] + (threadIdx.x & (DG - 1)); p < e; p += DG) {
      int64_t j = acol[p];
      if (j <= i) continue;
      int32_t d = dia_find_guess(off, nd, i - j, e - 1 - p);
      if (d < 0) {
        atomicMin(&flag[DIA_BAD_ROW], (unsigned long long)i);
        continue;
      }
      int64_t q = (int64_t)d * n + j;
      double l = val[q], u = aval[p];
      if (fabs(l - u) > 1e-12 * fmax(fabs(l), fabs(u))) atomicMin(&flag[DIA_BAD_SLOT], (unsigned long long)q);
      else matched += l != 0.0;
    }
  dia_count(matched, &flag[DIA_MATCHED]);
}
/* U[d][j] += A(i, j) for j > i, off[d] = i - j (the check for rows not in
 * increasing column order) */
__global__ void k_dia_mirror_g(int64_t n, int32_t nd, const int32_t *goff, const int64_t *rp, const int32_t *acol,
                               const double *aval, double *U, unsigned long long *flag)
{
  __shared__ int32_t off[NG_DIA_MAXD];
  dia_offsets_shared(goff, nd, off);
  int64_t i = TID / DG;
  if (i >= n) return;
  unsigned m = dg_mask();
  for (int64_t p0 = rp[i], e = rp[i + 1]; p0 < e; p0 += DG) {
    int64_t p = p0 + (threadIdx.x & (DG - 1)), q = -1;
    double v = 0.0;
    if (p < e) {
      int64_t j = acol[p];
      if (j > i) {
        int32_t d = dia_find(off, nd, i - j);
        if (d < 0) atomicMin(&flag[DIA_BAD_ROW], (unsigned long long)i);
        else q = (int64_t)d * n + j, v = aval[p];
      }
    }
    dg_add(m, q, v, U);
  }
}
__global__ void k_dia_compare(int64_t n, int32_t nd, const int32_t *off, const double *val, const double *U,
                              unsigned long long *bad)
{
  int64_t q = TID;
  if (q >= (int64_t)nd * n) return;
  int64_t d = q / n;
  if (off[d] == 0) return;
  double l = val[q], u = U[q];
  if (fabs(l - u) > 1e-12 * fmax(fabs(l), fabs(u))) atomicMin(&bad[DIA_BAD_SLOT], (unsigned long long)q);
}

struct is_marked {
  const unsigned char *m;
  __host__ __device__ bool operator()(int64_t k) const { return m[k] != 0; }
};
struct to_offset {
  int64_t n;
  __host__ __device__ int32_t operator()(int64_t k) const { return (int32_t)(k - (n - 1)); }
};

} // namespace

/* ---- shared pieces ------------------------------------------------------------------ */
ng_status ng_dcsr_upload(ng_context ctx, const ng_csr *A, ng_dcsr *d)
{
  cudaStream_t s = ctx->cuda->stream;
  d->n = A->nrows;
  d->ncols = A->ncols;
  d->nnz = A->nnz;
  NG_CHECK(dalloc(&d->rp, d->n + 1, "device CSR row offsets"));
  NG_CHECK(dalloc(&d->col, d->nnz, "device CSR columns"));
  NG_CHECK(dalloc(&d->val, d->nnz, "device CSR values"));
  NG_CUDA_CHECK(cudaMemcpyAsync(d->rp, A->rowptr, (size_t)(d->n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, s));
  if (d->nnz) {
    NG_CUDA_CHECK(cudaMemcpyAsync(d->col, A->col, (size_t)d->nnz * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->val, A->val, (size_t)d->nnz * sizeof(double), cudaMemcpyHostToDevice, s));
  }
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

ng_status ng_length_sort_cuda(ng_context ctx, const ng_dcsr *A, int sigma, int32_t *pos)
{
  cudaStream_t s = ctx->cuda->stream;
  int64_t n = A->n;
  if (n == 0) return NG_SUCCESS;
  dptr<unsigned long long> key;
  NG_CHECK(dalloc(&key.p, n, "length sort keys"));
  k_sort_keys<<<blocks(n), TPB, 0, s>>>(n, A->rp, sigma > 1 ? sigma : 1, key.p, pos);
  NG_CUDA_LAUNCH_CHECK();
  if (sigma > 1) THRUST_TRY(thrust::stable_sort_by_key(thrust::cuda::par.on(s), key.p, key.p + n, pos), "length sort");
  return NG_SUCCESS;
}

/* ---- ELL / ELLR ------------------------------------------------------------------------ */
ng_status ng_ell_convert_cuda(ng_context ctx, const ng_dcsr *A, int ellr, const ng_spmv_opts *o, ng_ell *E,
                              int32_t **col, double **val, int32_t **rl)
{
  cudaStream_t s = ctx->cuda->stream;
  const char *name = ellr ? "ellr" : "ell";
  int64_t n = A->n, w = 0;
  memset(E, 0, sizeof(*E));
  *col = NULL;
  *val = NULL;
  *rl = NULL;
  if (n) {
    dptr<int64_t> len;
    NG_CHECK(dalloc(&len.p, n, "row lengths"));
    k_row_len<<<blocks(n), TPB, 0, s>>>(n, A->rp, len.p);
    NG_CUDA_LAUNCH_CHECK();
    THRUST_TRY(w = thrust::reduce(thrust::cuda::par.on(s), len.p, len.p + n, (int64_t)0, thrust::maximum<int64_t>()),
               "longest row");
  }
  double mean = n ? (double)A->nnz / n : 0.0;
  if (w > 0 && (double)w > o->ell_max_ratio * mean)
    return NG_ERROR(NG_ERR_DOES_NOT_FIT,
                    "%s: longest row has %lld entries, %.1f x the mean %.2f (limit %g x; maxratio=, -ell_max_ratio)",
                    name, (long long)w, (double)w / mean, mean, o->ell_max_ratio);
  if (w > 0 && A->ncols == 0) return NG_ERROR(NG_ERR_INTERNAL, "%s: entries in a matrix with no columns", name);
  dptr<int32_t> c, r;
  dptr<double> v;
  NG_CHECK(dalloc(&c.p, w * n, "ELL columns"));
  NG_CHECK(dalloc(&v.p, w * n, "ELL values"));
  if (ellr) NG_CHECK(dalloc(&r.p, n, "ELLR row lengths"));
  E->n = (int32_t)n;
  E->ncols = (int32_t)A->ncols;
  E->width = (int32_t)w;
  E->ellr = ellr;
  E->o = *o;
  NG_CHECK(ng_ell_fill_cuda(ctx, A, E, c.p, v.p, r.p));
  *col = c.take();
  *val = v.take();
  *rl = r.take();
  return NG_SUCCESS;
}

ng_status ng_ell_fill_cuda(ng_context ctx, const ng_dcsr *A, const ng_ell *E, int32_t *col, double *val, int32_t *rl)
{
  cudaStream_t s = ctx->cuda->stream;
  if (A->n != E->n) return NG_ERROR(NG_ERR_ARGUMENT, "ell update: %lld rows given, the matrix has %d", (long long)A->n, (int)E->n);
  if (E->n) k_ell_fill<<<blocks(E->n), TPB, 0, s>>>(E->n, E->width, A->rp, A->col, A->val, col, val, rl);
  NG_CUDA_LAUNCH_CHECK();
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

/* ---- SELL-C-sigma --------------------------------------------------------------------- */
ng_status ng_sell_convert_cuda(ng_context ctx, const ng_dcsr *A, const ng_spmv_opts *o, ng_sell *S, int64_t **sptr,
                               int32_t **col, double **val, int32_t **perm)
{
  cudaStream_t s = ctx->cuda->stream;
  int64_t n = A->n;
  int C = o->sell_c, sigma = o->sell_sigma;
  memset(S, 0, sizeof(*S));
  *sptr = NULL;
  *col = NULL;
  *val = NULL;
  *perm = NULL;
  if (C < 1 || C > 1024) return NG_ERROR(NG_ERR_ARGUMENT, "sell: slice height C = %d outside 1..1024", C);
  if (sigma < 1) return NG_ERROR(NG_ERR_ARGUMENT, "sell: sorting window sigma = %d must be >= 1", sigma);
  int64_t ns = (n + C - 1) / C;
  S->n = (int32_t)n;
  S->ncols = (int32_t)A->ncols;
  S->C = C;
  S->sigma = sigma;
  S->nslices = (int32_t)ns;
  S->o = *o;
  dptr<int32_t> p, c;
  dptr<int64_t> sp, slots;
  dptr<double> v;
  NG_CHECK(dalloc(&p.p, n, "SELL permutation"));
  NG_CHECK(ng_length_sort_cuda(ctx, A, sigma, p.p));
  NG_CHECK(dalloc(&sp.p, ns + 1, "SELL slice offsets"));
  NG_CHECK(dalloc(&slots.p, ns + 1, "SELL slice sizes"));
  NG_CUDA_CHECK(cudaMemsetAsync(slots.p, 0, (size_t)(ns + 1) * sizeof(int64_t), s));
  if (ns) k_sell_width<<<blocks(ns), TPB, 0, s>>>(n, C, ns, A->rp, p.p, slots.p);
  NG_CUDA_LAUNCH_CHECK();
  THRUST_TRY(thrust::exclusive_scan(thrust::cuda::par.on(s), slots.p, slots.p + ns + 1, sp.p), "SELL slice offsets");
  ng_status st = NG_MALLOC(S->sptr, ns + 1);
  if (st != NG_SUCCESS) return ng_error_trace(st, __FILE__, __LINE__);
  if ((st = down(s, S->sptr, sp.p, ns + 1)) != NG_SUCCESS) {
    ng_sell_free(S);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  int64_t total = S->sptr[ns];
  if (total > 0 && A->ncols == 0) {
    ng_sell_free(S);
    return NG_ERROR(NG_ERR_INTERNAL, "sell: entries in a matrix with no columns");
  }
  if ((st = dalloc(&c.p, total, "SELL columns")) != NG_SUCCESS || (st = dalloc(&v.p, total, "SELL values")) != NG_SUCCESS ||
      (st = ng_sell_fill_cuda(ctx, A, S, sp.p, p.p, c.p, v.p)) != NG_SUCCESS) {
    ng_sell_free(S);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *sptr = sp.take();
  *col = c.take();
  *val = v.take();
  *perm = p.take();
  return NG_SUCCESS;
}

ng_status ng_sell_fill_cuda(ng_context ctx, const ng_dcsr *A, const ng_sell *S, const int64_t *sptr, const int32_t *perm,
                            int32_t *col, double *val)
{
  cudaStream_t s = ctx->cuda->stream;
  if (A->n != S->n) return NG_ERROR(NG_ERR_ARGUMENT, "sell update: %lld rows given, the matrix has %d", (long long)A->n, (int)S->n);
  int64_t nt = (int64_t)S->nslices * S->C;
  if (nt) k_sell_fill<<<blocks(nt), TPB, 0, s>>>(nt, S->n, S->C, sptr, perm, A->rp, A->col, A->val, col, val);
  NG_CUDA_LAUNCH_CHECK();
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

/* ---- DIA / dia_half ------------------------------------------------------------------ */
ng_status ng_dia_convert_cuda(ng_context ctx, const ng_dcsr *A, int half, const ng_spmv_opts *o, ng_dia *D,
                              double **val)
{
  cudaStream_t s = ctx->cuda->stream;
  const char *name = half ? "dia_half" : "dia";
  memset(D, 0, sizeof(*D));
  *val = NULL;
  if (A->n != A->ncols)
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "%s: needs a square block (is %d x %d)", name, (int)A->n, (int)A->ncols);
  int64_t n = A->n;
  if (n > (1 << 30))
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "%s: %d rows, more than 2^30 (row + offset must fit 32 bits)", name, (int)n);
  int64_t nk = n ? 2 * n - 1 : 0;
  tptr<unsigned char> mark(ctx);
  tptr<unsigned long long> cnt(ctx);
  NG_CHECK(mark.alloc(nk, "DIA diagonal marks"));
  NG_CHECK(cnt.alloc(2, "DIA counters"));
  NG_CUDA_CHECK(cudaMemsetAsync(mark.p, 0, (size_t)(nk > 0 ? nk : 1), s));
  unsigned long long init[2] = {0, ~0ull}, h[2];
  NG_CUDA_CHECK(cudaMemcpyAsync(cnt.p, init, sizeof(init), cudaMemcpyHostToDevice, s));
  if (n) {
    unsigned nb = blocks(n * DG), most = 8u * (unsigned)ctx->cuda->prop.multiProcessorCount;
    k_dia_mark_g<<<nb < most ? nb : most, TPB, 0, s>>>(n, half, A->rp, A->col, mark.p, cnt.p);
  }
  if (half && n > 1) k_dia_symmetric_pattern<<<blocks(n - 1), TPB, 0, s>>>(n, mark.p, cnt.p + 1);
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(down(s, h, cnt.p, 2));
  int64_t stored = (int64_t)h[0];
  if (half && h[1] != ~0ull) {
    unsigned char up;
    int64_t k = (int64_t)h[1];
    NG_CHECK(down(s, &up, mark.p + n - 1 + k, 1));
    long long present = up ? k : -k;
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "dia_half: the matrix is not symmetric (diagonal %lld is present, %lld is not)",
                    present, -present);
  }
  int64_t nall = 0, nd = 0;
  auto pol = thrust::cuda::par.on(s);
  if (nk) {
    THRUST_TRY(nall = thrust::count(pol, mark.p, mark.p + nk, (unsigned char)1), "DIA diagonal count");
    THRUST_TRY(nd = half ? thrust::count(pol, mark.p, mark.p + n, (unsigned char)1) : nall, "DIA diagonal count");
  }
  int maxd = o->dia_max_diags < NG_DIA_MAXD ? o->dia_max_diags : NG_DIA_MAXD;
  if (nall > maxd)
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "%s: %d distinct diagonals, more than the limit %d (maxdiag=, -dia_max_diags)",
                    name, (int)nall, maxd);
  if ((double)nd * n > o->dia_max_fill * (double)stored && nd > 0)
    return NG_ERROR(NG_ERR_DOES_NOT_FIT,
                    "%s: %d diagonals x %d rows = %.0f slots for %lld nonzeros, padding above the limit "
                    "(slots <= %g x nonzeros; maxfill=, -dia_max_fill)",
                    name, (int)nd, (int)n, (double)nd * n, (long long)stored, o->dia_max_fill);
  D->n = (int32_t)n;
  D->nd = (int32_t)nd;
  D->half = half;
  D->o = *o;
  tptr<int32_t> doff(ctx);
  dptr<double> v;
  NG_CHECK(doff.alloc(nd, "DIA offsets"));
  if (nd) {
    thrust::counting_iterator<int64_t> k0(0);
    THRUST_TRY(thrust::copy_if(pol, thrust::make_transform_iterator(k0, to_offset{n}),
                               thrust::make_transform_iterator(k0 + (half ? n : nk), to_offset{n}), k0, doff.p,
                               is_marked{mark.p}),
               "DIA offsets");
  }
  ng_status st = NG_MALLOC(D->off, nd);
  if (st == NG_SUCCESS) st = down(s, D->off, doff.p, nd);
  if (st == NG_SUCCESS) st = dalloc(&v.p, nd * n, "DIA values");
  if (st == NG_SUCCESS) st = ng_dia_fill_cuda(ctx, A, D, v.p);
  if (st != NG_SUCCESS) {
    ng_dia_free(D);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *val = v.take();
  return NG_SUCCESS;
}

/* A(r, c) summed over row r's entries in column c (the message of a failed
 * symmetry check; off the fast path) */
static ng_status dcsr_entry(cudaStream_t s, const ng_dcsr *A, int64_t r, int64_t c, double *a)
{
  int64_t rp[2];
  *a = 0.0;
  NG_CHECK(down(s, rp, A->rp + r, 2));
  int64_t len = rp[1] - rp[0];
  if (len <= 0) return NG_SUCCESS;
  int32_t *col = (int32_t *)malloc((size_t)len * sizeof(int32_t));
  double *v = (double *)malloc((size_t)len * sizeof(double));
  ng_status st = col && v ? NG_SUCCESS : NG_ERROR(NG_ERR_MEMORY, "dia_half: no host memory for row %lld", (long long)r);
  if (st == NG_SUCCESS) st = down(s, col, A->col + rp[0], len);
  if (st == NG_SUCCESS) st = down(s, v, A->val + rp[0], len);
  for (int64_t k = 0; st == NG_SUCCESS && k < len; k++)
    if (col[k] == c) *a += v[k];
  free(col);
  free(v);
  return st;
}

/* The values of the DIA copy from a device CSR with its pattern. Half
 * storage also checks symmetry: for rows in strictly increasing column order
 * (the usual case: a stencil, a Galerkin product) in one pass against the
 * values just stored (k_dia_check_g), one host wait in all; otherwise the
 * upper entries are summed into a mirror array first (k_dia_mirror_g) and
 * compared slot by slot, as duplicates must be added before comparing. */
ng_status ng_dia_fill_cuda(ng_context ctx, const ng_dcsr *A, const ng_dia *D, double *val)
{
  cudaStream_t s = ctx->cuda->stream;
  int64_t n = D->n, nd = D->nd;
  if (A->n != n) return NG_ERROR(NG_ERR_ARGUMENT, "dia update: %lld rows given, the matrix has %d", (long long)A->n, (int)n);
  if (nd > NG_DIA_MAXD) /* the fill kernels keep the offsets in shared memory */
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "dia update: %d diagonals, more than %d", (int)nd, NG_DIA_MAXD);
  tptr<int32_t> off(ctx);
  tptr<unsigned long long> flag(ctx);
  const unsigned long long none = ~0ull, init[DIA_FLAGS] = {none, none, 0, 0, 0};
  unsigned long long hf[DIA_FLAGS];
  NG_CHECK(off.alloc(nd, "DIA offsets"));
  NG_CHECK(flag.alloc(DIA_FLAGS, "DIA flags"));
  if (nd) NG_CUDA_CHECK(cudaMemcpyAsync(off.p, D->off, (size_t)nd * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  NG_CUDA_CHECK(cudaMemcpyAsync(flag.p, init, sizeof(init), cudaMemcpyHostToDevice, s));
  if (nd > 0 && n > 0) NG_CUDA_CHECK(cudaMemsetAsync(val, 0, (size_t)(nd * n) * sizeof(double), s));
  const unsigned nb = blocks(n * DG), most = 8u * (unsigned)ctx->cuda->prop.multiProcessorCount;
  const unsigned grid = nb < most ? nb : most;
  if (n) k_dia_fill_g<<<grid, TPB, 0, s>>>(n, D->half, (int32_t)nd, off.p, A->rp, A->col, A->val, val, flag.p);
  NG_CUDA_LAUNCH_CHECK();
  const bool check = D->half && nd > 0 && n > 0;
  if (check) k_dia_check_g<<<grid, TPB, 0, s>>>(n, (int32_t)nd, off.p, A->rp, A->col, A->val, val, flag.p);
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(down(s, hf, flag.p, DIA_FLAGS)); /* the one host wait of the usual case */
  if (hf[DIA_BAD_ROW] != none)
    return NG_ERROR(NG_ERR_ARGUMENT, "%s: row %lld has an entry on a diagonal that is not in the pattern",
                    D->half ? "dia_half" : "dia", (long long)hf[DIA_BAD_ROW]);
  if (!check) return NG_SUCCESS;
  tptr<double> U(ctx);
  if (hf[DIA_BAD_SLOT] == none && (hf[DIA_UNSORTED] || hf[DIA_MATCHED] != hf[DIA_LOWER])) {
    /* rows out of column order, or a lower entry with no upper one: the
     * upper entries summed into a mirror array, then slot by slot */
    NG_CHECK(U.alloc(nd * n, "DIA symmetry check"));
    NG_CUDA_CHECK(cudaMemsetAsync(U.p, 0, (size_t)(nd * n) * sizeof(double), s));
    k_dia_mirror_g<<<blocks(n * DG), TPB, 0, s>>>(n, (int32_t)nd, off.p, A->rp, A->col, A->val, U.p, flag.p);
    NG_CUDA_LAUNCH_CHECK();
    k_dia_compare<<<blocks(nd * n), TPB, 0, s>>>(n, (int32_t)nd, off.p, val, U.p, flag.p);
    NG_CUDA_LAUNCH_CHECK();
    NG_CHECK(down(s, hf, flag.p, DIA_FLAGS));
    if (hf[DIA_BAD_ROW] != none)
      return NG_ERROR(NG_ERR_INTERNAL, "dia_half: row %lld has an upper entry with no stored mirror",
                      (long long)hf[DIA_BAD_ROW]);
  }
  if (hf[DIA_BAD_SLOT] != none) {
    int64_t q = (int64_t)hf[DIA_BAD_SLOT];
    int32_t d = (int32_t)(q / n), r = (int32_t)(q % n), c = r + D->off[d];
    double l, u;
    NG_CHECK(down(s, &l, val + q, 1));
    NG_CHECK(dcsr_entry(s, A, c, r, &u));
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "dia_half: the matrix is not symmetric (A(%d,%d) = %g but A(%d,%d) = %g)",
                    (int)r, (int)c, l, (int)c, (int)r, u);
  }
  return NG_SUCCESS;
}

extern "C" ng_status ng_dcsr_create(ng_context ctx, const ng_csr *A, void **dcsr)
{
  ng_dcsr *d = new (std::nothrow) ng_dcsr;
  *dcsr = NULL;
  if (!d) return NG_ERROR(NG_ERR_MEMORY, "no memory for a device CSR handle");
  ng_status st = ng_dcsr_upload(ctx, A, d);
  if (st != NG_SUCCESS) {
    delete d;
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *dcsr = d;
  return NG_SUCCESS;
}
extern "C" void ng_dcsr_destroy(void *dcsr) { delete (ng_dcsr *)dcsr; }

/* The 32-bit row offsets of a csr instance, widened for the converters. */
static __global__ void k_widen(int64_t m, const int32_t *a, int64_t *b)
{
  int64_t i = TID;
  if (i < m) b[i] = a[i];
}

/* The csr instance's arrays: 64-bit offsets borrowed as they are, 32-bit
 * ones widened into a new array. */
extern "C" ng_status ng_dcsr_view(ng_context ctx, const ng_spmv_ops *ops, void *data, const ng_csr *A, void **dcsr)
{
  int32_t *rp32 = NULL, *col = NULL;
  int64_t *rp64 = NULL;
  double *val = NULL;
  *dcsr = NULL;
  if (ng_csr_cuda_arrays64(ops, data, &rp64, &col, &val) != NG_SUCCESS &&
      ng_csr_cuda_arrays(ops, data, &rp32, &col, &val) != NG_SUCCESS)
    return NG_ERR_ARGUMENT; /* quiet, as documented */
  ng_dcsr *d = new (std::nothrow) ng_dcsr;
  if (!d) return NG_ERROR(NG_ERR_MEMORY, "no memory for a device CSR handle");
  d->borrowed = true;
  d->n = A->nrows;
  d->ncols = A->ncols;
  d->nnz = A->nnz;
  d->col = col;
  d->val = val;
  if (rp64) {
    d->rp = rp64;
    d->borrowed_rp = true;
    *dcsr = d;
    return NG_SUCCESS;
  }
  ng_status st = dalloc(&d->rp, d->n + 1, "device CSR row offsets (64-bit view)");
  if (st == NG_SUCCESS && rp32) {
    k_widen<<<blocks(d->n + 1), TPB, 0, ctx->cuda->stream>>>(d->n + 1, rp32, d->rp);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "widening the CSR row offsets failed: %s", cudaGetErrorString(e));
  } else if (st == NG_SUCCESS) { /* no rows: rowptr may be absent */
    cudaError_t e = cudaMemsetAsync(d->rp, 0, (size_t)(d->n + 1) * sizeof(int64_t), ctx->cuda->stream);
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "clearing the CSR row offsets failed: %s", cudaGetErrorString(e));
  }
  if (st != NG_SUCCESS) {
    delete d;
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *dcsr = d;
  return NG_SUCCESS;
}
