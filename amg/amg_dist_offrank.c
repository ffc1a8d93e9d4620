/* amg/amg_dist_offrank.c: an uncoupled level's off-rank block of A_c on
 * the host (amg_dist_local.c builds the level; a GPU level's block is made
 * by amg_dist_offrank_cuda.cu beside this file, chosen at the level's
 * entry):
 *   A_c,off = P_own(I,:)^T A_off P_halo,
 * I the rows with off-rank couplings and P_halo the neighbours' P rows of
 * this rank's halo columns (their columns: the neighbours' coarse rows),
 * exchanged over A's halo plan and multiplied here (interface()); its
 * operands and products are kept, so that an update exchanges values
 * alone and multiplies into the kept patterns (interface_values():
 * lap27:256x256x64 on 2 CPU ranks, 38 -> 14 ms). */
#include "amg_dist.h"
#include <stdlib.h>

/* Rows rows[0..cnt) of X, in that order, into out (host CSR). */
static ng_status csr_rows(const ng_csr *X, const int32_t *rows, int32_t cnt, ng_csr *out)
{
  int64_t total = 0, o = 0;
  for (int32_t k = 0; k < cnt; k++) total += X->rowptr[rows[k] + 1] - X->rowptr[rows[k]];
  NG_CHECK(ng_csr_alloc(out, cnt, X->ncols, total));
  for (int32_t k = 0; k < cnt; k++) {
    int64_t p0 = X->rowptr[rows[k]], len = X->rowptr[rows[k] + 1] - p0;
    memcpy(out->col + o, X->col + p0, (size_t)len * sizeof(int32_t));
    memcpy(out->val + o, X->val + p0, (size_t)len * sizeof(double));
    o += len;
    out->rowptr[k + 1] = o;
  }
  return NG_SUCCESS;
}

/* P's rows rows[0..cnt) of level l (host CSR, local coarse columns; a
 * GPU level's block is made on the device, amg_dist_offrank_cuda.cu). */
static ng_status p_rows(ng_amg *M, int l, const int32_t *rows, int32_t cnt, ng_csr *out)
{
  NG_CHECK(csr_rows(&M->L[l].P, rows, cnt, out));
  return NG_SUCCESS;
}

typedef struct {
  int32_t nI;
  const int32_t *I;     /* own rows with off-rank couplings (the matrix's: ng_matrix_coupled_rows) */
  ng_csr PI;            /* their P rows */
  ng_csr Psend;         /* P rows of the plan's send list, in its order */
  int64_t *hrp, *hgc;   /* P_halo: rows of A's halo columns, global coarse columns */
  double *hval;
  ng_index_map cm;      /* the distinct coarse columns of P_halo (sorted) */
  int32_t *hcc;         /* P_halo's columns as indices into cm.sorted */
  int32_t *iota;
} iface;

static void iface_free(iface *F)
{
  ng_csr_free(&F->PI);
  ng_csr_free(&F->Psend);
  ng_free(F->hrp);
  ng_free(F->hgc);
  ng_free(F->hval);
  ng_index_map_free(&F->cm);
  ng_free(F->hcc);
  ng_free(F->iota);
}

/* The P rows of the plan's send list (idx[0..cnt)): copied from F->PI
 * when every sent row is one of F->I (the rows with off-rank couplings:
 * all of them when A's pattern is symmetric, since a neighbour reads
 * exactly the rows that read it), which saves gathering them twice; from
 * P itself otherwise. */
static ng_status send_rows(ng_amg *M, int l, const iface *F, const int32_t *idx, int32_t cnt, ng_csr *out)
{
  int32_t *pos = NULL;
  NG_CHECK(NG_MALLOC(pos, cnt ? cnt : 1));
  for (int32_t k = 0; k < cnt; k++) {
    int32_t lo = 0, hi = F->nI; /* F->I ascends */
    while (lo < hi) {
      int32_t mid = lo + (hi - lo) / 2;
      if (F->I[mid] < idx[k]) lo = mid + 1;
      else hi = mid;
    }
    if (lo == F->nI || F->I[lo] != idx[k]) {
      ng_free(pos);
      return p_rows(M, l, idx, cnt, out);
    }
    pos[k] = lo;
  }
  ng_status st = csr_rows(&F->PI, pos, cnt, out);
  ng_free(pos);
  return st;
}

/* P_halo through A's halo plan: every rank sends the P rows its neighbours
 * read (the plan's send list, F->Psend from iface_rows; the plan copied
 * with that list numbered 0.., since the rows are gathered in its order),
 * columns made global. Collective; host memory only. */
static ng_status halo_p(ng_context ctx, ng_matrix A, int64_t cbegin, iface *F, ng_status st)
{
  const struct ng_halo_plan *h = A->halo;
  struct ng_halo_plan hp;
  int64_t *gc = NULL;
  if (h) {
    hp = *h;
    if (!st) st = NG_MALLOC(F->iota, h->n_send ? h->n_send : 1);
    for (int32_t k = 0; !st && k < h->n_send; k++) F->iota[k] = k;
    hp.send_idx_host = F->iota;
    if (!st) st = NG_MALLOC(gc, F->Psend.nnz ? F->Psend.nnz : 1);
    for (int64_t p = 0; !st && p < F->Psend.nnz; p++) gc[p] = cbegin + F->Psend.col[p];
  }
  if (!st) st = NG_MALLOC(F->hrp, (size_t)A->n_halo + 1);
  st = ng_halo_rows_fetch(ctx, st, h ? &hp : NULL, F->Psend.rowptr, gc, F->Psend.val, F->hrp, &F->hgc, &F->hval);
  ng_free(gc);
  return st;
}

/* The P rows the off-rank block reads on this rank (a host level): those
 * of the rows I with off-rank couplings and those of the plan's send list.
 * Local; the status goes into interface(). */
static ng_status iface_rows(ng_amg *M, int l, ng_matrix A, iface *F)
{
  memset(F, 0, sizeof(*F));
  NG_CHECK(ng_matrix_coupled_rows(A, &F->I, &F->nI));
  NG_CHECK(p_rows(M, l, F->I, F->nI, &F->PI));
  if (A->halo) NG_CHECK(send_rows(M, l, F, A->halo->send_idx_host, A->halo->n_send, &F->Psend));
  return NG_SUCCESS;
}

/* The off-rank block's operands and products, kept from the setup (the
 * patterns do not change at an update: P's is the setup's, A's the
 * matrix's), so that an update exchanges P's halo rows' values alone and
 * multiplies into the kept patterns (ng_spgemm_numeric: the same sums in
 * the same order as the setup's, so an update with the setup's values
 * repeats it bit for bit). Boundary-sized. */
struct ng_amg_ucache {
  ng_csr X, Y, Ct;   /* A_off(I,:), P_halo over the distinct coarse columns, P(I,:)^T */
  ng_csr W, Z;       /* X Y and Ct W (= A_c's off-rank rows over those columns) */
  int64_t *tpos;     /* Ct's slot of each entry of P(I,:), in row order */
  int64_t *zgc;      /* Z's global columns */
  int32_t *iota;     /* the halo plan's send list numbered 0.. (P's rows are sent in its order) */
  int64_t send_nnz;  /* entries of the P rows sent */
};

void ng_amg_ucache_free(ng_amg_ucache *U)
{
  if (!U) return;
  ng_csr *all[] = {&U->X, &U->Y, &U->Ct, &U->W, &U->Z};
  for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) ng_csr_free(all[k]);
  ng_free(U->tpos);
  ng_free(U->zgc);
  ng_free(U->iota);
  ng_free(U);
}

/* A failed call's outputs freed (NULL after) */
void ng_amg_offrank_out_free(int64_t **orp, int64_t **ogc, double **oval)
{
  ng_free(*orp);
  ng_free(*ogc);
  ng_free(*oval);
  *orp = *ogc = NULL;
  *oval = NULL;
}

/* orp, ogc, oval: copies of U's Z (the caller's to free) */
static ng_status z_out(const ng_amg_ucache *U, int64_t **orp, int64_t **ogc, double **oval)
{
  const ng_csr *Z = &U->Z;
  NG_CHECK(NG_MALLOC(*orp, (size_t)Z->nrows + 1));
  NG_CHECK(NG_MALLOC(*ogc, Z->nnz ? Z->nnz : 1));
  NG_CHECK(NG_MALLOC(*oval, Z->nnz ? Z->nnz : 1));
  memcpy(*orp, Z->rowptr, ((size_t)Z->nrows + 1) * sizeof(int64_t));
  memcpy(*ogc, U->zgc, (size_t)Z->nnz * sizeof(int64_t));
  memcpy(*oval, Z->val, (size_t)Z->nnz * sizeof(double));
  return NG_SUCCESS;
}

/* X's values: A_off's rows I, in that order */
static void x_values(const ng_csr *O, const iface *F, ng_csr *X)
{
  for (int32_t k = 0; k < F->nI; k++) {
    int64_t o = X->rowptr[k];
    for (int64_t p = O->rowptr[F->I[k]]; p < O->rowptr[F->I[k] + 1]; p++, o++) X->val[o] = O->val[p];
  }
}

/* Setup: A_c's off-rank block Z = P(I,:)^T (A_off(I,:) P_halo) (ng_spgemm
 * both, over the distinct coarse columns of P_halo) from F's rows
 * (iface_rows; st: its status; freed by the caller), its operands and
 * products kept in *Up for the updates; then its rows (nc + 1 offsets,
 * global columns ascending, values) copied out. Collective; host memory and
 * MPI only, no device call: on GPUs it runs while the level's products run
 * on a thread of their own. */
static ng_status interface(ng_context ctx, ng_matrix A, int64_t cbegin, int32_t nc, iface *F, ng_status st,
                           ng_amg_ucache **Up, int64_t **orp, int64_t **ogc, double **oval)
{
  const ng_csr *O = &A->offrank;
  ng_amg_ucache *U = NULL;
  *orp = *ogc = NULL;
  *oval = NULL;
  double tt = ng_wtime();
  st = halo_p(ctx, A, cbegin, F, st); /* agreed there */
  NG_CHECK_GOTO(st, st, out);
  ng_amg_dist_trace(ctx, "uncoupled: P's halo rows exchanged", &tt);
  NG_CHECK_GOTO(st, NG_CALLOC(U, 1), out);
  U->send_nnz = F->Psend.nnz;
  U->iota = F->iota; /* taken over */
  F->iota = NULL;
  int64_t nh = A->n_halo ? F->hrp[A->n_halo] : 0;
  NG_CHECK_GOTO(st, ng_index_map_build(&F->cm, F->hgc, nh), out);
  NG_CHECK_GOTO(st, NG_MALLOC(F->hcc, nh ? nh : 1), out);
  for (int64_t p = 0; p < nh; p++) F->hcc[p] = ng_index_map_find(&F->cm, F->hgc[p]);
  U->Y = (ng_csr){A->n_halo, F->cm.n, nh, F->hrp, F->hcc, F->hval}; /* taken over */
  F->hrp = NULL;
  F->hcc = NULL;
  F->hval = NULL;
  ng_amg_dist_trace(ctx, "uncoupled: P_halo's coarse columns", &tt);
  /* X = A_off(I,:), then W = X P_halo */
  int64_t xn = 0;
  for (int32_t k = 0; k < F->nI; k++) xn += O->rowptr[F->I[k] + 1] - O->rowptr[F->I[k]];
  NG_CHECK_GOTO(st, ng_csr_alloc(&U->X, F->nI, A->n_halo, xn), out);
  for (int32_t k = 0; k < F->nI; k++) {
    int64_t o = U->X.rowptr[k];
    for (int64_t p = O->rowptr[F->I[k]]; p < O->rowptr[F->I[k] + 1]; p++, o++) U->X.col[o] = O->col[p];
    U->X.rowptr[k + 1] = o;
  }
  x_values(O, F, &U->X);
  NG_CHECK_GOTO(st, ng_spgemm(&U->X, &U->Y, &U->W, 1), out);
  ng_amg_dist_trace(ctx, "uncoupled: W = A_off P_halo", &tt);
  /* A_c,off = P(I,:)^T W: P(I,:)'s transpose by one counting pass over the
   * coarse rows (a boundary's worth of entries; ng_csr_transpose's
   * per-thread histograms of all nc columns cost more than the product),
   * each entry's slot kept (tpos) for the updates' values */
  ng_csr *T = &U->Ct;
  NG_CHECK_GOTO(st, ng_csr_alloc(T, nc, F->nI, F->PI.nnz), out);
  NG_CHECK_GOTO(st, NG_MALLOC(U->tpos, F->PI.nnz ? F->PI.nnz : 1), out);
  memset(T->rowptr, 0, ((size_t)nc + 1) * sizeof(int64_t));
  for (int64_t p = 0; p < F->PI.nnz; p++) T->rowptr[F->PI.col[p] + 1]++;
  for (int32_t c = 0; c < nc; c++) T->rowptr[c + 1] += T->rowptr[c];
  for (int32_t k = 0; k < F->nI; k++)
    for (int64_t p = F->PI.rowptr[k]; p < F->PI.rowptr[k + 1]; p++) {
      int64_t at = T->rowptr[F->PI.col[p]]++;
      T->col[at] = k;
      T->val[at] = F->PI.val[p];
      U->tpos[p] = at;
    }
  for (int32_t c = nc; c > 0; c--) T->rowptr[c] = T->rowptr[c - 1]; /* back to the starts */
  T->rowptr[0] = 0;
  ng_amg_dist_trace(ctx, "uncoupled: P(I,:)^T", &tt);
  NG_CHECK_GOTO(st, ng_spgemm(T, &U->W, &U->Z, 1), out);
  ng_amg_dist_trace(ctx, "uncoupled: P(I,:)^T W", &tt);
  NG_CHECK_GOTO(st, NG_MALLOC(U->zgc, U->Z.nnz ? U->Z.nnz : 1), out);
  for (int64_t p = 0; p < U->Z.nnz; p++) U->zgc[p] = F->cm.sorted[U->Z.col[p]];
  NG_CHECK_GOTO(st, z_out(U, orp, ogc, oval), out);
out:
  /* the steps after halo_p fail on one rank alone (allocations): agreed
   * here, so that no rank goes on to the next collective by itself */
  st = ng_comm_agree(ctx, st);
  if (st) {
    ng_amg_ucache_free(U);
    U = NULL;
    ng_amg_offrank_out_free(orp, ogc, oval);
  }
  ng_amg_ucache_free(*Up); /* an earlier setup's */
  *Up = U;
  return st;
}

/* Update: the off-rank block's values into the setup's patterns (U): P's
 * halo rows' values exchanged (their lengths are the setup's), A_off's and
 * P(I,:)'s values into X and Ct, both products numeric only; then Z's rows
 * copied out as at the setup. Collective, host only, like interface(). */
static ng_status interface_values(ng_context ctx, ng_matrix A, iface *F, ng_status st, ng_amg_ucache *U,
                                  int64_t **orp, int64_t **ogc, double **oval)
{
  const struct ng_halo_plan *h = A->halo;
  struct ng_halo_plan hp;
  *orp = *ogc = NULL;
  *oval = NULL;
  double tt = ng_wtime();
  if (!st && (F->PI.nnz != U->Ct.nnz || F->nI != U->X.nrows || (h && F->Psend.nnz != U->send_nnz)))
    st = NG_ERROR(NG_ERR_INTERNAL, "AMG update: the off-rank block's P rows changed pattern");
  if (h) {
    hp = *h;
    hp.send_idx_host = U->iota;
  }
  st = ng_comm_agree(ctx, st); /* the exchange below moves nothing anywhere unless every rank is ready */
  if (!st) st = ng_halo_rows_exchange(ctx, h ? &hp : NULL, F->Psend.rowptr, F->Psend.val, sizeof(double), U->Y.rowptr,
                                      U->Y.val);
  NG_CHECK_GOTO(st, st, out);
  ng_amg_dist_trace(ctx, "uncoupled: P's halo rows' values exchanged", &tt);
  x_values(&A->offrank, F, &U->X);
  for (int64_t p = 0; p < F->PI.nnz; p++) U->Ct.val[U->tpos[p]] = F->PI.val[p];
  NG_CHECK_GOTO(st, ng_spgemm_numeric(&U->X, &U->Y, &U->W), out);
  NG_CHECK_GOTO(st, ng_spgemm_numeric(&U->Ct, &U->W, &U->Z), out);
  NG_CHECK_GOTO(st, z_out(U, orp, ogc, oval), out);
  ng_amg_dist_trace(ctx, "uncoupled: P(I,:)^T (A_off P_halo), values", &tt);
out:
  st = ng_comm_agree(ctx, st);
  if (st) ng_amg_offrank_out_free(orp, ogc, oval);
  return st;
}

/* The block on the host: P's rows gathered, then interface() at the setup
 * (the operands and products kept in *U) or interface_values() at an
 * update. Collective (agreed). */
ng_status ng_amg_offrank_host(ng_context ctx, ng_amg *M, int l, ng_matrix A, int64_t cbegin, int refresh, ng_status st,
                              ng_amg_ucache **U, int64_t **orp, int64_t **ogc, double **oval)
{
  iface F;
  memset(&F, 0, sizeof(F));
  double tt = ng_wtime();
  if (!st) st = iface_rows(M, l, A, &F);
  ng_amg_dist_trace(ctx, "uncoupled: the interface's P rows", &tt);
  st = refresh && *U ? interface_values(ctx, A, &F, st, *U, orp, ogc, oval)
                     : interface(ctx, A, cbegin, M->L[l].nagg, &F, st, U, orp, ogc, oval); /* agreed there */
  iface_free(&F);
  return st;
}
