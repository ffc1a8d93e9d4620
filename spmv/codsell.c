/* spmv/codsell.c: CoD-SELL, SELL-C-sigma with dictionary-compressed column
 * indices (seed 003; METHODS.md section 2). Host converters, value refill,
 * reference SpMV (Algorithm 3), exact footprint and the host table.
 *
 * Conversion (seed 003 section 3.3): (i) sort rows by length inside windows
 * of sigma rows; (ii) pair each row with one of its next R = 4 rows by the
 * longest common column pattern (Algorithm 4); (iii) merge pairs into groups
 * of 4, 8, ... C rows over log2 C rounds, R = 16 groups ahead, by the size of
 * the intersection of their memoised patterns. Two ways to decide the pairs
 * of (ii) and (iii), everything else shared (spmv/codsell_core.h):
 *  - sequential: Algorithm 5, greedy in order (the compression reference);
 *  - parallel: rounds of mutual-best matching over the same candidate edges
 *    (cs_pick / cs_commit); a row whose best partner was taken points at its
 *    next best in the following round instead of being dropped (the loss of
 *    the seed's Algorithm 6). spmv/codsell_cuda.cu runs the same rounds on
 *    the GPU and yields the same bytes.
 * Groups of C rows become slices; groups left unmatched at a level are laid
 * out after the full ones, larger first (sizes are powers of two, so no group
 * straddles a slice). Each slice's dictionary is the exact common pattern of
 * its rows around their bases. */
#include "formats.h"
#include "codsell_core.h"

#ifdef _OPENMP
#define NG_OMP_FOR _Pragma("omp parallel for schedule(dynamic, 256)")
#else
#define NG_OMP_FOR
#endif

typedef struct {
  int64_t len;
  int32_t row;
} cs_key;

static int cs_key_cmp(const void *a, const void *b)
{
  const cs_key *x = a, *y = b;
  if (x->len != y->len) return x->len > y->len ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}
static int cmp_i32(const void *a, const void *b)
{
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Columns ascending per row: A->col itself when already so, else a sorted
 * copy (*owned). A repeated column in a row does not fit. */
static ng_status sorted_columns(const ng_csr *A, int32_t **scol, int *owned)
{
  int sorted = 1;
  *owned = 0;
  *scol = A->col;
  for (int32_t i = 0; i < A->nrows && sorted; i++)
    for (int64_t p = A->rowptr[i] + 1; p < A->rowptr[i + 1]; p++)
      if (A->col[p] <= A->col[p - 1]) { sorted = 0; break; }
  if (sorted) return NG_SUCCESS;
  NG_CHECK(NG_MALLOC(*scol, A->nnz ? A->nnz : 1));
  *owned = 1;
  memcpy(*scol, A->col, (size_t)A->nnz * sizeof(int32_t));
  for (int32_t i = 0; i < A->nrows; i++) {
    int32_t *c = *scol + A->rowptr[i];
    int64_t l = A->rowptr[i + 1] - A->rowptr[i];
    qsort(c, (size_t)l, sizeof(int32_t), cmp_i32);
    for (int64_t k = 1; k < l; k++)
      if (c[k] == c[k - 1]) {
        int32_t dup = c[k]; /* read before the buffer goes */
        ng_free(*scol);
        *scol = NULL;
        *owned = 0;
        return NG_ERROR(NG_ERR_DOES_NOT_FIT, "codsell: row %d has column %d more than once", (int)i, (int)dup);
      }
  }
  return NG_SUCCESS;
}

/* Rounds of mutual-best matching (see codsell_core.h). Returns the rounds. */
static int match_rounds(int64_t m, int R, const int *wf, int32_t *mate, int32_t *best)
{
  int rounds = 0;
  for (int64_t u = 0; u < m; u++) mate[u] = -1;
  for (;;) {
    int64_t changed = 0;
    NG_OMP_FOR
    for (int64_t u = 0; u < m; u++) cs_pick(u, m, R, wf, mate, best);
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : changed) if (m > 4096)
#endif
    for (int64_t u = 0; u < m; u++) changed += cs_commit(u, best, mate);
    rounds++;
    if (!changed) break;
  }
  return rounds;
}

/* The parallel matching of a level: CS_PASSES passes of matching rounds.
 * level 0: items are positions; else groups of gs. wf, mate2, best, ids: m. */
static void match_parallel(const cs_rows *Rw, int level, int64_t m, int gs, const int32_t *mem, const int32_t *pat,
                           const int32_t *plen, int *wf, int32_t *mate, int32_t *mate2, int32_t *best, int32_t *ids)
{
  int R = level == 0 ? CS_R_PAIR : CS_R_MERGE;
  int64_t cnt = m;
  for (int64_t u = 0; u < m; u++) mate[u] = -1;
  for (int pass = 0; pass < CS_PASSES && cnt > 1; pass++) {
    const int32_t *id = pass ? ids : NULL;
    NG_OMP_FOR
    for (int64_t e = 0; e < cnt; e++) {
      if (level == 0) cs_weight_pair(Rw, id, cnt, e, wf);
      else cs_weight_merge(Rw, id, cnt, e, gs, mem, pat, plen, wf);
    }
    if (!pass) {
      match_rounds(cnt, R, wf, mate, best);
    } else {
      match_rounds(cnt, R, wf, mate2, best);
      NG_OMP_FOR
      for (int64_t e = 0; e < cnt; e++) cs_adopt(e, ids, mate2, mate);
    }
    int64_t c = 0;
    for (int64_t u = 0; u < m; u++)
      if (mate[u] < 0) ids[c++] = (int32_t)u;
    cnt = c;
  }
}

/* Algorithm 5 over items 0..m-1: each unmatched item, in order, takes the
 * heaviest unmatched of its next R (first maximum); weights computed when
 * asked (level 0: Algorithm 4 on rows; level >= 1: pattern intersection). */
static void match_greedy(const cs_rows *Rw, int level, int64_t m, int R, int gs, const int32_t *mem,
                         const int32_t *pat, const int32_t *plen, int32_t *mate)
{
  for (int64_t u = 0; u < m; u++) mate[u] = -1;
  for (int64_t u = 0; u < m; u++) {
    if (mate[u] >= 0) continue;
    int64_t bv = -1, la = 0, lb;
    int bw = 0, pa, pb;
    const int32_t *a = level == 0 ? cs_row(Rw, u, &la) : NULL;
    for (int64_t v = u + 1; v <= u + R && v < m; v++) {
      if (mate[v] >= 0) continue;
      int w;
      if (level == 0) {
        const int32_t *b = cs_row(Rw, v, &lb);
        w = la >= 2 && lb >= 2 ? cs_gain(cs_longest(a, la, b, lb, &pa, &pb), 1, la, lb) : 0;
      } else {
        w = cs_gain(cs_intersect(cs_pattern(Rw, mem, pat, u, gs), plen[u], cs_pattern(Rw, mem, pat, v, gs), plen[v], NULL),
                    gs, cs_group_len(Rw, mem, u, gs), cs_group_len(Rw, mem, v, gs));
      }
      if (w > bw) {
        bw = w;
        bv = v;
      }
    }
    if (bv >= 0) {
      mate[u] = (int32_t)bv;
      mate[bv] = (int32_t)u;
    }
  }
}

/* Appends the positions of a level's unmatched items (gs each; every item
 * when all) to left[*nleft..], items and members in order. */
static void collect(int64_t m, int gs, const int32_t *mem, const int32_t *mate, int all, int32_t *left,
                    int64_t *nleft)
{
  for (int64_t u = 0; u < m; u++)
    if (all || mate[u] < 0)
      for (int r = 0; r < gs; r++) left[(*nleft)++] = mem ? mem[u * gs + r] : (int32_t)u;
}

/* Final layout: the nfull positions of the full groups first, in order, then
 * the rest longest row first (ties: collection order), so that the slices
 * the leftovers share are as even as SELL's. */
static ng_status layout(const cs_rows *Rw, const int32_t *left, int64_t nfull, int32_t *perm, int32_t *fbase)
{
  int64_t n = Rw->n, l;
  cs_key *key = NULL;
  NG_CHECK(NG_MALLOC(key, n - nfull + 1));
  for (int64_t j = nfull; j < n; j++) {
    cs_row(Rw, left[j], &l);
    key[j - nfull].len = l;
    key[j - nfull].row = (int32_t)j;
  }
  qsort(key, (size_t)(n - nfull), sizeof(cs_key), cs_key_cmp);
  for (int64_t j = 0; j < n; j++) {
    int32_t t = left[j < nfull ? j : key[j - nfull].row];
    perm[j] = Rw->pos[t];
    fbase[j] = Rw->base[t];
  }
  ng_free(key);
  return NG_SUCCESS;
}

/* Steps (i)-(iii): the final row order and bases. */
static ng_status codsell_group(const ng_csr *A, const int32_t *scol, int C, int sigma, int parallel, int32_t *perm,
                               int32_t *fbase)
{
  int64_t n = A->nrows, nleft = 0, nrest = 0;
  int L = 0;
  while ((1 << L) < C) L++;
  cs_key *key = NULL;
  int32_t *left = NULL, *rest = NULL, *pos = NULL, *base = NULL, *mate = NULL, *best = NULL, *mate2 = NULL, *ids = NULL, *mem = NULL, *mem2 = NULL, *plen = NULL,
          *plen2 = NULL, *pat = NULL, *pat2 = NULL;
  int *wf = NULL;
  ng_status st = NG_SUCCESS;
  NG_CHECK_GOTO(st, NG_MALLOC(key, n + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(pos, n + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(base, n + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(left, n + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(rest, n + 1), done);
  for (int64_t i = 0; i < n; i++) {
    key[i].len = A->rowptr[i + 1] - A->rowptr[i];
    key[i].row = (int32_t)i;
  }
  if (sigma > 1) {
    int64_t nw = (n + sigma - 1) / sigma;
    NG_OMP_FOR
    for (int64_t wi = 0; wi < nw; wi++) {
      int64_t b = wi * sigma, e = b + sigma < n ? b + sigma : n;
      qsort(key + b, (size_t)(e - b), sizeof(cs_key), cs_key_cmp);
    }
  }
  for (int64_t t = 0; t < n; t++) pos[t] = key[t].row;
  ng_free(key);
  key = NULL;
  cs_rows Rw = {n, A->nnz, C, A->rowptr, scol, pos, base};
  if (L == 0) { /* C = 1: every row is its own slice */
    for (int64_t t = 0; t < n; t++) {
      cs_single_base(&Rw, t);
      left[t] = (int32_t)t;
    }
    st = layout(&Rw, left, n, perm, fbase);
    goto done;
  }
  NG_CHECK_GOTO(st, NG_MALLOC(mate, n + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(best, n + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(mate2, n + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(ids, n + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(pat, A->nnz + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(pat2, A->nnz + 1), done);
  if (parallel) NG_CHECK_GOTO(st, NG_MALLOC(wf, n * CS_R_MERGE + 1), done);
  /* (ii) pairs */
  if (parallel) {
    match_parallel(&Rw, 0, n, 1, NULL, NULL, NULL, wf, mate, mate2, best, ids);
  } else {
    match_greedy(&Rw, 0, n, CS_R_PAIR, 1, NULL, NULL, NULL, mate);
  }
  int64_t m = 0;
  for (int64_t t = 0; t < n; t++) m += mate[t] > t;
  NG_CHECK_GOTO(st, NG_MALLOC(mem, 2 * m + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(plen, m + 1), done);
  {
    int64_t g = 0;
    for (int64_t t = 0; t < n; t++) {
      if (mate[t] < 0) cs_single_base(&Rw, t);
      else if (mate[t] > t) cs_make_pair(&Rw, t, mate[t], g++, mem, pat, plen);
    }
  }
  collect(n, 1, NULL, mate, 0, rest, &nrest);
  /* (iii) merges: level k groups of gs = 2^k rows */
  for (int k = 1; k < L; k++) {
    int gs = 1 << k;
    if (parallel) {
      match_parallel(&Rw, k, m, gs, mem, pat, plen, wf, mate, mate2, best, ids);
    } else {
      match_greedy(&Rw, k, m, CS_R_MERGE, gs, mem, pat, plen, mate);
    }
    int64_t m2 = 0;
    for (int64_t g = 0; g < m; g++) m2 += mate[g] > g;
    NG_CHECK_GOTO(st, NG_MALLOC(mem2, 2 * gs * m2 + 1), done);
    NG_CHECK_GOTO(st, NG_MALLOC(plen2, m2 + 1), done);
    {
      int64_t g2 = 0;
      for (int64_t g = 0; g < m; g++)
        if (mate[g] > g) cs_make_merge(&Rw, g, mate[g], g2++, gs, mem, pat, plen, mem2, pat2, plen2);
    }
    collect(m, gs, mem, mate, 0, rest, &nrest);
    ng_free(mem);
    ng_free(plen);
    mem = mem2;
    plen = plen2;
    mem2 = plen2 = NULL;
    int32_t *tp = pat;
    pat = pat2;
    pat2 = tp;
    m = m2;
  }
  /* full groups of C rows first */
  collect(m, C, mem, NULL, 1, left, &nleft);
  if (nleft + nrest != n) {
    st = NG_ERROR(NG_ERR_INTERNAL, "codsell: %lld rows placed of %lld", (long long)(nleft + nrest), (long long)n);
    goto done;
  }
  memcpy(left + nleft, rest, (size_t)nrest * sizeof(int32_t));
  st = layout(&Rw, left, nleft, perm, fbase);
done:
  ng_free(key);
  ng_free(pos);
  ng_free(base);
  ng_free(left);
  ng_free(rest);
  ng_free(mate);
  ng_free(best);
  ng_free(mate2);
  ng_free(ids);
  ng_free(mem);
  ng_free(mem2);
  ng_free(plen);
  ng_free(plen2);
  ng_free(pat);
  ng_free(pat2);
  ng_free(wf);
  return st;
}

ng_status ng_codsell_fill(ng_codsell *S, const ng_csr *A)
{
  int64_t nt = (int64_t)S->nslices * S->C;
  NG_OMP_FOR
  for (int64_t t = 0; t < nt; t++)
    cs_fill_lane(t, S->n, S->C, A->rowptr, A->col, A->val, S->perm, S->vptr, S->cptr, S->dptr, S->dict, S->col, S->val);
  return NG_SUCCESS;
}

size_t ng_codsell_dict_saving(const ng_codsell *S)
{
  size_t save = 0;
  for (int32_t s = 0; s < S->nslices; s++) save += (size_t)(S->dptr[s + 1] - S->dptr[s]) * (S->C - 1) * sizeof(int32_t);
  return save;
}

ng_status ng_codsell_build(const ng_csr *A, const ng_spmv_opts *o, int parallel, ng_codsell *S)
{
  int32_t n = A->nrows, C = o->sell_c, *scol = NULL, *fbase = NULL;
  int owned = 0, *dlen = NULL;
  int64_t *wid = NULL;
  ng_status st;
  memset(S, 0, sizeof(*S));
  if (C < 1 || C > 1024 || (C & (C - 1)))
    return NG_ERROR(NG_ERR_ARGUMENT, "codsell: slice height C = %d is not a power of two in 1..1024", C);
  if (o->sell_sigma < 1) return NG_ERROR(NG_ERR_ARGUMENT, "codsell: sorting window sigma = %d must be >= 1", o->sell_sigma);
  S->n = n;
  S->ncols = A->ncols;
  S->C = C;
  S->sigma = o->sell_sigma;
  S->nslices = (int32_t)(((int64_t)n + C - 1) / C);
  S->o = *o;
  int32_t ns = S->nslices;
  NG_CHECK(sorted_columns(A, &scol, &owned));
  NG_CHECK_GOTO(st, NG_MALLOC(S->perm, n + 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(fbase, n + 1), fail);
  NG_CHECK_GOTO(st, codsell_group(A, scol, C, o->sell_sigma, parallel, S->perm, fbase), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(S->vptr, ns + 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(S->cptr, ns + 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(S->dptr, ns + 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(wid, ns + 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(dlen, ns + 1), fail);
  cs_final F = {n, C, A->rowptr, scol, S->perm, fbase};
  NG_OMP_FOR
  for (int64_t s = 0; s < ns; s++) wid[s] = cs_slice(&F, s, &dlen[s], NULL);
  S->vptr[0] = S->cptr[0] = S->dptr[0] = 0;
  for (int32_t s = 0; s < ns; s++) {
    S->vptr[s + 1] = S->vptr[s] + wid[s] * C;
    S->cptr[s + 1] = S->cptr[s] + (wid[s] - dlen[s]) * C;
    S->dptr[s + 1] = S->dptr[s] + dlen[s];
  }
  if (S->vptr[ns] > 0 && A->ncols == 0) {
    st = NG_ERROR(NG_ERR_INTERNAL, "codsell: entries in a matrix with no columns");
    goto fail;
  }
  NG_CHECK_GOTO(st, NG_MALLOC(S->dict, S->dptr[ns] + 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(S->col, S->cptr[ns] + 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(S->val, S->vptr[ns] + 1), fail);
  NG_OMP_FOR
  for (int64_t s = 0; s < ns; s++) {
    int d;
    cs_slice(&F, s, &d, S->dict + S->dptr[s]);
    if (d > 0) /* base slots; empty lanes repeat lane 0's */
      for (int64_t r = 0; r < C; r++) S->col[S->cptr[s] + r] = s * C + r < n ? fbase[s * C + r] : fbase[s * C];
  }
  if (!o->codsell_force) {
    size_t save = ng_codsell_dict_saving(S), cost = 2 * ((size_t)ns + 1) * sizeof(int64_t);
    if (save <= cost && ns > 0) {
      st = NG_ERROR(NG_ERR_DOES_NOT_FIT,
                    "codsell: the slices' dictionaries save %zu bytes of column indices, not more than the %zu "
                    "bytes of their pointers (rows share too few column patterns; sell stores this matrix in "
                    "fewer bytes, codsell:force keeps it)",
                    save, cost);
      goto fail;
    }
  }
  NG_CHECK_GOTO(st, ng_codsell_fill(S, A), fail);
  if (owned) ng_free(scol);
  ng_free(fbase);
  ng_free(wid);
  ng_free(dlen);
  return NG_SUCCESS;
fail:
  if (owned) ng_free(scol);
  ng_free(fbase);
  ng_free(wid);
  ng_free(dlen);
  ng_codsell_free(S);
  return st;
}

void ng_codsell_spmv(const ng_codsell *S, double alpha, const double *x, double beta, double *y)
{
  int64_t n = S->n;
  NG_OMP_FOR
  for (int64_t t = 0; t < n; t++) {
    int32_t i = S->perm[t];
    double sum = cs_row_dot(t, S->C, S->vptr, S->cptr, S->dptr, S->dict, S->col, S->val, x);
    y[i] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[i];
  }
}

size_t ng_codsell_bytes(const ng_codsell *S)
{
  if (!S->vptr) return 0;
  int32_t ns = S->nslices;
  return (size_t)S->vptr[ns] * sizeof(double) + ((size_t)S->cptr[ns] + (size_t)S->dptr[ns]) * sizeof(int32_t) +
         3 * ((size_t)ns + 1) * sizeof(int64_t) + (size_t)S->n * sizeof(int32_t);
}

void ng_codsell_free(ng_codsell *S)
{
  ng_free(S->vptr);
  ng_free(S->cptr);
  ng_free(S->dptr);
  ng_free(S->col);
  ng_free(S->dict);
  ng_free(S->perm);
  ng_free(S->val);
  S->vptr = S->cptr = S->dptr = NULL;
  S->col = S->dict = S->perm = NULL;
  S->val = NULL;
}

/* ---- host table ------------------------------------------------------------ */
static ng_status codsell_create_opt(ng_context c, const ng_csr *A, const char *opt, void **data)
{
  ng_spmv_opts o;
  ng_codsell *S = NULL;
  NG_CHECK(ng_spmv_opts_parse("codsell", opt, &o));
  NG_CHECK(NG_CALLOC(S, 1));
  ng_status st = ng_codsell_build(A, &o, !o.codsell_seq, S);
  if (st != NG_SUCCESS) {
    ng_free(S);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *data = S;
  return NG_SUCCESS;
}
static ng_status codsell_create(ng_context c, const ng_csr *A, void **d) { return codsell_create_opt(c, A, "", d); }
static ng_status codsell_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  ng_codsell_spmv(data, alpha, x, beta, y);
  return NG_SUCCESS;
}
static ng_status codsell_update(void *data, const ng_csr *A)
{
  ng_codsell *S = data;
  if (A->nrows != S->n)
    return NG_ERROR(NG_ERR_ARGUMENT, "codsell update: %d rows given, the matrix has %d", (int)A->nrows, (int)S->n);
  NG_CHECK(ng_codsell_fill(S, A));
  return NG_SUCCESS;
}
static size_t codsell_bytes(const void *data) { return ng_codsell_bytes(data); }
static void codsell_destroy(void *data)
{
  if (!data) return;
  ng_codsell_free(data);
  ng_free(data);
}

const ng_spmv_ops ng_spmv_codsell_host = {.name = "codsell", .on_gpu = 0, .create = codsell_create,
                                          .apply = codsell_apply, .update_values = codsell_update,
                                          .bytes = codsell_bytes, .destroy = codsell_destroy,
                                          .create_opt = codsell_create_opt};
