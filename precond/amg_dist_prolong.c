/* precond/amg_dist_prolong.c: the smoothed prolongator across ranks
 * (amg_prolong.c's method). Aggregates straddle rank boundaries, so the
 * tentative P's normalisation 1/sqrt(|aggregate|) needs the aggregate's
 * size summed over ranks: members on other ranks are counted at the owner
 * (one all-to-all), which answers with the size (a second). Row i of the
 * smoothed P = (I - omega D^-1 A) P_tent reads the aggregates and tentative
 * values of its halo columns; its columns are global coarse rows. */
#include "amg_dist.h"
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static int thread_id(void)
{
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

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
  if (!st) st = NG_MALLOC(D->ptent, n);
  if (!st) st = NG_MALLOC(D->ptent_halo, A->n_halo);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  for (int32_t i = 0; i < n; i++) {
    int64_t c = D->agg[i];
    if (c < 0) continue;
    if (c >= D->cstarts[rank] && c < D->cstarts[rank + 1]) cnt[c - D->cstarts[rank]]++;
    else scnt[ng_partition_owner(D->cstarts, size, c)]++;
  }
  NG_CHECK_GOTO(st, ng_comm_alltoall_counts(ctx, scnt, rcnt), out);
  for (int r = 0; r < size; r++) {
    sdsp[r + 1] = sdsp[r] + scnt[r];
    nrecv += rcnt[r];
  }
  nsend = sdsp[size];
  st = NG_MALLOC(sbuf, nsend);
  if (!st) st = NG_MALLOC(rbuf, nrecv);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  /* members of other ranks' aggregates, grouped by owner, in row order */
  for (int r = 0; r < size; r++) scnt[r] = 0;
  for (int32_t i = 0; i < n; i++) {
    int64_t c = D->agg[i];
    if (c < 0 || (c >= D->cstarts[rank] && c < D->cstarts[rank + 1])) continue;
    int r = ng_partition_owner(D->cstarts, size, c);
    sbuf[sdsp[r] + scnt[r]++] = c;
  }
  NG_CHECK_GOTO(st, ng_comm_alltoallv(ctx, sbuf, scnt, rbuf, rcnt, sizeof(int64_t)), out);
  for (int64_t k = 0; k < nrecv; k++) cnt[rbuf[k] - D->cstarts[rank]]++;
  for (int64_t k = 0; k < nrecv; k++) rbuf[k] = cnt[rbuf[k] - D->cstarts[rank]]; /* the answers */
  NG_CHECK_GOTO(st, ng_comm_alltoallv(ctx, rbuf, rcnt, sbuf, scnt, sizeof(int64_t)), out);
  for (int r = 0; r < size; r++) scnt[r] = 0;
  for (int32_t i = 0; i < n; i++) {
    int64_t c = D->agg[i], s;
    if (c < 0) { D->ptent[i] = 0.0; continue; }
    if (c >= D->cstarts[rank] && c < D->cstarts[rank + 1]) s = cnt[c - D->cstarts[rank]];
    else {
      int r = ng_partition_owner(D->cstarts, size, c);
      s = sbuf[sdsp[r] + scnt[r]++];
    }
    D->ptent[i] = 1.0 / sqrt((double)s);
  }
  NG_CHECK_GOTO(st, ng_halo_exchange_host(A->ctx, A->halo, D->ptent, D->ptent_halo, sizeof(double)), out);
out:
  ng_free(scnt);
  ng_free(rcnt);
  ng_free(sdsp);
  ng_free(cnt);
  ng_free(sbuf);
  ng_free(rbuf);
  return st;
}

static void sort_i64(int64_t *a, int64_t n)
{
  for (int64_t i = 1; i < n; i++) {
    int64_t x = a[i], j = i;
    for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
    a[j] = x;
  }
}

/* Row i's distinct coarse columns, sorted, into out (count returned). */
static int64_t row_pattern(ng_matrix A, const ng_amg_dlevel *D, int32_t i, int64_t *out)
{
  const ng_csr *L = &A->local, *O = &A->offrank;
  int64_t c = 0;
  if (D->gather) { /* P = I: the row's own aggregate only */
    out[0] = D->agg[i];
    return 1;
  }
  for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1]; k++)
    if (D->agg[L->col[k]] >= 0) out[c++] = D->agg[L->col[k]];
  for (int64_t k = O->rowptr[i]; k < O->rowptr[i + 1]; k++)
    if (D->agg_halo[O->col[k]] >= 0) out[c++] = D->agg_halo[O->col[k]];
  if (D->agg[i] >= 0) out[c++] = D->agg[i];
  /* few distinct aggregates per row: drop repeats by a linear scan, then sort */
  int64_t u = 0;
  for (int64_t k = 0; k < c; k++) {
    int64_t q = 0;
    while (q < u && out[q] != out[k]) q++;
    if (q == u) out[u++] = out[k];
  }
  sort_i64(out, u);
  return u;
}

static int64_t find_i64(const int64_t *v, int64_t lo, int64_t hi, int64_t g)
{
  while (hi - lo > 1) {
    int64_t mid = (lo + hi) / 2;
    if (v[mid] <= g) lo = mid; else hi = mid;
  }
  return lo;
}

/* Values of row i: P_tent's entry plus -omega/a_ii a_ij ptent_j, a_ij of
 * A_F when sd (sqrt |a_jj| of own rows then halo columns: -amg_filter, as
 * ng_amg_smooth_values: weak couplings moved onto the diagonal). */
static int row_values(ng_matrix A, ng_amg_dlevel *D, int32_t i, double omega, const double *sd)
{
  const ng_csr *L = &A->local, *O = &A->offrank;
  int64_t lo = D->p_rowptr[i], hi = D->p_rowptr[i + 1];
  double d = 0;
  for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1]; k++)
    if (L->col[k] == i) d += L->val[k];
  for (int64_t p = lo; p < hi; p++) D->p_val[p] = 0.0;
  if (d == 0.0) return 0;
  if (D->gather) {
    D->p_val[lo] = 1.0;
    return 1;
  }
  double s = -omega / d, df = d, f = D->filter;
  int32_t n = A->n_local;
  if (sd) {
    for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1]; k++)
      if (L->col[k] != i && !NG_AMG_STRONG(L->val[k], f, sd[i], sd[L->col[k]], D->sgn)) df += L->val[k];
    for (int64_t k = O->rowptr[i]; k < O->rowptr[i + 1]; k++)
      if (!NG_AMG_STRONG(O->val[k], f, sd[i], sd[n + O->col[k]], D->sgn)) df += O->val[k];
  }
  for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1]; k++) {
    int32_t j = L->col[k];
    double v = L->val[k];
    if (sd && j == i) v = df;
    else if (sd && !NG_AMG_STRONG(v, f, sd[i], sd[j], D->sgn)) continue;
    if (D->agg[j] >= 0) D->p_val[find_i64(D->p_gcol, lo, hi, D->agg[j])] += s * v * D->ptent[j];
  }
  for (int64_t k = O->rowptr[i]; k < O->rowptr[i + 1]; k++) {
    int32_t h = O->col[k];
    if (sd && !NG_AMG_STRONG(O->val[k], f, sd[i], sd[n + h], D->sgn)) continue;
    if (D->agg_halo[h] >= 0) D->p_val[find_i64(D->p_gcol, lo, hi, D->agg_halo[h])] += s * O->val[k] * D->ptent_halo[h];
  }
  if (D->agg[i] >= 0) D->p_val[find_i64(D->p_gcol, lo, hi, D->agg[i])] += D->ptent[i];
  return 1;
}

ng_status ng_amg_dist_prolong(ng_matrix A, ng_amg_dlevel *D, double omega, int refresh)
{
  ng_context ctx = A->ctx;
  int32_t n = A->n_local, bad = -1;
  int64_t *buf = NULL, maxrow = 1;
  ng_status st = NG_SUCCESS;
  if (!refresh) {
    for (int32_t i = 0; i < n; i++) {
      int64_t len = A->local.rowptr[i + 1] - A->local.rowptr[i] + A->offrank.rowptr[i + 1] - A->offrank.rowptr[i] + 1;
      if (len > maxrow) maxrow = len;
    }
    int nt = 1;
#ifdef _OPENMP
    nt = omp_get_max_threads();
#endif
    st = NG_MALLOC(buf, maxrow * (int64_t)nt);
    if (!st) st = NG_CALLOC(D->p_rowptr, (size_t)n + 1);
    if (!st) { /* a buffer per thread: a row's list holds duplicates before they merge */
#pragma omp parallel for schedule(static) num_threads(nt) if (n > 20000)
      for (int32_t i = 0; i < n; i++) D->p_rowptr[i + 1] = row_pattern(A, D, i, buf + maxrow * thread_id());
      for (int32_t i = 0; i < n; i++) D->p_rowptr[i + 1] += D->p_rowptr[i];
      st = NG_MALLOC(D->p_gcol, D->p_rowptr[n]);
    }
    if (!st) st = NG_MALLOC(D->p_val, D->p_rowptr[n]);
    if (!st) {
#pragma omp parallel for schedule(static) num_threads(nt) if (n > 20000)
      for (int32_t i = 0; i < n; i++) {
        int64_t *b = buf + maxrow * thread_id();
        memcpy(D->p_gcol + D->p_rowptr[i], b, (size_t)row_pattern(A, D, i, b) * sizeof(int64_t));
      }
    }
    ng_free(buf);
    NG_CHECK(ng_comm_agree(ctx, st));
  }
  double *sd = NULL; /* -amg_filter: sqrt |a_jj| of own rows and halo columns */
  if (D->filter > 0 && !D->gather) {
    st = NG_MALLOC(sd, (size_t)n + A->n_halo + 1);
    if (!st) st = ng_csr_diagonal(&A->local, sd, 1);
    if (!st)
      for (int32_t i = 0; i < n; i++) sd[i] = sqrt(fabs(sd[i]));
    NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), sdfail); /* the exchange is collective */
    st = ng_comm_agree(ctx, ng_halo_exchange_host(ctx, A->halo, sd, sd + n, sizeof(double)));
  sdfail:
    if (st != NG_SUCCESS) {
      ng_free(sd);
      return ng_error_trace(st, __FILE__, __LINE__);
    }
  }
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++)
    if (!row_values(A, D, i, omega, sd)) {
#pragma omp critical(ng_amg_dist_bad_row)
      if (bad < 0 || i < bad) bad = i;
    }
  ng_free(sd);
  if (bad >= 0)
    st = NG_ERROR(NG_ERR_NUMERIC, "AMG: row %lld has a zero or missing diagonal entry", (long long)(A->row_begin + bad));
  NG_CHECK(ng_comm_agree(ctx, st));
  int64_t nc = D->cstarts[ctx->size];
  if (!refresh)
    NG_CHECK(ng_matrix_create_rect(ctx, A->n_global, A->row_begin, A->row_begin + n, nc, D->cstarts[ctx->rank],
                                   D->cstarts[ctx->rank + 1], D->p_rowptr, D->p_gcol, D->p_val, &D->P));
  else {
    st = ng_matrix_update_values(D->P, D->p_val);
    NG_CHECK(ng_comm_agree(ctx, st));
  }
  return NG_SUCCESS;
}
