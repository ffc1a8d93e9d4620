/* amg/amg_dist_aggregate.c: MIS(2) aggregation (amg_aggregate.c) over
 * the strength graph of a matrix spread over ranks. The graph's rows are
 * this rank's; their neighbours are own rows or halo columns, listed in
 * global column order. Vertices are keyed by their GLOBAL index, and each
 * "max over the neighbours" round exchanges the keys of the halo, so the
 * independent set, the roots, the order in which rows pick an aggregate and
 * hence the aggregates are exactly those one rank finds on the whole matrix.
 * An aggregate belongs to the rank of its root; coarse rows are numbered by
 * rank, then root index (the one-rank numbering when no row is left over). */
#include "amg_dist.h"
#include <math.h>

enum { OUT = 0, UNDECIDED = 1, IN = 2 };
static int key_state(uint64_t k) { return (int)(k >> 62); }
static uint32_t key_index(uint64_t k) { return (uint32_t)k; }

/* Global index of extended vertex e (own rows first, then halo columns). */
static int64_t gid(ng_matrix A, int32_t e) { return e < A->n_local ? A->row_begin + e : A->halo_gcol[e - A->n_local]; }

/* Strong couplings of the own rows in extended numbering, each row sorted
 * by global column (the one-rank graph's order for sorted input rows).
 * The trick: halo columns are numbered in global order and the first nlow
 * of them lie below the own rows, so a row written as [its halo columns
 * below, own columns, halo columns above] is already in global order when
 * its blocks' rows are sorted; pos() is that order, for the insertion sort
 * of a row that is not. */
static int64_t pos(int32_t e, int32_t n, int32_t nlow) { return e < n ? (int64_t)nlow + e : e - n < nlow ? e - n : e; }

/* Row i's strong couplings into out (their number returned), in global
 * order: the blocks' rows are checked for ascending columns on the way,
 * and only a row that is not is sorted. */
static int64_t strong_fill(const ng_csr *L, const ng_csr *O, int32_t i, int32_t n, int32_t nlow, double theta,
                        const double *d, int sgn, int32_t *out)
{
  int64_t c = 0, k = O->rowptr[i], ke = O->rowptr[i + 1];
  int32_t prev_o = -1, prev_l = -1, sorted = 1;
  for (; k < ke && O->col[k] < nlow; k++) {
    int32_t h = O->col[k];
    sorted &= h > prev_o;
    prev_o = h;
    if (NG_AMG_STRONG(O->val[k], theta, d[i], d[n + h], sgn)) out[c++] = n + h;
  }
  for (int64_t q = L->rowptr[i]; q < L->rowptr[i + 1]; q++) {
    int32_t j = L->col[q];
    sorted &= j > prev_l;
    prev_l = j;
    if (j != i && NG_AMG_STRONG(L->val[q], theta, d[i], d[j], sgn)) out[c++] = j;
  }
  for (; k < ke; k++) {
    int32_t h = O->col[k];
    sorted &= h > prev_o;
    prev_o = h;
    if (NG_AMG_STRONG(O->val[k], theta, d[i], d[n + h], sgn)) out[c++] = n + h;
  }
  if (!sorted)
    for (int64_t a = 1; a < c; a++) {
      int32_t x = out[a];
      int64_t b = a, px = pos(x, n, nlow);
      for (; b > 0 && pos(out[b - 1], n, nlow) > px; b--) out[b] = out[b - 1];
      out[b] = x;
    }
  return c;
}

ng_status ng_amg_dist_sqrt_diagonal(ng_matrix A, double **sd)
{
  ng_context ctx = A->ctx;
  int32_t n = A->n_local;
  ng_status st = NG_MALLOC(*sd, (size_t)n + A->n_halo + 1);
  if (!st) st = ng_amg_sqrt_diagonal(&A->local, *sd);
  st = ng_comm_agree(ctx, st); /* all or none exchange */
  if (!st) st = ng_halo_exchange_host(ctx, A->halo, *sd, *sd + n, sizeof(double)); /* allocates nothing: MPI's own errors only */
  if (st != NG_SUCCESS) {
    ng_free(*sd);
    *sd = NULL;
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  return NG_SUCCESS;
}

/* The strength graph S; its sqrt |a_jj| handed to *keep when keep (the
 * filter of the same setup reads the same values), freed otherwise. */
/* One pass tests every entry: row i's couplings go to w at the row's own
 * offset in A (L's plus O's row start, room for all its entries), and are
 * then packed into S. */
static ng_status dist_strength(ng_matrix A, double theta, int sgn, ng_graph *S, double **keep)
{
  int32_t n = A->n_local, nh = A->n_halo, nlow = 0, *w = NULL;
  double *d = NULL;
  ng_status st;
  memset(S, 0, sizeof(*S));
  NG_CHECK(ng_amg_dist_sqrt_diagonal(A, &d));
  const ng_csr *L = &A->local, *O = &A->offrank;
  NG_CHECK_GOTO(st, NG_CALLOC(S->rowptr, (size_t)n + 1), fail); /* no collective follows in here */
  NG_CHECK_GOTO(st, NG_MALLOC(w, L->rowptr[n] + O->rowptr[n] + 1), fail);
  S->n = n;
  while (nlow < nh && A->halo_gcol[nlow] < A->row_begin) nlow++;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++)
    S->rowptr[i + 1] = strong_fill(L, O, i, n, nlow, theta, d, sgn, w + L->rowptr[i] + O->rowptr[i]);
  for (int32_t i = 0; i < n; i++) S->rowptr[i + 1] += S->rowptr[i];
  NG_CHECK_GOTO(st, NG_MALLOC(S->col, S->rowptr[n]), fail);
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    const int32_t *src = w + L->rowptr[i] + O->rowptr[i];
    for (int64_t p = S->rowptr[i]; p < S->rowptr[i + 1]; p++) S->col[p] = *src++;
  }
  ng_free(w);
  if (keep) *keep = d;
  else ng_free(d);
  return NG_SUCCESS;
fail:
  ng_free(w);
  ng_free(d);
  ng_graph_free(S);
  return st;
}

/* ng_amg_max_neighbours over the own rows; then the halo's when exchange
 * (every rank exchanges the same number of times per round, whether its
 * rounds are full or sparse). */
static ng_status max_round(ng_matrix A, const ng_graph *S, const uint64_t *in, uint64_t *out, int exchange)
{
  ng_amg_max_neighbours(S, in, out);
  if (exchange) NG_CHECK(ng_halo_exchange_host(A->ctx, A->halo, out, out + S->n, sizeof(uint64_t)));
  return NG_SUCCESS;
}

/* One round restricted to the undecided own rows U (late rounds, when few
 * are left): M1 where an undecided row will read it, and on the boundary
 * rows that other ranks read (need[] == stamp), M2 on U only. */
static ng_status sparse_round(ng_matrix A, const ng_graph *S, const int32_t *U, int32_t nu, int32_t *need,
                              int32_t stamp, const uint64_t *T, uint64_t *M1, uint64_t *M2)
{
  int32_t n = S->n;
  const struct ng_halo_plan *h = A->halo;
#pragma omp parallel for schedule(static) if (nu > 20000)
  for (int32_t u = 0; u < nu; u++) {
    int32_t i = U[u];
    need[i] = stamp; /* benign race: every writer stores the same value (as amg_aggregate.c) */
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
      if (S->col[k] < n) {
#pragma omp atomic write
        need[S->col[k]] = stamp;
      }
  }
  for (int32_t k = 0; h && k < h->n_send; k++) need[h->send_idx_host[k]] = stamp;
  ng_amg_max_marked(S, need, stamp, T, M1);
  NG_CHECK(ng_halo_exchange_host(A->ctx, A->halo, M1, M1 + n, sizeof(uint64_t)));
  ng_amg_max_listed(S, U, nu, M1, M2);
  return NG_SUCCESS;
}

/* The distance-2 maximal independent set: T (own rows + halo) ends with
 * every vertex IN or OUT. Once half the rows are decided, rounds visit only
 * their neighbourhoods (as amg_aggregate.c does); the result is the same. */
static ng_status dist_mis2(ng_matrix A, const ng_graph *S, uint64_t *T, uint64_t *M1, uint64_t *M2)
{
  int32_t n = S->n, *U = NULL, *need = NULL, nu = -1; /* nu < 0: full rounds */
  ng_status st = NG_MALLOC(U, n);
  if (!st) st = NG_CALLOC(need, n);
  NG_CHECK_GOTO(st, ng_comm_agree(A->ctx, st), out);
  for (int32_t i = 0; i < n; i++)
    T[i] = ng_amg_mis_key(S->rowptr[i + 1] > S->rowptr[i] ? UNDECIDED : OUT, (uint32_t)(A->row_begin + i));
  NG_CHECK_GOTO(st, ng_halo_exchange_host(A->ctx, A->halo, T, T + n, sizeof(uint64_t)), out);
  for (int64_t round = 0;; round++) {
    if (nu >= 0) NG_CHECK_GOTO(st, sparse_round(A, S, U, nu, need, (int32_t)round + 1, T, M1, M2), out);
    else {
      NG_CHECK_GOTO(st, max_round(A, S, T, M1, 1), out);
      NG_CHECK_GOTO(st, max_round(A, S, M1, M2, 0), out);
    }
    double undecided = 0;
    int32_t left = 0;
    for (int32_t q = 0, cnt = nu >= 0 ? nu : n; q < cnt; q++) {
      int32_t i = nu >= 0 ? U[q] : q;
      if (key_state(T[i]) != UNDECIDED) continue;
      uint32_t me = (uint32_t)(A->row_begin + i);
      if (key_index(M2[i]) == me) T[i] = ng_amg_mis_key(IN, me);
      else if (key_state(M2[i]) == IN) T[i] = ng_amg_mis_key(OUT, me);
      else U[left++] = i; /* in index order */
    }
    undecided = left;
    /* sparse from when half the rows are decided: a sparse round reads only
     * the undecided rows' neighbourhoods, already cheaper than two full
     * passes then (callgrind, lap27:40 on 4 ranks: the busiest rank's
     * aggregation 69 -> 57M Ir against n / 16, which left one rank a full
     * round or two behind the others) */
    if (nu >= 0 || left < n / 2) nu = left;
    NG_CHECK_GOTO(st, ng_halo_exchange_host(A->ctx, A->halo, T, T + n, sizeof(uint64_t)), out);
    NG_CHECK_GOTO(st, ng_comm_allreduce_sum(A->ctx, &undecided, 1), out);
    if (undecided == 0) break;
    if (round > A->n_global) { /* the global maximum joins every round */
      st = NG_ERROR(NG_ERR_INTERNAL, "distributed MIS(2) did not finish after %lld rounds", (long long)round);
      goto out;
    }
  }
out:
  ng_free(U);
  ng_free(need);
  return st;
}

/* First neighbour of i (global order) with v[e] >= 0, or -1. */
static int32_t first_with(const ng_graph *S, int32_t i, const int64_t *v)
{
  for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
    if (v[S->col[k]] >= 0) return S->col[k];
  return -1;
}

/* From the independent set to coarse rows: roots, then their neighbours,
 * then the vertices two steps away join (amg_aggregate.c's order). */
static ng_status dist_number(ng_matrix A, const ng_graph *S, const uint64_t *T, ng_amg_dlevel *D, int64_t *n_coarse,
                             int64_t *root, int64_t *cid, int64_t *step)
{
  ng_context ctx = A->ctx;
  int32_t n = S->n;
  /* root[e] = global index of e when e is IN (own rows and halo), else -1 */
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t e = 0; e < n + A->n_halo; e++) root[e] = key_state(T[e]) == IN ? gid(A, e) : -1;
  /* step[i]: the root i belongs to after one step (itself or an IN neighbour) */
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int32_t e = root[i] >= 0 ? i : first_with(S, i, root);
    step[i] = e >= 0 ? root[e] : -1;
  }
  NG_CHECK(ng_halo_exchange_host(A->ctx, A->halo, step, step + n, sizeof(int64_t)));
  /* left over (only in a nonsymmetric graph): rows with neighbours that
   * no aggregate reached become roots of their own after the IN roots */
  int32_t nroots = 0, nleft = 0;
  for (int32_t i = 0; i < n; i++) nroots += root[i] >= 0;
  for (int32_t i = 0; i < n; i++) cid[i] = -1;
  for (int32_t i = 0, k = 0; i < n; i++)
    if (root[i] >= 0) cid[i] = k++;
  for (int32_t i = 0; i < n; i++)
    if (step[i] < 0 && S->rowptr[i + 1] > S->rowptr[i] && first_with(S, i, step) < 0) cid[i] = nroots + nleft++;
  NG_CHECK(ng_comm_starts(ctx, nroots + nleft, D->cstarts));
  *n_coarse = D->cstarts[ctx->size];
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++)
    if (cid[i] >= 0) cid[i] += D->cstarts[ctx->rank];
  NG_CHECK(ng_halo_exchange_host(A->ctx, A->halo, cid, cid + n, sizeof(int64_t)));
  /* coarse row after one step (the root's), then after two */
  int64_t *stepc = root; /* root[] is no longer needed: reuse it */
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    stepc[i] = -1;
    if (step[i] < 0) continue;
    int32_t e = key_state(T[i]) == IN ? i : -1; /* the root step[] chose */
    for (int64_t k = S->rowptr[i]; e < 0 && k < S->rowptr[i + 1]; k++)
      if (key_state(T[S->col[k]]) == IN) e = S->col[k];
    stepc[i] = cid[e];
  }
  NG_CHECK(ng_halo_exchange_host(A->ctx, A->halo, stepc, stepc + n, sizeof(int64_t)));
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    if (stepc[i] >= 0) D->agg[i] = stepc[i];
    else if (cid[i] >= 0) D->agg[i] = cid[i]; /* left over: its own */
    else {
      int32_t e = first_with(S, i, stepc);
      D->agg[i] = e >= 0 ? stepc[e] : -1;
    }
  }
  NG_CHECK(ng_halo_exchange_host(A->ctx, A->halo, D->agg, D->agg + n, sizeof(int64_t)));
  return NG_SUCCESS;
}

ng_status ng_amg_dist_aggregate(ng_matrix A, double theta, ng_amg_dlevel *D, int64_t *n_coarse)
{
  ng_context ctx = A->ctx;
  int32_t n = A->n_local, nh = A->n_halo;
  ng_graph S = {0};
  uint64_t *T = NULL, *M1 = NULL, *M2 = NULL;
  int64_t *root = NULL, *cid = NULL, *step = NULL;
  ng_status st = NG_SUCCESS;
  if (A->n_global > (int64_t)UINT32_MAX)
    st = NG_ERROR(NG_ERR_UNSUPPORTED, "distributed AMG aggregation keys rows by 32-bit global index (%lld rows)",
                  (long long)A->n_global);
  if (!st) st = dist_strength(A, theta, D->sgn, &S, D->filter > 0 && !D->sd ? &D->sd : NULL);
  if (!st) st = NG_MALLOC(T, (size_t)n + nh);
  if (!st) st = NG_MALLOC(M1, (size_t)n + nh);
  if (!st) st = NG_MALLOC(M2, (size_t)n + nh);
  if (!st) st = NG_MALLOC(root, (size_t)n + nh);
  if (!st) st = NG_MALLOC(cid, (size_t)n + nh);
  if (!st) st = NG_MALLOC(step, (size_t)n + nh);
  if (!st) st = NG_MALLOC(D->agg, (size_t)n + nh);
  if (!st) st = NG_MALLOC(D->cstarts, ctx->size + 1);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  NG_CHECK_GOTO(st, dist_mis2(A, &S, T, M1, M2), out);
  NG_CHECK_GOTO(st, dist_number(A, &S, T, D, n_coarse, root, cid, step), out);
out:
  ng_graph_free(&S);
  ng_free(T);
  ng_free(M1);
  ng_free(M2);
  ng_free(root);
  ng_free(cid);
  ng_free(step);
  return st;
}
