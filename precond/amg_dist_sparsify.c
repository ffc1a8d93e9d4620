/* precond/amg_dist_sparsify.c: amg_sparsify.c's non-Galerkin sparsification
 * of a distributed coarse operator. The criterion reads the diagonal of
 * every column's row, so the full Galerkin operator is made first and its
 * halo plan brings the off-rank diagonals; the kept entries (columns in the
 * same global order as the one-rank product, dropped entries added to the
 * row's diagonal in that order) then make the level's matrix, so the
 * operator does not depend on the rank count. map[p] is where input entry p
 * went, for the update's values. */
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

static int64_t find_halo(const int64_t *h, int32_t nh, int64_t g)
{
  int32_t lo = 0, hi = nh;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (h[mid] < g) lo = mid + 1;
    else hi = mid;
  }
  return lo < nh && h[lo] == g ? lo : -1;
}

void ng_amg_dsparsify_values(const ng_amg_dsparsify *S, const double *val)
{
  memset(S->val, 0, (size_t)(S->nnz_out > 0 ? S->nnz_out : 1) * sizeof(double));
  for (int64_t p = 0; p < S->nnz_in; p++) S->val[S->map[p]] += val[p];
}

ng_status ng_amg_dist_sparsify(ng_context ctx, double tau, int64_t nc, int64_t c0, int32_t n, const int64_t *rp,
                               const int64_t *gc, const double *val, ng_matrix *Ac, ng_amg_dsparsify **out)
{
  ng_matrix F = *Ac; /* the full operator, replaced */
  ng_amg_dsparsify *S = NULL;
  double *d = NULL, *dh = NULL;
  int64_t *rp2 = NULL, *gc2 = NULL, nnz = rp[n];
  ng_status st = NG_CALLOC(S, 1);
  if (!st) st = NG_MALLOC(d, n > 0 ? n : 1);
  if (!st) st = NG_MALLOC(dh, F->n_halo > 0 ? F->n_halo : 1);
  if (!st) st = NG_MALLOC(S->map, nnz > 0 ? nnz : 1);
  if (!st) st = NG_CALLOC(rp2, (size_t)n + 1);
  if (!st) st = NG_MALLOC(gc2, nnz > 0 ? nnz : 1);
  if (!st) st = ng_csr_diagonal(&F->local, d, 1);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  for (int32_t i = 0; i < n; i++) d[i] = fabs(d[i]);
  NG_CHECK_GOTO(st, ng_halo_exchange_host(ctx, F->halo, d, dh, sizeof(double)), out);
  S->nnz_in = nnz;
  int32_t bad = -1;
  for (int32_t i = 0; i < n && bad < 0; i++) {
    int64_t diag = -1, start = rp2[i];
    for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
      int64_t g = gc[p], h;
      double dj;
      if (g == c0 + i) dj = d[i];
      else if (g >= c0 && g < c0 + n) dj = d[g - c0];
      else dj = (h = find_halo(F->halo_gcol, F->n_halo, g)) >= 0 ? dh[h] : 0.0;
      int keep = g == c0 + i || fabs(val[p]) >= tau * (d[i] < dj ? d[i] : dj);
      if (keep) {
        if (g == c0 + i) diag = rp2[i + 1] + start;
        gc2[start + rp2[i + 1]] = g;
        S->map[p] = start + rp2[i + 1]++;
      } else S->map[p] = -1;
    }
    if (diag < 0) bad = i;
    for (int64_t p = rp[i]; p < rp[i + 1]; p++)
      if (S->map[p] < 0) S->map[p] = diag;
    rp2[i + 1] += start;
  }
  if (bad >= 0) st = NG_ERROR(NG_ERR_NUMERIC, "AMG: coarse row %lld has no diagonal entry to lump into", (long long)(c0 + bad));
  S->nnz_out = rp2[n];
  if (!st) st = NG_MALLOC(S->val, S->nnz_out > 0 ? S->nnz_out : 1);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  ng_amg_dsparsify_values(S, val);
  ng_matrix A2 = NULL;
  NG_CHECK_GOTO(st, ng_matrix_create_distributed(ctx, nc, c0, c0 + n, rp2, gc2, S->val, &A2), out);
  ng_matrix_destroy(F);
  *Ac = A2;
  *out = S;
  S = NULL;
out:
  ng_amg_dsparsify_free(S);
  ng_free(d);
  ng_free(dh);
  ng_free(rp2);
  ng_free(gc2);
  return st;
}
