/* spmv/codsell_core.h: the per-item steps of the CoD-SELL converter (seed 003,
 * Algorithms 4-6; METHODS.md section 2), written once and compiled twice: as
 * static inline C for the host drivers of spmv/codsell.c (sequential and
 * OpenMP) and as __host__ __device__ functions for the GPU driver of
 * spmv/codsell_cuda.cu. Each function handles one item (a row, a group, a
 * slice) and reads only the arrays it is given, so the host and GPU drivers
 * that call them over the same items produce the same bytes.
 *
 * Vocabulary. Rows are first sorted by length (descending, stable) inside
 * windows of sigma rows; "position" t is a row's place in that order.
 * Level-k items are groups of 2^k positions; a group has one base column per
 * member and a pattern P: distances d > 0 such that base + d is a column of
 * every member. Level 0 -> 1 pairs positions (weight: Algorithm 4's longest
 * common pattern, bases among each row's first ceil(log2 l) columns);
 * level k -> k+1 merges groups (weight: |P_g n P_h|, bases kept). Columns of
 * every row are ascending and distinct here (the drivers sort a copy). */
#ifndef NG_CODSELL_CORE_H
#define NG_CODSELL_CORE_H
#include <stdint.h>

#ifdef __CUDACC__
#define CS_HD __host__ __device__ __forceinline__
#else
#define CS_HD static inline
#endif

#define CS_R_PAIR 4   /* Algorithm 5: candidates of a row when pairing */
#define CS_R_MERGE 16 /* Algorithm 5: candidates of a group when merging */
/* Passes of the parallel matching per level: the first over all items, each
 * further one over the items still unmatched, compacted in order (an item
 * whose neighbours all found partners meets the next free ones). */
#define CS_PASSES 2

/* Candidate bases of a row of length l: its first ceil(log2 l) columns (>= 1). */
CS_HD int cs_nbase(int64_t l)
{
  int b = 0;
  if (l <= 0) return 0;
  while (((int64_t)1 << b) < l) b++;
  return b < 1 ? 1 : b;
}

/* |{e - a[ia] : e in a, e > a[ia]} n {e - b[ib] : e in b, e > b[ib]}|; the
 * common distances go to out (ascending) when out is not NULL. */
CS_HD int cs_common(const int32_t *a, int64_t la, int64_t ia, const int32_t *b, int64_t lb, int64_t ib, int32_t *out)
{
  int64_t i = ia + 1, j = ib + 1;
  int32_t sa = a[ia], sb = b[ib];
  int c = 0;
  while (i < la && j < lb) {
    int64_t da = (int64_t)a[i] - sa, db = (int64_t)b[j] - sb;
    if (da < db) i++;
    else if (db < da) j++;
    else {
      if (out) out[c] = (int32_t)da;
      c++;
      i++;
      j++;
    }
  }
  return c;
}

/* Algorithm 4, FIND_LONGEST_PATTERN: the largest common pattern over base
 * pairs (a[p], b[q]), p < cs_nbase(la), q < cs_nbase(lb); the first maximum in
 * (p, q) order wins. Returns its size; *pa, *pb get the base indices. */
CS_HD int cs_longest(const int32_t *a, int64_t la, const int32_t *b, int64_t lb, int *pa, int *pb)
{
  int best = 0, na = cs_nbase(la), nb = cs_nbase(lb);
  *pa = 0;
  *pb = 0;
  for (int p = 0; p < na; p++)
    for (int q = 0; q < nb; q++) {
      if (la - p - 1 <= best || lb - q - 1 <= best) continue; /* cannot beat best */
      int c = cs_common(a, la, p, b, lb, q, (int32_t *)0);
      if (c > best) {
        best = c;
        *pa = p;
        *pb = q;
      }
    }
  return best;
}

/* |P n Q| of two ascending distance lists; written to out when not NULL. */
CS_HD int cs_intersect(const int32_t *P, int np, const int32_t *Q, int nq, int32_t *out)
{
  int i = 0, j = 0, c = 0;
  while (i < np && j < nq) {
    if (P[i] < Q[j]) i++;
    else if (Q[j] < P[i]) j++;
    else {
      if (out) out[c] = P[i];
      c++;
      i++;
      j++;
    }
  }
  return c;
}

/* Is v a column of the ascending row a[0..l)? */
CS_HD int cs_has(const int32_t *a, int64_t l, int64_t v)
{
  int64_t lo = 0, hi = l - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (a[mid] == v) return 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/* Index of v in the ascending list d[0..n), or -1. */
CS_HD int cs_find(const int32_t *d, int n, int64_t v)
{
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (d[mid] == v) return mid;
    if (d[mid] < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* ---- matching rounds (the parallel converter) ---------------------------------
 * Items 0..m-1 on a line; item u and v (u < v, v - u <= R) are joined by an
 * edge of weight wf[u*R + v-u-1] (0: no edge). Edges are totally ordered:
 * heavier first, then shorter, then those starting at an even item (so equal
 * chains pair as (0,1)(2,3)... like the sequential pass), then a hash of the
 * pair (so long equal chains do not resolve one pair per round), then the
 * lower endpoints. A round: every unmatched item points at its best edge to
 * an unmatched item (cs_pick); pairs that point at each other are matched
 * (cs_commit). The best remaining edge is always mutual, so every round
 * matches at least one pair, and the result does not depend on the order in
 * which items are processed. */
CS_HD uint64_t cs_edge_key(int64_t u, int64_t v, int w)
{
  uint64_t h = (uint64_t)u * 0x9E3779B97F4A7C15ull ^ ((uint64_t)v + 0x632BE59BD9B4E019ull);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return ((uint64_t)w << 34) | ((uint64_t)(63 - (v - u)) << 28) | ((uint64_t)((u & 1) == 0) << 27) |
         (h & ((1u << 27) - 1));
}
/* Edge (u1,v1) before (u2,v2)? (u < v in each) */
CS_HD int cs_edge_better(uint64_t k1, int64_t u1, int64_t v1, uint64_t k2, int64_t u2, int64_t v2)
{
  if (k1 != k2) return k1 > k2;
  if (u1 != u2) return u1 < u2;
  return v1 < v2;
}

CS_HD void cs_pick(int64_t u, int64_t m, int R, const int *wf, const int32_t *mate, int32_t *best)
{
  int64_t bv = -1, bu1 = 0, bv1 = 0;
  uint64_t bk = 0;
  if (mate[u] >= 0) {
    best[u] = -1;
    return;
  }
  for (int64_t v = u - R; v <= u + R; v++) {
    if (v < 0 || v >= m || v == u || mate[v] >= 0) continue;
    int64_t a = u < v ? u : v, b = u < v ? v : u;
    int w = wf[a * R + (b - a - 1)];
    if (w <= 0) continue;
    uint64_t k = cs_edge_key(a, b, w);
    if (bv < 0 || cs_edge_better(k, a, b, bk, bu1, bv1)) {
      bv = v;
      bk = k;
      bu1 = a;
      bv1 = b;
    }
  }
  best[u] = (int32_t)bv;
}

/* After a pass over the list ids (m entries) matched entries e and mate2[e]:
 * record it on the items. */
CS_HD void cs_adopt(int64_t e, const int32_t *ids, const int32_t *mate2, int32_t *mate)
{
  if (mate2[e] >= 0) mate[ids[e]] = ids[mate2[e]];
}

/* 1 when u got matched in this round. */
CS_HD int cs_commit(int64_t u, const int32_t *best, int32_t *mate)
{
  int32_t v = best[u];
  if (mate[u] < 0 && v >= 0 && best[v] == u) {
    mate[u] = v;
    return 1;
  }
  return 0;
}

/* ---- the converter's state over one level ----------------------------------- */
typedef struct {
  int64_t n, nnz;
  int C;
  const int64_t *rp;   /* n + 1 row offsets */
  const int32_t *col;  /* nnz, ascending per row */
  const int32_t *pos;  /* n: position -> row (length sort) */
  int32_t *base;       /* n: base column of each position (-1: empty row) */
} cs_rows;

CS_HD const int32_t *cs_row(const cs_rows *R, int64_t t, int64_t *len)
{
  int32_t i = R->pos[t];
  *len = R->rp[i + 1] - R->rp[i];
  return R->col + R->rp[i];
}

/* Longest row of item u of a level (gs positions each; mem NULL: position u). */
CS_HD int64_t cs_group_len(const cs_rows *R, const int32_t *mem, int64_t u, int gs)
{
  int64_t w = 0, l;
  for (int r = 0; r < gs; r++) {
    cs_row(R, mem ? mem[u * gs + r] : u, &l);
    w = l > w ? l : w;
  }
  return w;
}

/* Weight of joining two items of gs rows each whose longest rows are la and
 * lb and which share d pattern distances: the column bytes a shared
 * dictionary saves over the 2 gs rows, less the padding bytes (value and
 * column) the shorter item's rows get; 0 (no edge) when that is not positive.
 * The seed's weight is d alone; the padding term keeps rows of very
 * different lengths apart, which matters on irregular matrices. */
CS_HD int cs_gain(int d, int gs, int64_t la, int64_t lb)
{
  int64_t g = 4 * (int64_t)d * (2 * gs - 1) - 12 * (int64_t)gs * (la > lb ? la - lb : lb - la);
  return d > 0 && g > 0 ? (int)g : 0;
}

/* Level-0 weights of list entry e (position ids[e], or e when ids is NULL;
 * m entries): the longest common pattern with entries e+1..e+R. */
CS_HD void cs_weight_pair(const cs_rows *R, const int32_t *ids, int64_t m, int64_t e, int *wf)
{
  int64_t la, lb;
  const int32_t *a = cs_row(R, ids ? ids[e] : e, &la);
  for (int d = 0; d < CS_R_PAIR; d++) {
    int pa, pb;
    int64_t f = e + 1 + d;
    wf[e * CS_R_PAIR + d] = 0;
    if (f >= m || la < 2) continue;
    const int32_t *b = cs_row(R, ids ? ids[f] : f, &lb);
    if (lb >= 2) wf[e * CS_R_PAIR + d] = cs_gain(cs_longest(a, la, b, lb, &pa, &pb), 1, la, lb);
  }
}

/* Level-k (k >= 1) groups g of size gs: members mem[g*gs ..], pattern at
 * pat + rp[pos[mem[g*gs]]], plen[g] long. */
CS_HD const int32_t *cs_pattern(const cs_rows *R, const int32_t *mem, const int32_t *pat, int64_t g, int gs)
{
  return pat + R->rp[R->pos[mem[g * gs]]];
}

/* Level-k weights of list entry e (group ids[e], or e): |P n Q| with e+1..e+R. */
CS_HD void cs_weight_merge(const cs_rows *R, const int32_t *ids, int64_t m, int64_t e, int gs, const int32_t *mem,
                           const int32_t *pat, const int32_t *plen, int *wf)
{
  int64_t g = ids ? ids[e] : e;
  const int32_t *P = cs_pattern(R, mem, pat, g, gs);
  for (int d = 0; d < CS_R_MERGE; d++) {
    int64_t f = e + 1 + d, h = f < m ? (ids ? ids[f] : f) : 0;
    wf[e * CS_R_MERGE + d] =
        f < m ? cs_gain(cs_intersect(P, plen[g], cs_pattern(R, mem, pat, h, gs), plen[h], (int32_t *)0), gs,
                        cs_group_len(R, mem, g, gs), cs_group_len(R, mem, h, gs))
              : 0;
  }
}

/* Makes the level-1 group of positions u < v: members, bases, pattern
 * (written at pat + rp[pos[u]]). */
CS_HD void cs_make_pair(const cs_rows *R, int64_t u, int64_t v, int64_t g, int32_t *mem1, int32_t *pat1,
                        int32_t *plen1)
{
  int64_t la, lb;
  int pa, pb;
  const int32_t *a = cs_row(R, u, &la), *b = cs_row(R, v, &lb);
  cs_longest(a, la, b, lb, &pa, &pb);
  R->base[u] = a[pa];
  R->base[v] = b[pb];
  mem1[2 * g] = (int32_t)u;
  mem1[2 * g + 1] = (int32_t)v;
  plen1[g] = cs_common(a, la, pa, b, lb, pb, pat1 + R->rp[R->pos[u]]);
}

/* Base of an unpaired position: its first column (-1 for an empty row). */
CS_HD void cs_single_base(const cs_rows *R, int64_t t)
{
  int64_t l;
  const int32_t *a = cs_row(R, t, &l);
  R->base[t] = l > 0 ? a[0] : -1;
}

/* Merges level-k groups g < h (size gs each) into level-(k+1) group ng. */
CS_HD void cs_make_merge(const cs_rows *R, int64_t g, int64_t h, int64_t ng, int gs, const int32_t *mem,
                         const int32_t *pat, const int32_t *plen, int32_t *mem2, int32_t *pat2, int32_t *plen2)
{
  for (int r = 0; r < gs; r++) {
    mem2[ng * 2 * gs + r] = mem[g * gs + r];
    mem2[ng * 2 * gs + gs + r] = mem[h * gs + r];
  }
  plen2[ng] = cs_intersect(cs_pattern(R, mem, pat, g, gs), plen[g], cs_pattern(R, mem, pat, h, gs), plen[h],
                           pat2 + R->rp[R->pos[mem[g * gs]]]);
}

/* ---- the final structure ---------------------------------------------------------
 * perm[t]: row at final position t; fbase[t]: its base. Slice s holds
 * positions s*C .. s*C+C-1 (those >= n are empty lanes). Its dictionary is
 * the exact common pattern of its rows around their bases, taken from lane
 * 0's distances (none when a row is empty). */
typedef struct {
  int64_t n;
  int C;
  const int64_t *rp;
  const int32_t *col;   /* ascending per row (pattern work) */
  const int32_t *perm;  /* n */
  const int32_t *fbase; /* n */
} cs_final;

/* Width (longest row) of slice s; *d gets the dictionary length, written to
 * dict when dict is not NULL. */
CS_HD int64_t cs_slice(const cs_final *F, int64_t s, int *d, int32_t *dict)
{
  int64_t t0 = s * F->C, t1 = t0 + F->C < F->n ? t0 + F->C : F->n, w = 0;
  int empty = 0;
  for (int64_t t = t0; t < t1; t++) {
    int64_t l = F->rp[F->perm[t] + 1] - F->rp[F->perm[t]];
    w = l > w ? l : w;
    empty |= l == 0;
  }
  *d = 0;
  if (empty || t1 <= t0) return w;
  int32_t r0 = F->perm[t0], b0 = F->fbase[t0];
  for (int64_t p = F->rp[r0]; p < F->rp[r0 + 1]; p++) {
    int64_t dist = (int64_t)F->col[p] - b0;
    if (dist <= 0) continue;
    int all = 1;
    for (int64_t t = t0 + 1; t < t1 && all; t++) {
      int32_t r = F->perm[t];
      all = cs_has(F->col + F->rp[r], F->rp[r + 1] - F->rp[r], (int64_t)F->fbase[t] + dist);
    }
    if (all) {
      if (dict) dict[*d] = (int32_t)dist;
      (*d)++;
    }
  }
  return w;
}

/* Writes lane t of its slice: columns and values. Slices with a dictionary:
 * column slot 0 the base, then the row's other columns (CSR order); value
 * slot 0 the base's, 1..d the dictionary entries', then the others'. Without
 * one: SELL (CSR order). Padding repeats a valid column with value 0. acol
 * and aval are the caller's CSR (any column order, no repeated column). */
CS_HD void cs_fill_lane(int64_t t, int64_t n, int C, const int64_t *rp, const int32_t *acol, const double *aval,
                        const int32_t *perm, const int64_t *vptr, const int64_t *cptr, const int64_t *dptr,
                        const int32_t *dict, int32_t *col, double *val)
{
  int64_t s = t / C, r = t - s * C;
  int64_t w = (vptr[s + 1] - vptr[s]) / C, nc = (cptr[s + 1] - cptr[s]) / C;
  int d = (int)(dptr[s + 1] - dptr[s]);
  const int32_t *D = dict + dptr[s];
  double *V = val + vptr[s] + r;
  int32_t *K = col + cptr[s] + r;
  int64_t p0 = 0, len = 0;
  int32_t b;
  if (t < n) {
    p0 = rp[perm[t]];
    len = rp[perm[t] + 1] - p0;
  }
  if (d == 0) {
    int32_t pad = len ? acol[p0 + len - 1] : 0;
    for (int64_t k = 0; k < w; k++) {
      K[k * C] = k < len ? acol[p0 + k] : pad;
      V[k * C] = k < len ? aval[p0 + k] : 0.0;
    }
    return;
  }
  b = col[cptr[s] + r]; /* the base, written by the structure pass */
  if (t >= n) b = col[cptr[s]];
  for (int64_t k = 0; k < w; k++) V[k * C] = 0.0;
  for (int64_t k = 1; k < nc; k++) K[k * C] = b;
  int64_t q = 0;
  for (int64_t p = p0; p < p0 + len; p++) {
    int64_t dist = (int64_t)acol[p] - b;
    int k = dist > 0 ? cs_find(D, d, dist) : -1;
    if (dist == 0) V[0] = aval[p];
    else if (k >= 0) V[(1 + k) * C] = aval[p];
    else {
      K[(1 + q) * C] = acol[p];
      V[(1 + d + q) * C] = aval[p];
      q++;
    }
  }
}

/* y(perm[t]) = alpha (A x)(perm[t]) + beta y(perm[t]): seed 003, Algorithm 3. */
CS_HD double cs_row_dot(int64_t t, int C, const int64_t *vptr, const int64_t *cptr, const int64_t *dptr,
                        const int32_t *dict, const int32_t *col, const double *val, const double *x)
{
  int64_t s = t / C, r = t - s * C;
  int64_t vi = vptr[s], ci = cptr[s], ve = vptr[s + 1];
  double sum = 0.0;
  if (dptr[s + 1] > dptr[s]) {
    int32_t b = col[ci + r];
    sum += val[vi + r] * x[b];
    vi += C;
    for (int64_t k = dptr[s]; k < dptr[s + 1]; k++, vi += C) sum += val[vi + r] * x[b + dict[k]];
    ci += C;
  }
  for (; vi < ve; vi += C, ci += C) sum += val[vi + r] * x[col[ci + r]];
  return sum;
}
#endif /* NG_CODSELL_CORE_H */
