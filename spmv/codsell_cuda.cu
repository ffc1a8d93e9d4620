/* spmv/codsell_cuda.cu: CUDA table "codsell" (seed 003): the GPU converter
 * and the SpMV of Algorithm 3. The converter is the parallel one of
 * spmv/codsell.c run as kernels over the same per-item steps
 * (spmv/codsell_core.h): length sort (a stable radix sort on (window,
 * -length)), pair weights, rounds of mutual-best matching, groups, merges,
 * layout, slice dictionaries, fill. Same items, same functions, same bytes
 * as the host parallel converter (test/test_formats_gpu.c compares them).
 * SpMV: one thread per position; with C = 32 a warp is a slice, so each
 * dictionary entry is one address for the whole warp (a broadcast) and the
 * column and value loads are contiguous runs, as in SELL. */
#include "convert_cuda.h"
#include "codsell_core.h"
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <vector>

namespace {

const int TPB = 256;
inline unsigned blocks(int64_t m) { return (unsigned)((m + TPB - 1) / TPB); }

/* ---- converter kernels (one thread per item) -------------------------------- */
/* unsorted: some row not strictly ascending */
__global__ void k_check_sorted(int64_t n, const int64_t *rp, const int32_t *col, int *unsorted)
{
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int64_t p = rp[i] + 1; p < rp[i + 1]; p++)
    if (col[p] <= col[p - 1]) {
      *unsorted = 1;
      return;
    }
}
/* Sorts row i of scol (insertion sort: rows are short) and records the
 * lowest row with a repeated column. */
__global__ void k_sort_rows(int64_t n, const int64_t *rp, int32_t *scol, int *duprow)
{
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  int32_t *c = scol + rp[i];
  int64_t l = rp[i + 1] - rp[i];
  for (int64_t a = 1; a < l; a++) {
    int32_t v = c[a];
    int64_t b = a - 1;
    while (b >= 0 && c[b] > v) {
      c[b + 1] = c[b];
      b--;
    }
    c[b + 1] = v;
  }
  for (int64_t a = 1; a < l; a++)
    if (c[a] == c[a - 1]) {
      atomicMin(duprow, (int)i);
      return;
    }
}
__global__ void k_weights(cs_rows R, int level, const int32_t *ids, int64_t m, int gs, const int32_t *mem,
                          const int32_t *pat, const int32_t *plen, int *wf)
{
  int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (e >= m) return;
  if (level == 0) cs_weight_pair(&R, ids, m, e, wf);
  else cs_weight_merge(&R, ids, m, e, gs, mem, pat, plen, wf);
}
__global__ void k_adopt(int64_t m, const int32_t *ids, const int32_t *mate2, int32_t *mate)
{
  int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (e < m) cs_adopt(e, ids, mate2, mate);
}
/* ids[idx[u]] = u for the unmatched items */
__global__ void k_compact(int64_t m, const int32_t *mate, const int32_t *idx, int32_t *ids)
{
  int64_t u = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (u < m && mate[u] < 0) ids[idx[u]] = (int32_t)u;
}
/* Positions of the unmatched items (all when mate is NULL) to out[idx[u]*gs + r]. */
__global__ void k_collect(int64_t m, int gs, const int32_t *mem, const int32_t *mate, const int32_t *idx,
                          int32_t *out)
{
  int64_t u = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (u >= m || (mate && mate[u] >= 0)) return;
  int64_t j = mate ? idx[u] : u;
  for (int r = 0; r < gs; r++) out[j * gs + r] = mem ? mem[u * gs + r] : (int32_t)u;
}
__global__ void k_len_keys(cs_rows R, int64_t m, const int32_t *left, unsigned *key)
{
  int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  int64_t l;
  if (j >= m) return;
  cs_row(&R, left[j], &l);
  key[j] = 0xFFFFFFFFu - (unsigned)l;
}
__global__ void k_final(cs_rows R, const int32_t *left, int32_t *perm, int32_t *fbase)
{
  int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (j >= R.n) return;
  perm[j] = R.pos[left[j]];
  fbase[j] = R.base[left[j]];
}
__global__ void k_fill_i32(int64_t m, int32_t v, int32_t *a)
{
  int64_t u = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (u < m) a[u] = v;
}
__global__ void k_pick(int64_t m, int R, const int *wf, const int32_t *mate, int32_t *best)
{
  int64_t u = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (u < m) cs_pick(u, m, R, wf, mate, best);
}
__global__ void k_commit(int64_t m, const int32_t *best, int32_t *mate, int *changed)
{
  int64_t u = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (u < m && cs_commit(u, best, mate)) *changed = 1;
}
/* flag[u] = 1 for the first of a matched pair (which = 1) or an unmatched item (which = 0) */
__global__ void k_flags(int64_t m, const int32_t *mate, int which, int32_t *flag)
{
  int64_t u = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (u < m) flag[u] = which ? mate[u] > u : mate[u] < 0;
}
__global__ void k_make_pairs(cs_rows R, const int32_t *mate, const int32_t *gidx, int32_t *mem1, int32_t *pat1,
                             int32_t *plen1)
{
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t >= R.n) return;
  if (mate[t] < 0) cs_single_base(&R, t);
  else if (mate[t] > t) cs_make_pair(&R, t, mate[t], gidx[t], mem1, pat1, plen1);
}
__global__ void k_make_merges(cs_rows R, int64_t m, int gs, const int32_t *mate, const int32_t *gidx,
                              const int32_t *mem, const int32_t *pat, const int32_t *plen, int32_t *mem2,
                              int32_t *pat2, int32_t *plen2)
{
  int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (g < m && mate[g] > g) cs_make_merge(&R, g, mate[g], gidx[g], gs, mem, pat, plen, mem2, pat2, plen2);
}
__global__ void k_single_bases(cs_rows R)
{
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t < R.n) cs_single_base(&R, t);
}
__global__ void k_slice_sizes(cs_final F, int64_t ns, int64_t *vlen, int64_t *clen, int64_t *dlen)
{
  int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (s >= ns) return;
  int d;
  int64_t w = cs_slice(&F, s, &d, (int32_t *)0);
  vlen[s] = w * F.C;
  clen[s] = (w - d) * F.C;
  dlen[s] = d;
}
__global__ void k_slice_dicts(cs_final F, int64_t ns, const int64_t *cptr, const int64_t *dptr, int32_t *dict,
                              int32_t *col)
{
  int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (s >= ns) return;
  int d;
  cs_slice(&F, s, &d, dict + dptr[s]);
  if (d > 0)
    for (int64_t r = 0; r < F.C; r++) col[cptr[s] + r] = s * F.C + r < F.n ? F.fbase[s * F.C + r] : F.fbase[s * F.C];
}
__global__ void k_fill(int64_t nt, int64_t n, int C, const int64_t *rp, const int32_t *acol, const double *aval,
                       const int32_t *perm, const int64_t *vptr, const int64_t *cptr, const int64_t *dptr,
                       const int32_t *dict, int32_t *col, double *val)
{
  int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t < nt) cs_fill_lane(t, n, C, rp, acol, aval, perm, vptr, cptr, dptr, dict, col, val);
}

/* ---- SpMV: seed 003, Algorithm 3 -------------------------------------------------- */
template <int CT>
__global__ void codsell_kernel(int n, int C_rt, const int64_t *__restrict__ vptr, const int64_t *__restrict__ cptr,
                               const int64_t *__restrict__ dptr, const int32_t *__restrict__ dict,
                               const int32_t *__restrict__ col, const double *__restrict__ val,
                               const int32_t *__restrict__ perm, const double *__restrict__ x, double alpha,
                               double beta, double *__restrict__ y)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const int C = CT > 0 ? CT : C_rt;
  int s = t / C, r = t - s * C;
  int64_t v0 = vptr[s], c0 = cptr[s], d0 = dptr[s], d1 = dptr[s + 1];
  int w = (int)((vptr[s + 1] - v0) / C);
  const double *v = val + v0 + r;
  const int32_t *c = col + c0 + r;
  double sum = 0.0;
  int k = 0;
  if (d1 > d0) { /* the slice's pattern: one dictionary entry per step for the whole warp */
    int32_t b = c[0];
    sum += v[0] * __ldg(x + b);
    int nd = (int)(d1 - d0);
    const int32_t *D = dict + d0;
#pragma unroll 4
    for (int j = 0; j < nd; j++) sum += v[(size_t)(j + 1) * C] * __ldg(x + b + __ldg(D + j));
    k = nd + 1;
    c += C;
    v += (size_t)k * C;
  }
  /* the rest: SELL */
#pragma unroll 4
  for (int j = 0; j < w - k; j++) sum += v[(size_t)j * C] * __ldg(x + c[(size_t)j * C]);
  int i = perm[t];
  y[i] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[i];
}

/* ---- device structure ------------------------------------------------------------ */
struct codsell_cuda {
  ng_context ctx;
  int32_t n, ncols, C, sigma, nslices;
  int64_t nval, ncol, ndict;
  int64_t *vptr, *cptr, *dptr;
  int32_t *col, *dict, *perm;
  double *val;
};

void codsell_cuda_free(codsell_cuda *S)
{
  if (!S) return;
  ng_cuda_free(S->vptr);
  ng_cuda_free(S->cptr);
  ng_cuda_free(S->dptr);
  ng_cuda_free(S->col);
  ng_cuda_free(S->dict);
  ng_cuda_free(S->perm);
  ng_cuda_free(S->val);
  ng_free(S);
}

/* Device scratch freed at scope exit. */
struct scratch {
  std::vector<void *> p;
  ~scratch()
  {
    for (void *q : p) ng_cuda_free(q);
  }
  template <typename T> ng_status get(T **ptr, int64_t count, const char *what)
  {
    *ptr = NULL;
    NG_CHECK(ng_cuda_malloc((void **)ptr, (size_t)(count > 0 ? count : 1) * sizeof(T), what));
    p.push_back(*ptr);
    return NG_SUCCESS;
  }
  void release(void *q)
  {
    for (auto &x : p)
      if (x == q) {
        ng_cuda_free(x);
        x = NULL;
      }
  }
};

template <typename T> ng_status down1(cudaStream_t s, const T *dev, T *host)
{
  NG_CUDA_CHECK(cudaMemcpyAsync(host, dev, sizeof(T), cudaMemcpyDeviceToHost, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

/* Exclusive scan of flag[0..m] (flag[m] = 0) into idx; returns idx[m]. */
ng_status scan_count(cudaStream_t s, const int32_t *flag, int32_t *idx, int64_t m, int64_t *total)
{
  try {
    thrust::exclusive_scan(thrust::cuda::par.on(s), flag, flag + m + 1, idx);
  } catch (std::exception &e) {
    return NG_ERROR(NG_ERR_CUDA, "codsell: device scan failed: %s", e.what());
  }
  int32_t t;
  NG_CHECK(down1(s, idx + m, &t));
  *total = t;
  return NG_SUCCESS;
}

/* Rounds of cs_pick / cs_commit until no pair forms. */
ng_status match_rounds(cudaStream_t s, int64_t m, int R, const int *wf, int32_t *mate, int32_t *best, int *changed)
{
  k_fill_i32<<<blocks(m), TPB, 0, s>>>(m, -1, mate);
  for (;;) {
    int h = 0;
    NG_CUDA_CHECK(cudaMemsetAsync(changed, 0, sizeof(int), s));
    k_pick<<<blocks(m), TPB, 0, s>>>(m, R, wf, mate, best);
    k_commit<<<blocks(m), TPB, 0, s>>>(m, best, mate, changed);
    NG_CUDA_LAUNCH_CHECK();
    NG_CHECK(down1(s, changed, &h));
    if (!h) break;
  }
  return NG_SUCCESS;
}

/* CS_PASSES passes of matching rounds over a level's m items (codsell.c's
 * match_parallel). */
ng_status match_parallel(cudaStream_t s, scratch &W, cs_rows R, int level, int64_t m, int gs, const int32_t *mem,
                         const int32_t *pat, const int32_t *plen, int *wf, int32_t *mate, int *changed)
{
  int Rr = level == 0 ? CS_R_PAIR : CS_R_MERGE;
  int32_t *mate2, *best, *ids, *flag, *idx;
  int64_t cnt = m;
  NG_CHECK(W.get(&mate2, m, "codsell mates"));
  NG_CHECK(W.get(&best, m, "codsell best partners"));
  NG_CHECK(W.get(&ids, m, "codsell free items"));
  NG_CHECK(W.get(&flag, m + 1, "codsell flags"));
  NG_CHECK(W.get(&idx, m + 1, "codsell indices"));
  k_fill_i32<<<blocks(m), TPB, 0, s>>>(m, -1, mate);
  for (int pass = 0; pass < CS_PASSES && cnt > 1; pass++) {
    const int32_t *id = pass ? ids : NULL;
    k_weights<<<blocks(cnt), TPB, 0, s>>>(R, level, id, cnt, gs, mem, pat, plen, wf);
    NG_CHECK(match_rounds(s, cnt, Rr, wf, pass ? mate2 : mate, best, changed));
    if (pass) k_adopt<<<blocks(cnt), TPB, 0, s>>>(cnt, ids, mate2, mate);
    NG_CUDA_CHECK(cudaMemsetAsync(flag, 0, (size_t)(m + 1) * sizeof(int32_t), s));
    k_flags<<<blocks(m), TPB, 0, s>>>(m, mate, 0, flag);
    NG_CHECK(scan_count(s, flag, idx, m, &cnt));
    k_compact<<<blocks(m), TPB, 0, s>>>(m, mate, idx, ids);
    NG_CUDA_LAUNCH_CHECK();
  }
  W.release(mate2);
  W.release(best);
  W.release(ids);
  W.release(flag);
  W.release(idx);
  return NG_SUCCESS;
}

/* Appends the positions of a level's unmatched items (all items when all)
 * to out + *count (codsell.c's collect). */
ng_status collect(cudaStream_t s, scratch &W, int64_t m, int gs, const int32_t *mem, const int32_t *mate, int all,
                  int32_t *out, int64_t *count)
{
  int32_t *flag = NULL, *idx = NULL;
  int64_t cnt = m;
  if (m == 0) return NG_SUCCESS;
  if (!all) {
    NG_CHECK(W.get(&flag, m + 1, "codsell flags"));
    NG_CHECK(W.get(&idx, m + 1, "codsell indices"));
    NG_CUDA_CHECK(cudaMemsetAsync(flag, 0, (size_t)(m + 1) * sizeof(int32_t), s));
    k_flags<<<blocks(m), TPB, 0, s>>>(m, mate, 0, flag);
    NG_CHECK(scan_count(s, flag, idx, m, &cnt));
  }
  k_collect<<<blocks(m), TPB, 0, s>>>(m, gs, mem, all ? NULL : mate, idx, out + *count);
  NG_CUDA_LAUNCH_CHECK();
  *count += cnt * gs;
  W.release(flag);
  W.release(idx);
  return NG_SUCCESS;
}

/* Full groups first, then the rest longest row first (stable). */
ng_status layout(cudaStream_t s, scratch &W, cs_rows R, int32_t *left, int64_t nfull, int32_t *perm, int32_t *fbase)
{
  int64_t nr = R.n - nfull;
  if (nr > 1) {
    unsigned *key;
    NG_CHECK(W.get(&key, nr, "codsell sort keys"));
    k_len_keys<<<blocks(nr), TPB, 0, s>>>(R, nr, left + nfull, key);
    NG_CUDA_LAUNCH_CHECK();
    try {
      thrust::stable_sort_by_key(thrust::cuda::par.on(s), key, key + nr, left + nfull);
    } catch (std::exception &e) {
      return NG_ERROR(NG_ERR_CUDA, "codsell: device sort failed: %s", e.what());
    }
    W.release(key);
  }
  if (R.n) k_final<<<blocks(R.n), TPB, 0, s>>>(R, left, perm, fbase);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

/* The converter: A on the device (rp 64-bit, col, val). */
ng_status codsell_convert(ng_context ctx, const ng_dcsr *A, const ng_spmv_opts *o, codsell_cuda *S)
{
  cudaStream_t s = ctx->cuda->stream;
  int64_t n = A->n, nnz = A->nnz;
  int32_t ncols = (int32_t)A->ncols;
  const int64_t *rp = A->rp;
  const int32_t *acol = A->col;
  const double *aval = A->val;
  scratch W;
  int C = o->sell_c, sigma = o->sell_sigma, L = 0;
  if (C < 1 || C > 1024 || (C & (C - 1)))
    return NG_ERROR(NG_ERR_ARGUMENT, "codsell: slice height C = %d is not a power of two in 1..1024", C);
  while ((1 << L) < C) L++;
  S->n = (int32_t)n;
  S->ncols = ncols;
  S->C = C;
  S->sigma = sigma;
  S->nslices = (int32_t)((n + C - 1) / C);
  int64_t ns = S->nslices;
  int *flags;
  NG_CHECK(W.get(&flags, 2, "codsell flags"));
  NG_CUDA_CHECK(cudaMemsetAsync(flags, 0, sizeof(int), s));
  NG_CUDA_CHECK(cudaMemcpyAsync(flags + 1, &S->n, sizeof(int), cudaMemcpyHostToDevice, s)); /* no duplicate: n */
  /* columns ascending per row */
  const int32_t *scol = acol;
  int h = 0;
  if (n) k_check_sorted<<<blocks(n), TPB, 0, s>>>(n, rp, acol, flags);
  NG_CHECK(down1(s, flags, &h));
  if (h) {
    int32_t *sc;
    int dup;
    NG_CHECK(W.get(&sc, nnz, "codsell sorted columns"));
    NG_CUDA_CHECK(cudaMemcpyAsync(sc, acol, (size_t)nnz * sizeof(int32_t), cudaMemcpyDeviceToDevice, s));
    k_sort_rows<<<blocks(n), TPB, 0, s>>>(n, rp, sc, flags + 1);
    NG_CHECK(down1(s, flags + 1, &dup));
    if (dup < n) return NG_ERROR(NG_ERR_DOES_NOT_FIT, "codsell: row %d has a column more than once", dup);
    scol = sc;
  }
  /* (i) length sort */
  int32_t *pos, *base, *mate, *pat, *pat2, *perm, *fbase;
  int *wf;
  NG_CHECK(W.get(&pos, n, "codsell positions"));
  NG_CHECK(W.get(&base, n, "codsell bases"));
  NG_CHECK(W.get(&fbase, n, "codsell final bases"));
  NG_CHECK(ng_cuda_malloc((void **)&S->perm, (size_t)(n > 0 ? n : 1) * sizeof(int32_t), "codsell permutation"));
  perm = S->perm;
  NG_CHECK(ng_length_sort_cuda(ctx, A, sigma, pos));
  cs_rows R = {n, nnz, C, rp, scol, pos, base};
  int32_t *left, *rest;
  int64_t nleft = 0, nrest = 0;
  NG_CHECK(W.get(&left, n, "codsell layout"));
  NG_CHECK(W.get(&rest, n, "codsell layout"));
  if (L == 0) {
    if (n) k_single_bases<<<blocks(n), TPB, 0, s>>>(R);
    NG_CHECK(collect(s, W, n, 1, NULL, NULL, 1, left, &nleft));
  } else if (n) {
    NG_CHECK(W.get(&mate, n, "codsell mates"));
    NG_CHECK(W.get(&pat, nnz, "codsell patterns"));
    NG_CHECK(W.get(&pat2, nnz, "codsell patterns"));
    NG_CHECK(W.get(&wf, n * CS_R_MERGE, "codsell weights"));
    /* (ii) pairs */
    NG_CHECK(match_parallel(s, W, R, 0, n, 1, NULL, NULL, NULL, wf, mate, flags));
    int32_t *flag, *gidx, *mem, *plen;
    int64_t m;
    NG_CHECK(W.get(&flag, n + 1, "codsell flags"));
    NG_CHECK(W.get(&gidx, n + 1, "codsell group indices"));
    NG_CUDA_CHECK(cudaMemsetAsync(flag, 0, (size_t)(n + 1) * sizeof(int32_t), s));
    k_flags<<<blocks(n), TPB, 0, s>>>(n, mate, 1, flag);
    NG_CHECK(scan_count(s, flag, gidx, n, &m));
    NG_CHECK(W.get(&mem, 2 * m, "codsell members"));
    NG_CHECK(W.get(&plen, m, "codsell pattern lengths"));
    k_make_pairs<<<blocks(n), TPB, 0, s>>>(R, mate, gidx, mem, pat, plen);
    NG_CUDA_LAUNCH_CHECK();
    NG_CHECK(collect(s, W, n, 1, NULL, mate, 0, rest, &nrest));
    W.release(flag);
    W.release(gidx);
    /* (iii) merges */
    for (int k = 1; k < L; k++) {
      int gs = 1 << k;
      int32_t *mem2 = NULL, *plen2 = NULL;
      int64_t m2 = 0;
      if (m) {
        NG_CHECK(match_parallel(s, W, R, k, m, gs, mem, pat, plen, wf, mate, flags));
        NG_CHECK(W.get(&flag, m + 1, "codsell flags"));
        NG_CHECK(W.get(&gidx, m + 1, "codsell group indices"));
        NG_CUDA_CHECK(cudaMemsetAsync(flag, 0, (size_t)(m + 1) * sizeof(int32_t), s));
        k_flags<<<blocks(m), TPB, 0, s>>>(m, mate, 1, flag);
        NG_CHECK(scan_count(s, flag, gidx, m, &m2));
        NG_CHECK(W.get(&mem2, 2 * gs * m2, "codsell members"));
        NG_CHECK(W.get(&plen2, m2, "codsell pattern lengths"));
        k_make_merges<<<blocks(m), TPB, 0, s>>>(R, m, gs, mate, gidx, mem, pat, plen, mem2, pat2, plen2);
        NG_CUDA_LAUNCH_CHECK();
        NG_CHECK(collect(s, W, m, gs, mem, mate, 0, rest, &nrest));
        W.release(flag);
        W.release(gidx);
      }
      W.release(mem);
      W.release(plen);
      mem = mem2;
      plen = plen2;
      int32_t *tp = pat;
      pat = pat2;
      pat2 = tp;
      m = m2;
    }
    NG_CHECK(collect(s, W, m, C, mem, NULL, 1, left, &nleft));
  }
  if (nleft + nrest != n)
    return NG_ERROR(NG_ERR_INTERNAL, "codsell (GPU): %lld rows placed of %lld", (long long)(nleft + nrest), (long long)n);
  if (nrest)
    NG_CUDA_CHECK(cudaMemcpyAsync(left + nleft, rest, (size_t)nrest * sizeof(int32_t), cudaMemcpyDeviceToDevice, s));
  NG_CHECK(layout(s, W, R, left, nleft, perm, fbase));
  /* slices */
  int64_t *vlen, *clen, *dlen;
  NG_CHECK(W.get(&vlen, ns + 1, "codsell slice sizes"));
  NG_CHECK(W.get(&clen, ns + 1, "codsell slice sizes"));
  NG_CHECK(W.get(&dlen, ns + 1, "codsell slice sizes"));
  NG_CHECK(ng_cuda_malloc((void **)&S->vptr, (size_t)(ns + 1) * sizeof(int64_t), "codsell value pointers"));
  NG_CHECK(ng_cuda_malloc((void **)&S->cptr, (size_t)(ns + 1) * sizeof(int64_t), "codsell column pointers"));
  NG_CHECK(ng_cuda_malloc((void **)&S->dptr, (size_t)(ns + 1) * sizeof(int64_t), "codsell dictionary pointers"));
  NG_CUDA_CHECK(cudaMemsetAsync(vlen, 0, (size_t)(ns + 1) * sizeof(int64_t), s));
  NG_CUDA_CHECK(cudaMemsetAsync(clen, 0, (size_t)(ns + 1) * sizeof(int64_t), s));
  NG_CUDA_CHECK(cudaMemsetAsync(dlen, 0, (size_t)(ns + 1) * sizeof(int64_t), s));
  cs_final F = {n, C, rp, scol, perm, fbase};
  if (ns) k_slice_sizes<<<blocks(ns), TPB, 0, s>>>(F, ns, vlen, clen, dlen);
  NG_CUDA_LAUNCH_CHECK();
  int64_t save = 0;
  try {
    auto pol = thrust::cuda::par.on(s);
    thrust::exclusive_scan(pol, vlen, vlen + ns + 1, S->vptr);
    thrust::exclusive_scan(pol, clen, clen + ns + 1, S->cptr);
    thrust::exclusive_scan(pol, dlen, dlen + ns + 1, S->dptr);
  } catch (std::exception &e) {
    return NG_ERROR(NG_ERR_CUDA, "codsell: device scan failed: %s", e.what());
  }
  NG_CHECK(down1(s, S->vptr + ns, &S->nval));
  NG_CHECK(down1(s, S->cptr + ns, &S->ncol));
  NG_CHECK(down1(s, S->dptr + ns, &S->ndict));
  if (S->nval > 0 && ncols == 0) return NG_ERROR(NG_ERR_INTERNAL, "codsell: entries in a matrix with no columns");
  save = S->ndict * (C - 1) * (int64_t)sizeof(int32_t);
  int64_t cost = 2 * (ns + 1) * (int64_t)sizeof(int64_t);
  if (!o->codsell_force && ns > 0 && save <= cost)
    return NG_ERROR(NG_ERR_DOES_NOT_FIT,
                    "codsell: the slices' dictionaries save %lld bytes of column indices, not more than the %lld "
                    "bytes of their pointers (rows share too few column patterns; sell stores this matrix in "
                    "fewer bytes, codsell:force keeps it)",
                    (long long)save, (long long)cost);
  NG_CHECK(ng_cuda_malloc((void **)&S->dict, (size_t)(S->ndict + 1) * sizeof(int32_t), "codsell dictionaries"));
  NG_CHECK(ng_cuda_malloc((void **)&S->col, (size_t)(S->ncol + 1) * sizeof(int32_t), "codsell columns"));
  NG_CHECK(ng_cuda_malloc((void **)&S->val, (size_t)(S->nval + 1) * sizeof(double), "codsell values"));
  if (ns) k_slice_dicts<<<blocks(ns), TPB, 0, s>>>(F, ns, S->cptr, S->dptr, S->dict, S->col);
  int64_t nt = ns * C;
  if (nt) k_fill<<<blocks(nt), TPB, 0, s>>>(nt, n, C, rp, acol, aval, perm, S->vptr, S->cptr, S->dptr, S->dict,
                                            S->col, S->val);
  NG_CUDA_LAUNCH_CHECK();
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

template <typename T> static ng_status put_up(T **d, const T *h, int64_t count, cudaStream_t s)
{
  NG_CHECK(ng_cuda_malloc((void **)d, (size_t)(count + 1) * sizeof(T), "codsell arrays"));
  if (count) NG_CUDA_CHECK(cudaMemcpyAsync(*d, h, (size_t)count * sizeof(T), cudaMemcpyHostToDevice, s));
  return NG_SUCCESS;
}

/* codsell:seq: the sequential converter (the compression reference) runs on
 * the host and its result goes up as it is, so `seq` means the same layout
 * and bytes on both memory spaces. */
static ng_status codsell_cuda_from_host(ng_context ctx, const ng_csr *A, const ng_spmv_opts *o, codsell_cuda *S)
{
  ng_codsell H;
  cudaStream_t s = ctx->cuda->stream;
  NG_CHECK(ng_codsell_build(A, o, 0, &H));
  ng_status st = NG_SUCCESS;
  S->n = H.n; S->ncols = H.ncols; S->C = H.C; S->sigma = H.sigma; S->nslices = H.nslices;
  S->nval = H.vptr[H.nslices];
  S->ncol = H.cptr[H.nslices];
  S->ndict = H.dptr[H.nslices];
  if (!st) st = put_up(&S->vptr, H.vptr, (int64_t)H.nslices + 1, s);
  if (!st) st = put_up(&S->cptr, H.cptr, (int64_t)H.nslices + 1, s);
  if (!st) st = put_up(&S->dptr, H.dptr, (int64_t)H.nslices + 1, s);
  if (!st) st = put_up(&S->dict, H.dict, S->ndict, s);
  if (!st) st = put_up(&S->col, H.col, S->ncol, s);
  if (!st) st = put_up(&S->val, H.val, S->nval, s);
  if (!st) st = put_up(&S->perm, H.perm, (int64_t)H.n, s);
  if (!st && cudaStreamSynchronize(s) != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "codsell: uploading the layout failed");
  ng_codsell_free(&H);
  return st;
}

ng_status codsell_cuda_create_from(ng_context ctx, const ng_csr *A, const ng_dcsr *given, const char *opt, void **data)
{
  ng_spmv_opts o;
  codsell_cuda *S = NULL;
  ng_dcsr d;
  ng_status st;
  NG_CHECK(ng_spmv_opts_parse("codsell", opt, &o));
  NG_CHECK(NG_CALLOC(S, 1));
  S->ctx = ctx;
  if (o.codsell_seq) {
    NG_CHECK_GOTO(st, codsell_cuda_from_host(ctx, A, &o, S), fail);
    *data = S;
    return NG_SUCCESS;
  }
  if (!given) NG_CHECK_GOTO(st, ng_dcsr_upload(ctx, A, &d), fail);
  NG_CHECK_GOTO(st, codsell_convert(ctx, given ? given : &d, &o, S), fail);
  *data = S;
  return NG_SUCCESS;
fail:
  codsell_cuda_free(S);
  return st;
}
ng_status codsell_cuda_create_opt(ng_context c, const ng_csr *A, const char *opt, void **d)
{
  return codsell_cuda_create_from(c, A, NULL, opt, d);
}
ng_status codsell_cuda_create_dev(ng_context c, const ng_csr *A, const void *g, const char *opt, void **d)
{
  return codsell_cuda_create_from(c, A, (const ng_dcsr *)g, opt, d);
}
ng_status codsell_cuda_create(ng_context c, const ng_csr *A, void **d) { return codsell_cuda_create_opt(c, A, "", d); }

ng_status codsell_cuda_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  codsell_cuda *S = (codsell_cuda *)data;
  int n = S->n;
  if (n == 0) return NG_SUCCESS;
  cudaStream_t st = S->ctx->cuda->stream;
  if (S->C == 32)
    codsell_kernel<32><<<(unsigned)(((int64_t)n + 255) / 256), 256, 0, st>>>(n, 32, S->vptr, S->cptr, S->dptr, S->dict, S->col, S->val,
                                                         S->perm, x, alpha, beta, y);
  else
    codsell_kernel<0><<<(unsigned)(((int64_t)n + 255) / 256), 256, 0, st>>>(n, S->C, S->vptr, S->cptr, S->dptr, S->dict, S->col, S->val,
                                                        S->perm, x, alpha, beta, y);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

/* New values: the CSR goes up and the fill kernel rewrites the slots. */
ng_status codsell_cuda_update(void *data, const ng_csr *A)
{
  codsell_cuda *S = (codsell_cuda *)data;
  if (A->nrows != S->n)
    return NG_ERROR(NG_ERR_ARGUMENT, "codsell update: %d rows given, the matrix has %d", (int)A->nrows, (int)S->n);
  ng_dcsr d;
  NG_CHECK(ng_dcsr_upload(S->ctx, A, &d));
  int64_t nt = (int64_t)S->nslices * S->C;
  cudaStream_t s = S->ctx->cuda->stream;
  if (nt) k_fill<<<blocks(nt), TPB, 0, s>>>(nt, S->n, S->C, d.rp, d.col, d.val, S->perm, S->vptr, S->cptr, S->dptr,
                                            S->dict, S->col, S->val);
  NG_CUDA_LAUNCH_CHECK();
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

size_t codsell_cuda_bytes(const void *data)
{
  const codsell_cuda *S = (const codsell_cuda *)data;
  return (size_t)S->nval * sizeof(double) + (size_t)(S->ncol + S->ndict) * sizeof(int32_t) +
         3 * ((size_t)S->nslices + 1) * sizeof(int64_t) + (size_t)S->n * sizeof(int32_t);
}
void codsell_cuda_destroy(void *data) { codsell_cuda_free((codsell_cuda *)data); }

ng_spmv_ops make_ops()
{
  ng_spmv_ops t = {};
  t.name = "codsell";
  t.on_gpu = 1;
  t.create = codsell_cuda_create;
  t.apply = codsell_cuda_apply;
  t.update_values = codsell_cuda_update;
  t.bytes = codsell_cuda_bytes;
  t.destroy = codsell_cuda_destroy;
  t.create_opt = codsell_cuda_create_opt;
  t.create_dev = codsell_cuda_create_dev;
  return t;
}

} // namespace

extern "C" const ng_spmv_ops ng_spmv_codsell_cuda = make_ops();

/* The GPU converter alone (test/formats_cuda_host.cu downloads its result):
 * D gets the metadata and the arrays, on the device and the caller's
 * (ng_cuda_free); on failure D holds no arrays. */
ng_status ng_codsell_convert_cuda(ng_context ctx, const ng_dcsr *A, const ng_spmv_opts *o, ng_codsell *D)
{
  codsell_cuda *S = NULL;
  memset(D, 0, sizeof(*D));
  NG_CHECK(NG_CALLOC(S, 1));
  S->ctx = ctx;
  ng_status st = codsell_convert(ctx, A, o, S);
  if (st == NG_SUCCESS) {
    D->n = S->n;
    D->ncols = S->ncols;
    D->C = S->C;
    D->sigma = S->sigma;
    D->nslices = S->nslices;
    D->o = *o;
    D->vptr = S->vptr;
    D->cptr = S->cptr;
    D->dptr = S->dptr;
    D->dict = S->dict;
    D->col = S->col;
    D->val = S->val;
    D->perm = S->perm;
    S->vptr = S->cptr = S->dptr = NULL;
    S->dict = S->col = S->perm = NULL;
    S->val = NULL;
  }
  codsell_cuda_free(S);
  return st;
}
