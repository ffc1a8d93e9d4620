/* amg/amg_dist_prolong.c: the smoothed prolongator across ranks
 * (amg_prolong.c's method). Aggregates straddle rank boundaries, so the
 * tentative P's normalisation 1/sqrt(|aggregate|) needs the aggregate's
 * size summed over ranks: members on other ranks are counted at the owner
 * (one all-to-all), which answers with the size (a second). Row i of the
 * smoothed P = (I - omega D^-1 A) P_tent reads the aggregates and tentative
 * values of its halo columns. The trick that lets the one-rank code build
 * it: A's two blocks side by side (own rows over own then halo columns:
 * the one-rank functions' second block, nothing copied) and the coarse
 * columns this rank meets numbered compactly in global order, so that
 * ng_amg_smooth_pattern and ng_amg_smooth_rows give the one-rank rows. */
#include "amg_dist.h"
#include <math.h>

ng_status ng_amg_dist_tentative(ng_matrix A, ng_amg_dlevel *D)
{
  ng_context ctx = A->ctx;
  int size = ctx->size, rank = ctx->rank;
  int32_t n = A->n_local, nown = (int32_t)(D->cstarts[rank + 1] - D->cstarts[rank]);
  int64_t *scnt = NULL, *rcnt = NULL, *sdsp = NULL, *cnt = NULL, *sbuf = NULL, *rbuf = NULL, nsend = 0, nrecv = 0;
  ng_status st = NG_CALLOC(scnt, size);
  if (!st) st = NG_CALLOC(rcnt, size);
  if (!st) st = NG_CALLOC(sdsp, (size_t)size + 1);
  if (!st) st = NG_CALLOC(cnt, nown);
  if (!st) st = NG_MALLOC(D->ptent, (size_t)n + A->n_halo);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  /* own aggregates' members counted on all threads; the others (few) after */
  int64_t o0 = D->cstarts[rank], no = D->cstarts[rank + 1] - o0;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t c = D->agg[i];
    if ((uint64_t)(c - o0) < (uint64_t)no) {
#pragma omp atomic
      cnt[c - o0]++;
    }
  }
  for (int32_t i = 0; i < n; i++) {
    int64_t c = D->agg[i];
    if (c >= 0 && (uint64_t)(c - o0) >= (uint64_t)no) scnt[ng_partition_owner(D->cstarts, size, c)]++;
  }
  NG_CHECK_GOTO(st, ng_comm_alltoall_counts(ctx, scnt, rcnt), out);
  for (int r = 0; r < size; r++) {
    sdsp[r + 1] = sdsp[r] + scnt[r];
    nrecv += rcnt[r];
  }
  nsend = sdsp[size];
  st = NG_MALLOC(sbuf, nsend);
  if (!st) st = NG_MALLOC(rbuf, nrecv); /* agreed in the exchange */
  /* members of other ranks' aggregates, grouped by owner, in row order */
  for (int r = 0; r < size; r++) scnt[r] = 0;
  for (int32_t i = 0; i < n && !st; i++) {
    int64_t c = D->agg[i];
    if (c < 0 || (c >= D->cstarts[rank] && c < D->cstarts[rank + 1])) continue;
    int r = ng_partition_owner(D->cstarts, size, c);
    sbuf[sdsp[r] + scnt[r]++] = c;
  }
  NG_CHECK_GOTO(st, ng_comm_alltoallv(ctx, st, sbuf, scnt, rbuf, rcnt, sizeof(int64_t)), out);
  for (int64_t k = 0; k < nrecv; k++) cnt[rbuf[k] - D->cstarts[rank]]++;
  for (int64_t k = 0; k < nrecv; k++) rbuf[k] = cnt[rbuf[k] - D->cstarts[rank]]; /* the answers */
  NG_CHECK_GOTO(st, ng_comm_alltoallv(ctx, NG_SUCCESS, rbuf, rcnt, sbuf, scnt, sizeof(int64_t)), out);
  for (int r = 0; r < size; r++) scnt[r] = 0;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t c = D->agg[i];
    if (c < 0) D->ptent[i] = 0.0;
    else if ((uint64_t)(c - o0) < (uint64_t)no) D->ptent[i] = 1.0 / sqrt((double)cnt[c - o0]);
  }
  for (int32_t i = 0; i < n; i++) { /* the answers for the others, in the order asked */
    int64_t c = D->agg[i];
    if (c < 0 || (uint64_t)(c - o0) < (uint64_t)no) continue;
    int r = ng_partition_owner(D->cstarts, size, c);
    D->ptent[i] = 1.0 / sqrt((double)sbuf[sdsp[r] + scnt[r]++]);
  }
  NG_CHECK_GOTO(st, ng_halo_exchange_host(A->ctx, A->halo, D->ptent, D->ptent + n, sizeof(double)), out);
out:
  ng_free(scnt);
  ng_free(rcnt);
  ng_free(sdsp);
  ng_free(cnt);
  ng_free(sbuf);
  ng_free(rbuf);
  return st;
}

/* [A_local | A_offrank] values, row by row (Aext's order): two block
 * copies a row (memcpy: cheaper than an element loop over ~20 entries).
 * Aext, a copy of both blocks, is made only for the GPU's Galerkin
 * products when the level's rows are not on the device already; the host
 * reads the two blocks in place. */
static void aext_values(ng_matrix A, ng_csr *X)
{
  int32_t n = A->n_local;
  const ng_csr *L = &A->local, *O = &A->offrank;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t p = X->rowptr[i], nl = L->rowptr[i + 1] - L->rowptr[i];
    memcpy(X->val + p, L->val + L->rowptr[i], (size_t)nl * sizeof(double));
    memcpy(X->val + p + nl, O->val + O->rowptr[i], (size_t)(O->rowptr[i + 1] - O->rowptr[i]) * sizeof(double));
  }
}

/* Aext's pattern (own columns 0..n-1, halo columns n..) and values, in one
 * pass over the rows. */
static ng_status make_aext(ng_matrix A, ng_csr *X)
{
  int32_t n = A->n_local;
  const ng_csr *L = &A->local, *O = &A->offrank;
  NG_CHECK(ng_csr_alloc(X, n, n + A->n_halo, L->nnz + O->nnz));
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i <= n; i++) X->rowptr[i] = L->rowptr[i] + O->rowptr[i];
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t p = X->rowptr[i], nl = L->rowptr[i + 1] - L->rowptr[i];
    memcpy(X->col + p, L->col + L->rowptr[i], (size_t)nl * sizeof(int32_t));
    memcpy(X->val + p, L->val + L->rowptr[i], (size_t)nl * sizeof(double));
    p += nl;
    for (int64_t k = O->rowptr[i]; k < O->rowptr[i + 1]; k++, p++) {
      X->col[p] = n + O->col[k];
      X->val[p] = O->val[k];
    }
  }
  return NG_SUCCESS;
}

/* The compact coarse columns (D->pcol, D->pm: every aggregate of an own
 * row or halo column, so every column of P, in ascending order) and
 * D->cagg, when the aggregates met span [lo, lo + span): a table over the
 * span, marked, then numbered in order. */
static ng_status compact_by_table(ng_matrix A, ng_amg_dlevel *D, int64_t lo, int64_t span)
{
  int32_t ne = A->n_local + A->n_halo, *pos = NULL; /* aggregate lo + q: 1 when met, then its compact column */
  NG_CHECK(NG_CALLOC(pos, span > 0 ? span : 1));
  ng_status st = NG_MALLOC(D->cagg, ne > 0 ? ne : 1);
  if (st) {
    ng_free(pos);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
#pragma omp parallel for schedule(static) if (ne > 20000)
  for (int32_t e = 0; e < ne; e++)
    if (D->agg[e] >= 0) {
#pragma omp atomic write
      pos[D->agg[e] - lo] = 1; /* every writer stores the same value */
    }
  int32_t k = 0;
  for (int64_t q = 0; q < span; q++) k += pos[q];
  D->pm = k;
  st = NG_MALLOC(D->pcol, k > 0 ? k : 1);
  if (st) {
    ng_free(pos);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  k = 0;
  for (int64_t q = 0; q < span; q++)
    if (pos[q]) {
      D->pcol[k] = lo + q;
      pos[q] = k++;
    }
#pragma omp parallel for schedule(static) if (ne > 20000)
  for (int32_t e = 0; e < ne; e++) D->cagg[e] = D->agg[e] < 0 ? -1 : pos[D->agg[e] - lo];
  ng_free(pos);
  return NG_SUCCESS;
}

/* The same columns when the span is wide (aggregates of far ranks met):
 * the aggregates this rank owns form the range [o0, o1) and are marked in
 * a table over it; only the others are sorted. */
static ng_status compact_by_sort(ng_matrix A, ng_amg_dlevel *D)
{
  ng_context ctx = A->ctx;
  int32_t ne = A->n_local + A->n_halo;
  int64_t o0 = D->cstarts[ctx->rank], no = D->cstarts[ctx->rank + 1] - o0, nf = 0, nu = 0;
  int64_t *f = NULL;
  int32_t *opos = NULL; /* own aggregate a: its compact column opos[a - o0] (marked 1 first) */
  ng_status st = NG_CALLOC(opos, no > 0 ? no : 1);
  if (!st) st = NG_MALLOC(f, ne > 0 ? ne : 1);
  if (!st) st = NG_MALLOC(D->cagg, ne > 0 ? ne : 1);
  if (st) {
    ng_free(opos);
    ng_free(f);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  for (int32_t e = 0; e < ne; e++) {
    int64_t a = D->agg[e];
    if (a < 0) continue;
    if ((uint64_t)(a - o0) < (uint64_t)no) opos[a - o0] = 1;
    else f[nf++] = a;
  }
  qsort(f, (size_t)nf, sizeof(int64_t), ng_cmp_int64);
  for (int64_t q = 0; q < nf; q++)
    if (q == 0 || f[q] != f[q - 1]) f[nu++] = f[q];
  int64_t below = 0, marked = 0;
  while (below < nu && f[below] < o0) below++;
  for (int64_t a = 0; a < no; a++) marked += opos[a];
  D->pm = (int32_t)(nu + marked);
  st = NG_MALLOC(D->pcol, D->pm > 0 ? D->pm : 1);
  if (st) {
    ng_free(opos);
    ng_free(f);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  memcpy(D->pcol, f, (size_t)below * sizeof(int64_t));
  int32_t k = (int32_t)below;
  for (int64_t a = 0; a < no; a++)
    if (opos[a]) {
      D->pcol[k] = o0 + a;
      opos[a] = k++;
    }
  memcpy(D->pcol + k, f + below, (size_t)(nu - below) * sizeof(int64_t));
#pragma omp parallel for schedule(static) if (ne > 20000)
  for (int32_t e = 0; e < ne; e++) {
    int64_t a = D->agg[e];
    if (a < 0) D->cagg[e] = -1;
    else if ((uint64_t)(a - o0) < (uint64_t)no) D->cagg[e] = opos[a - o0];
    else { /* a foreign one: its place among the sorted others */
      int64_t lo = 0, hi = nu;
      while (hi - lo > 1) {
        int64_t mid = (lo + hi) / 2;
        if (f[mid] <= a) lo = mid;
        else hi = mid;
      }
      D->cagg[e] = (int32_t)(lo < below ? lo : lo + marked);
    }
  }
  ng_free(opos);
  ng_free(f);
  return NG_SUCCESS;
}

/* The compact columns by a table when the aggregates met span less than 8
 * ids a row and halo column (the usual: this rank's and its neighbours'
 * aggregates; when the coarse level moves onto fewer ranks, every
 * aggregate of a rank giving its rows away is another's, and sorting an
 * id per row and halo column cost ~8M Ir at lap27:40 on 4 ranks), else by
 * the sort; the same columns either way. */
static ng_status compact_columns(ng_matrix A, ng_amg_dlevel *D)
{
  int32_t ne = A->n_local + A->n_halo;
  int64_t lo = INT64_MAX, hi = -1;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) if (ne > 20000)
  for (int32_t e = 0; e < ne; e++)
    if (D->agg[e] >= 0) {
      if (D->agg[e] < lo) lo = D->agg[e];
      if (D->agg[e] > hi) hi = D->agg[e];
    }
  if (hi < 0) lo = 0; /* none met */
  if (hi - lo < 8 * (int64_t)ne + 1024) NG_CHECK(compact_by_table(A, D, lo, hi - lo + 1));
  else NG_CHECK(compact_by_sort(A, D));
  return NG_SUCCESS;
}

ng_status ng_amg_dist_aext(ng_matrix A, ng_amg_dlevel *D, int values)
{
  if (D->Aext.rowptr) {
    if (values) aext_values(A, &D->Aext);
  }
  else NG_CHECK(make_aext(A, &D->Aext));
  return NG_SUCCESS;
}

/* Setup: the compact columns, and P's pattern where it is not the GPU's
 * (a gathered level's identity; the host's when the level has no device
 * rows, made with the values in ng_amg_dist_prolong). */
static ng_status pattern(ng_matrix A, ng_amg_dlevel *D)
{
  int32_t n = A->n_local;
  double t = ng_wtime();
  NG_CHECK(compact_columns(A, D));
  ng_amg_dist_trace(A->ctx, "P: compact columns", &t);
  if (D->gather) {
    NG_CHECK(ng_csr_alloc(&D->Pc, n, D->pm, n));
    for (int32_t i = 0; i < n; i++) {
      D->Pc.rowptr[i + 1] = i + 1;
      D->Pc.col[i] = D->cagg[i];
    }
  }
  return NG_SUCCESS;
}

/* P = I onto rank 0: 1 in every row with a nonzero diagonal; the first
 * row without one, or -1. */
static int32_t gather_values(ng_matrix A, ng_csr *P)
{
  int32_t bad = -1;
  for (int32_t i = 0; i < A->n_local; i++) {
    double d = 0;
    for (int64_t k = A->local.rowptr[i]; k < A->local.rowptr[i + 1]; k++)
      if (A->local.col[k] == i) d += A->local.val[k];
    P->val[i] = d == 0.0 ? 0.0 : 1.0;
    if (d == 0.0 && bad < 0) bad = i;
  }
  return bad;
}

ng_status ng_amg_dist_prolong(ng_matrix A, ng_amg_dlevel *D, double omega, int refresh)
{
  ng_context ctx = A->ctx;
  int32_t bad = -1;
  int gpu = 0; /* P made on this rank's GPU (and downloaded into D->Pc) */
  ng_status st = NG_SUCCESS;
  if (!refresh) st = pattern(A, D);
  double t = ng_wtime();
  double *sd = D->sd; /* -amg_filter: sqrt |a_jj| of own rows and halo columns, the strength graph's at setup */
  D->sd = NULL;
  /* the same verdict on every rank (sd is kept by every rank's strength
   * graph or by none): the pattern's status is agreed before the
   * collective sqrt |a_jj| when there is one, else with the values' */
  if (D->filter > 0 && !D->gather && !sd) {
    NG_CHECK(ng_comm_agree(ctx, st));
    NG_CHECK(ng_amg_dist_sqrt_diagonal(A, &sd));
  }
#ifdef NG_HAVE_CUDA
  /* on the device where the aggregation left its rows there; a local
   * choice (no collective follows before the agreement below) */
  if (!st && D->gx && !D->gather) {
    if (refresh) st = ng_amg_dx_values(D->gx, A);
    if (!st && refresh && sd) st = ng_amg_dx_sd(D->gx, sd);
    if (!st) st = ng_amg_dx_smooth(D->gx, D->cagg, D->pm, D->ptent, omega, D->filter, D->sgn, refresh, &D->Pc, &gpu);
    ng_amg_dist_trace(ctx, gpu ? "P: pattern and values (GPU)" : "P: the GPU left it to the host", &t);
  }
#endif
  if (!st && !gpu) { /* over A's two blocks side by side */
    const ng_csr *O = ng_amg_dist_offrank(A);
    if (!refresh && !D->gather && !D->Pc.rowptr) st = ng_amg_smooth_pattern(&A->local, O, D->cagg, D->pm, &D->Pc);
    if (!st && D->gather) bad = gather_values(A, &D->Pc);
    else if (!st) bad = ng_amg_smooth_rows(&A->local, O, D->cagg, D->ptent, omega, D->filter, D->sgn, sd, NULL, &D->Pc);
    ng_amg_dist_trace(ctx, "P: pattern and values (host)", &t);
  }
  ng_free(sd);
  if (bad >= 0)
    st = NG_ERROR(NG_ERR_NUMERIC, "AMG: row %lld (0-based %lld) has a zero or missing diagonal entry",
                  (long long)(A->row_begin + bad + 1), (long long)(A->row_begin + bad));
  NG_CHECK(ng_comm_agree(ctx, st));
  int64_t nc = D->cstarts[ctx->size];
  if (!refresh)
    NG_CHECK(ng_matrix_create_rect_compact(ctx, A->n_global, A->row_begin, A->row_begin + A->n_local, nc,
                                           D->cstarts[ctx->rank], D->cstarts[ctx->rank + 1], D->Pc.rowptr,
                                           D->Pc.col, D->pcol, D->pm, D->Pc.val, &D->P));
  ng_amg_dist_trace(ctx, "P: distributed matrix", &t);
  if (refresh) {
    st = ng_matrix_update_values(D->P, D->Pc.val);
    NG_CHECK(ng_comm_agree(ctx, st));
  }
  return NG_SUCCESS;
}
