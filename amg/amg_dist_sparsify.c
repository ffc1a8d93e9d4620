/* amg/amg_dist_sparsify.c: amg_sparsify.c's non-Galerkin sparsification
 * of a distributed coarse operator. The criterion reads the diagonal of
 * every column's row: this rank's rows give their own, and the off-rank
 * columns' ones are asked of their owners (one request and one reply
 * all-to-all, no matrix made of the full product). The kept entries
 * (columns in the same global order as the one-rank product, dropped
 * entries added to the row's diagonal in that order) then make the level's
 * matrix, so the operator does not depend on the rank count. map[p] is
 * where input entry p went, for the update's values (-1 - map[p]: |value|
 * there, the hybrid lumping of amg_sparsify.c, whose row flags travel as
 * the sign of the exchanged diagonals). */
#include "amg_dist.h"
#include <math.h>

struct ng_amg_dsparsify {
  int64_t *map, nnz_in, nnz_out;
  double *val;
};

void ng_amg_dsparsify_free(ng_amg_dsparsify *S)
{
  if (!S) return;
  ng_free(S->map);
  ng_free(S->val);
  ng_free(S);
}

void ng_amg_dsparsify_values(const ng_amg_dsparsify *S, const double *val)
{
  const int64_t *map = S->map;
  double *out = S->val;
  memset(out, 0, (size_t)(S->nnz_out > 0 ? S->nnz_out : 1) * sizeof(double));
  for (int64_t p = 0, n = S->nnz_in; p < n; p++)
    if (map[p] >= 0) out[map[p]] += val[p];
    else out[-1 - map[p]] += fabs(val[p]);
}

/* d[i] = |a_ii| of this rank's rows i (global c0 + i) of rp, gc, val;
 * hybrid: -|a_ii| for a row whose positive off-diagonal entries sum past
 * NG_AMG_HYBRID_POS |a_ii| (amg_sparsify.c). */
static ng_status own_diagonal(int64_t c0, int32_t n, const int64_t *rp, const int64_t *gc, const double *val, int hybrid,
                              double *d)
{
  for (int32_t i = 0; i < n; i++) {
    double s = 0.0, pos = 0.0;
    for (int64_t p = rp[i], p1 = rp[i + 1]; p < p1; p++)
      if (gc[p] == c0 + i) s += val[p];
      else if (val[p] > 0) pos += val[p];
    if (s == 0.0) return NG_ERROR(NG_ERR_NUMERIC, "AMG: coarse row %lld has a zero or missing diagonal entry", (long long)(c0 + i));
    d[i] = hybrid && pos > NG_AMG_HYBRID_POS * fabs(s) ? -fabs(s) : fabs(s);
  }
  return NG_SUCCESS;
}

/* The distinct off-rank columns of gc (*H: column -> position in sorted
 * order) and their rows' |diagonal| from the owners (*dh, by position): the
 * requests go out grouped by owner (sorted columns are), each owner answers
 * from d in the same order. Collective, agreed (st, the caller's status
 * so far, with this function's first buffers); the caller frees H. */
static ng_status halo_diagonal(ng_context ctx, ng_status st, const int64_t *starts, int64_t nnz, const int64_t *gc,
                               const double *d, ng_index_map *H, double **dh)
{
  int size = ctx->size, rank = ctx->rank;
  int64_t c0 = starts[rank], c1 = starts[rank + 1], noff = 0, nreq = 0;
  int64_t *off = NULL, *scnt = NULL, *rcnt = NULL, *req = NULL;
  double *ans = NULL;
  memset(H, 0, sizeof(*H));
  if (!st) st = NG_MALLOC(off, nnz > 0 ? nnz : 1); /* room for every entry: one pass */
  if (!st) {
    for (int64_t p = 0; p < nnz; p++)
      if (gc[p] < c0 || gc[p] >= c1) off[noff++] = gc[p];
    st = ng_index_map_build(H, off, noff);
  }
  if (!st) st = NG_CALLOC(scnt, size);
  if (!st) st = NG_CALLOC(rcnt, size);
  if (!st) st = NG_MALLOC(*dh, H->n > 0 ? H->n : 1);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  for (int32_t h = 0; h < H->n; h++) scnt[ng_partition_owner(starts, size, H->sorted[h])]++;
  NG_CHECK_GOTO(st, ng_comm_alltoall_counts(ctx, scnt, rcnt), out);
  for (int r = 0; r < size; r++) nreq += rcnt[r];
  st = NG_MALLOC(req, nreq > 0 ? nreq : 1);
  if (!st) st = NG_MALLOC(ans, nreq > 0 ? nreq : 1);
  NG_CHECK_GOTO(st, ng_comm_alltoallv(ctx, st, H->sorted, scnt, req, rcnt, sizeof(int64_t)), out); /* agrees st */
  for (int64_t q = 0; q < nreq && !st; q++) {
    if (req[q] < c0 || req[q] >= c1)
      st = NG_ERROR(NG_ERR_INTERNAL, "AMG: asked the diagonal of coarse row %lld, not owned here", (long long)req[q]);
    else ans[q] = d[req[q] - c0];
  }
  NG_CHECK_GOTO(st, ng_comm_alltoallv(ctx, st, ans, rcnt, *dh, scnt, sizeof(double)), out); /* agrees st */
out:
  ng_free(off);
  ng_free(scnt);
  ng_free(rcnt);
  ng_free(req);
  ng_free(ans);
  return st;
}

/* 0 when entry (row ii, global column g, value v) is kept (the diagonal
 * always; another when |v| >= tau min(|a_ii|, |a_jj|)), -1 when dropped,
 * -2 when dropped as |v| (either row hybrid: a negative d). */
static inline int64_t kept(int64_t g, int64_t ii, double v, double tau, double di, int64_t c0, int32_t n,
                           const double *d, const ng_index_map *H, const double *dh)
{
  if (g == ii) return 0;
  int32_t h;
  double dj = (uint64_t)(g - c0) < (uint64_t)n ? d[g - c0] : (h = ng_index_map_find(H, g)) >= 0 ? dh[h] : 0.0;
  double ai = fabs(di), aj = fabs(dj);
  return fabs(v) >= tau * (ai < aj ? ai : aj) ? 0 : di < 0 || dj < 0 ? -2 : -1;
}

ng_status ng_amg_dist_sparsify(ng_context ctx, ng_status st, double tau, int hybrid, const int64_t *starts, const int64_t *rp,
                               const int64_t *gc, const double *val, ng_matrix *Ac, ng_amg_dsparsify **out)
{
  ng_amg_dsparsify *S = NULL;
  double *d = NULL, *dh = NULL;
  int64_t c0 = starts[ctx->rank], nc = starts[ctx->size];
  int32_t n = (int32_t)(starts[ctx->rank + 1] - c0);
  ng_index_map H = {0};
  int64_t *rp2 = NULL, *gc2 = NULL, nnz = rp[n];
  *Ac = NULL;
  if (!st) st = NG_CALLOC(S, 1);
  if (!st) st = NG_MALLOC(d, n > 0 ? n : 1);
  if (!st) st = NG_MALLOC(S->map, nnz > 0 ? nnz : 1);
  if (!st) st = NG_CALLOC(rp2, (size_t)n + 1);
  if (!st) st = NG_MALLOC(gc2, nnz > 0 ? nnz : 1);
  if (!st) st = own_diagonal(c0, n, rp, gc, val, hybrid, d);
  NG_CHECK_GOTO(st, halo_diagonal(ctx, st, starts, nnz, gc, d, &H, &dh), out); /* agrees st first */
  S->nnz_in = nnz;
  int32_t bad = -1;
  /* two passes over the rows on all threads: each row's kept count (the
   * diagonal and the entries that pass the test), then, at the row's offset,
   * the kept columns and where every entry goes (a dropped one to the row's
   * diagonal); a row without a diagonal is reported, the first one by index */
  int32_t first = INT32_MAX;
  int64_t *map = S->map; /* in a local: the int64 stores into map could alias S's fields and rp */
#pragma omp parallel for schedule(static) reduction(min : first) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t c = 0, ii = c0 + i;
    int has = 0;
    double di = d[i];
    for (int64_t p = rp[i], p1 = rp[i + 1]; p < p1; p++) {
      int64_t g = gc[p], m = kept(g, ii, val[p], tau, di, c0, n, d, &H, dh);
      map[p] = m;
      c += m >= 0;
      has |= g == ii;
    }
    rp2[i + 1] = c;
    if (!has && i < first) first = i;
  }
  if (first < INT32_MAX) bad = first;
  for (int32_t i = 0; i < n; i++) rp2[i + 1] += rp2[i];
#pragma omp parallel for schedule(static) if (n > 20000 && bad < 0)
  for (int32_t i = 0; i < n; i++) {
    int64_t diag = -1, base = rp2[i], c = 0, ii = c0 + i, p0 = rp[i], p1 = rp[i + 1];
    for (int64_t p = p0; p < p1; p++)
      if (map[p] >= 0) {
        if (gc[p] == ii) diag = base + c;
        gc2[base + c] = gc[p];
        map[p] = base + c++;
      }
    for (int64_t p = p0; p < p1; p++)
      if (map[p] < 0) map[p] = map[p] == -2 ? -1 - diag : diag;
  }
  if (bad >= 0) st = NG_ERROR(NG_ERR_NUMERIC, "AMG: coarse row %lld has no diagonal entry to lump into", (long long)(c0 + bad));
  S->nnz_out = rp2[n];
  if (!st) st = NG_MALLOC(S->val, S->nnz_out > 0 ? S->nnz_out : 1);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  ng_amg_dsparsify_values(S, val);
  NG_CHECK_GOTO(st, ng_matrix_create_distributed_csr(ctx, nc, c0, c0 + n, rp2, gc2, S->val, Ac), out);
  *out = S;
  S = NULL;
out:
  ng_amg_dsparsify_free(S);
  ng_free(d);
  ng_free(dh);
  ng_index_map_free(&H);
  ng_free(rp2);
  ng_free(gc2);
  return st;
}
