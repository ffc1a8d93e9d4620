/* amg/amg_dist_local.c: an uncoupled level of the distributed hierarchy
 * (-amg_dist_aggregation uncoupled; auto: on a GPU context while every
 * rank holds at least NG_AMG_UNCOUPLED_MIN_ROWS rows of the level). Each
 * rank aggregates its own block, smooths P and forms R A P there with the
 * one-rank code, the GPU's (amg_setup_cuda.cu) or the host's (amg_setup.c),
 * chosen once at the entry: the aggregates stop at the rank's boundary, so
 * P and R are block diagonal, the V-cycle's transfers exchange nothing and
 * the setup's big products read no other rank's rows (the "uncoupled
 * aggregation" of ML / MueLu, with P smoothed inside the rank as well).
 *
 * P does not read the off-rank couplings a_ij; they are added to the row's
 * diagonal term (L->lump: the dropped couplings of a filter, the same
 * rule), so that P keeps the constant across the boundary. The Galerkin
 * operator is still R A P with the whole A: its local block is the one-rank
 * product R_own A_own P_own, its off-rank block P_own(I,:)^T A_off P_halo
 * (I the rows with off-rank couplings, P_halo the neighbours' P rows of
 * this rank's halo columns) a boundary's worth of work: on the host
 * amg_dist_offrank.c, on GPUs amg_dist_offrank_cuda.cu (P's halo rows move
 * device to device, nothing level-sized reaches the host; as a host step
 * it was 42 of the 95 ms of lap27:256's setup on 4 H200s) while a thread
 * of its own drives the local product. Sparsification, when on, applies to
 * the local block (the one-rank product's). */
#include "amg_dist.h"
#include <stdlib.h>

/* ---- the level ---------------------------------------------------------------- */

/* Each own row's off-rank couplings summed in row order (the rows that have
 * any: rows[], vals[], *cnt), and the host's whole array L->lump. */
static ng_status lump_rows(ng_matrix A, ng_amg_level *L, int host, const int32_t **rows, double **vals, int32_t *cnt)
{
  const ng_csr *O = &A->offrank;
  int32_t n = A->n_local;
  *vals = NULL;
  NG_CHECK(ng_matrix_coupled_rows(A, rows, cnt));
  NG_CHECK(NG_MALLOC(*vals, *cnt ? *cnt : 1));
  if (host && !L->lump) NG_CHECK(NG_MALLOC(L->lump, n ? n : 1));
  if (host) memset(L->lump, 0, (size_t)n * sizeof(double));
  for (int32_t k = 0; k < *cnt; k++) {
    int32_t i = (*rows)[k];
    double s = 0.0;
    for (int64_t p = O->rowptr[i]; p < O->rowptr[i + 1]; p++) s += O->val[p];
    (*vals)[k] = s;
    if (host) L->lump[i] = s;
  }
  return NG_SUCCESS;
}

static ng_status set_lump(ng_amg *M, int l, ng_matrix A, int gpu)
{
  const int32_t *rows = NULL;
  int32_t cnt = 0;
  double *vals = NULL;
  ng_status st = lump_rows(A, &M->L[l], !gpu, &rows, &vals, &cnt);
#ifdef NG_HAVE_CUDA
  if (!st && gpu) st = ng_amg_gpu_lump(M, l, rows, vals, cnt);
#endif
  ng_free(vals);
  return st;
}

/* Level l's aggregates on this rank's block (the one-rank code). */
static ng_status aggregate(ng_amg *M, ng_matrix A, int l, int gpu)
{
  ng_amg_level *L = &M->L[l];
#ifdef NG_HAVE_CUDA
  if (gpu) {
    NG_CHECK(ng_amg_gpu_aggregate(M, A, l));
    return NG_SUCCESS;
  }
#endif
  ng_graph S = {0};
  NG_CHECK(NG_MALLOC(L->agg, A->n_local ? A->n_local : 1));
  NG_CHECK(ng_amg_strength(&A->local, ng_amg_level_theta(M, l), M->strength_signed, &S));
  ng_status st = ng_amg_aggregate(&S, L->agg, &L->nagg);
  ng_graph_free(&S);
  return st;
}

/* P, R (their tables) and the local product L[l + 1].A on this rank's
 * block; on GPUs P and R only: the products run in offrank_and_products(). */
static ng_status transfer(ng_context ctx, ng_amg *M, ng_matrix A, int l, int gpu, int refresh)
{
  ng_amg_level *L = &M->L[l];
#ifdef NG_HAVE_CUDA
  if (gpu) {
    NG_CHECK(ng_amg_gpu_transfer_part(M, A, l, refresh, 1));
    L->gpu = 1;
    return NG_SUCCESS;
  }
#endif
  if (!refresh) {
    NG_CHECK(NG_MALLOC(L->ptent, A->n_local ? A->n_local : 1));
    NG_CHECK(ng_amg_tentative(A->n_local, L->agg, L->nagg, L->ptent));
  }
  NG_CHECK(ng_amg_host_transfer(M, &A->local, l, refresh));
  NG_CHECK(ng_amg_transfer_tables(ctx, M, l, refresh));
  return NG_SUCCESS;
}

/* The off-rank block of A_c and, on GPUs, the local product R A P on the
 * device. On GPUs the block is made on the device too
 * (ng_amg_gpu_offrank: P's halo rows device to device, both products
 * there) while a thread of its own drives the local product on the same
 * stream. On the host: amg_dist_offrank.c. st: the steps so far.
 * Collective. */
static ng_status offrank_and_products(ng_context ctx, ng_amg *M, int l, ng_matrix A, int gpu, int refresh,
                                      ng_status st, int64_t **orp, int64_t **ogc, double **oval)
{
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  *orp = *ogc = NULL;
  *oval = NULL;
#ifdef NG_HAVE_CUDA
  if (gpu) {
    void *job = NULL;
    if (!st) st = ng_amg_gpu_products_start(M, A, l, refresh, &job);
    ng_status so = ng_amg_gpu_offrank(M, l, A, D->cstarts[ctx->rank], M->L[l].nagg, st, &D->doff, orp, ogc,
                                      oval); /* agreed there */
    ng_status sw = ng_amg_gpu_products_wait(job);
    if (!st) st = sw;
    if (!st) st = so;
    st = ng_comm_agree(ctx, st);
    if (st) ng_amg_offrank_out_free(orp, ogc, oval);
    return st;
  }
#else
  (void)gpu;
#endif
  st = ng_amg_offrank_host(ctx, M, l, A, D->cstarts[ctx->rank], refresh, st, &D->ucache, orp, ogc, oval);
  return st;
}

int ng_amg_uncoupled_wanted(ng_amg *M, int l)
{
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  ng_context ctx = D->A->ctx;
  if (M->dist_aggregation == NG_AMG_DIST_COUPLED || M->classical || (l > 0 && !D[-1].uncoupled)) return 0;
  /* the W- and K-cycles' hybrid lumping is in the coupled sparsification only */
  if (M->sparsify > 0 && ng_amg_hybrid(M)) return 0;
  int fewest = D->A->n_local; /* the same verdict on every rank: the fewest rows of any */
  if (ng_comm_agree_min(ctx, NG_SUCCESS, &fewest, 1) != NG_SUCCESS) {
    ng_error_clear();
    return 0;
  }
  if (M->dist_aggregation == NG_AMG_DIST_UNCOUPLED) return fewest > 0;
  return l == 0 && ctx->on_gpu && M->gpu_setup && fewest >= NG_AMG_UNCOUPLED_MIN_ROWS;
}

/* The host CSR of the local product, for the next level's matrix (which
 * takes it over): the GPU's download, or a copy of the host's L[l + 1].A
 * (which the host's update writes into). */
static ng_status local_product(ng_amg *M, int l, int gpu, ng_csr *out)
{
  ng_amg_level *C = &M->L[l + 1];
  NG_CHECK(ng_amg_level_host(M, l + 1));
  if (gpu) { /* taken: an update downloads it again (host_stale 2, its sizes kept) */
    *out = C->A;
    memset(&C->A, 0, sizeof(C->A));
    C->A.nrows = C->A.ncols = out->nrows;
    C->A.nnz = out->nnz;
    C->host_stale = 2;
    C->host_taken = 1;
    return NG_SUCCESS;
  }
  NG_CHECK(ng_csr_alloc(out, C->A.nrows, C->A.ncols, C->A.nnz));
  memcpy(out->rowptr, C->A.rowptr, ((size_t)C->A.nrows + 1) * sizeof(int64_t));
  memcpy(out->col, C->A.col, (size_t)C->A.nnz * sizeof(int32_t));
  memcpy(out->val, C->A.val, (size_t)C->A.nnz * sizeof(double));
  return NG_SUCCESS;
}

#ifdef NG_HAVE_CUDA
/* Whether level l + 1's local block stays on the device alone: the level
 * is gathered onto rank 0 next (amg_dist_telescope.c, the default on
 * GPUs), whose gather and update read the device table, and every rank
 * has that table (done). The host keeps the row offsets (device_block); a
 * host reader would get the rest through ng_matrix_host_current. On 2
 * H200s lap27:256's level 1 is 4.2M entries a rank that no one read on
 * the host. Collective: the same verdict on every rank, st agreed. */
static ng_status next_on_device(ng_context ctx, ng_amg *M, int l, ng_status st, int done, int64_t off_nnz, int *dev)
{
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  double t[2] = {st ? 0.0 : (double)(M->L[l + 1].A.nnz + off_nnz), done ? 0.0 : 1.0};
  *dev = 0;
  NG_CHECK(ng_comm_agree_sum(ctx, st, t, 2));
  *dev = t[1] == 0.0 && ng_amg_telescope_fits(M, ctx, l + 1, D->cstarts[ctx->size], (int64_t)t[0]);
  return NG_SUCCESS;
}

/* The local product's row offsets alone, for a block that stays on the
 * device (the level's host copy is not made; an update leaves it so). */
static ng_status device_block(ng_amg *M, int l, ng_csr *out)
{
  ng_amg_level *C = &M->L[l + 1];
  memset(out, 0, sizeof(*out));
  out->nrows = out->ncols = C->A.nrows;
  out->nnz = C->A.nnz;
  NG_CHECK(NG_MALLOC(out->rowptr, (size_t)out->nrows + 1));
  NG_CHECK(ng_amg_gpu_coarse_rowptr(M, l + 1, out->rowptr));
  C->host_taken = 1;
  return NG_SUCCESS;
}
#endif

ng_status ng_amg_uncoupled_build(ng_precond Pc, ng_amg *M, int l, int *stop)
{
  ng_context ctx = Pc->ctx;
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  ng_amg_level *L = &M->L[l];
  ng_matrix A = D->A;
  int gpu = ctx->on_gpu && M->gpu_setup && (l == 0 || M->L[l - 1].gpu); /* the same on every rank */
  double t = ng_wtime(), tt = t;
  ng_amg_dist_trace_level(l);
  ng_status st = aggregate(M, A, l, gpu);
  double sums[1] = {st ? 0.0 : (double)L->nagg};
  NG_CHECK(ng_comm_agree_sum(ctx, st, sums, 1));
  ng_amg_dist_trace(ctx, gpu ? "uncoupled: aggregate (GPU)" : "uncoupled: aggregate (host)", &tt);
  *stop = sums[0] == 0 || sums[0] > 0.9 * (double)A->n_global;
  if (*stop) { /* the same verdict on every rank */
#ifdef NG_HAVE_CUDA
    if (gpu) ng_amg_gpu_drop(M, l);
#endif
    ng_free(L->agg);
    L->agg = NULL;
    return NG_SUCCESS;
  }
  D->uncoupled = 1;
  D->group = 1;
  st = set_lump(M, l, A, gpu);
  ng_amg_dist_trace(ctx, "uncoupled: the off-rank couplings lumped", &tt);
  M->t_aggregate += ng_wtime() - t;
  if (!st) st = transfer(ctx, M, A, l, gpu, 0);
  ng_amg_dist_trace(ctx, gpu ? "uncoupled: P and R" : "uncoupled: P, R, local R A P", &tt);
  t = ng_wtime();
  if (!st) st = NG_MALLOC(D->cstarts, ctx->size + 1);
  NG_CHECK(ng_comm_agree(ctx, st));
  NG_CHECK(ng_comm_starts(ctx, L->nagg, D->cstarts));
  int64_t *orp = NULL, *ogc = NULL;
  double *oval = NULL;
  ng_csr loc = {0};
  const ng_spmv_ops *lops = NULL;
  void *ldata = NULL;
  NG_CHECK(offrank_and_products(ctx, M, l, A, gpu, 0, NG_SUCCESS, &orp, &ogc, &oval)); /* agreed there */
  ng_amg_dist_trace(ctx, gpu ? "uncoupled: off-rank block of A_c beside the local R A P (GPU)"
                             : "uncoupled: off-rank block of A_c", &tt);
  int dev = 0;
#ifdef NG_HAVE_CUDA
  int done = 0;
  if (gpu) st = ng_amg_gpu_coarse_table(M, l + 1, &lops, &ldata, &done); /* a copy on the device */
  if (gpu) st = next_on_device(ctx, M, l, st, done, orp[M->L[l].nagg], &dev); /* agreed there */
  if (!st && dev) st = device_block(M, l, &loc);
#endif
  if (!st && !dev) st = local_product(M, l, gpu, &loc);
  ng_amg_dist_trace(ctx, dev ? "uncoupled: the local block's row offsets" : "uncoupled: the local block's host copy",
                    &tt);
  /* its halo plan waits for the next level's verdict (amg_dist_setup.c):
   * a level gathered onto rank 0 never multiplies here */
  st = ng_matrix_create_blocks_deferred(ctx, st, D->cstarts[ctx->size], D->cstarts[ctx->rank], &loc, orp, ogc, oval,
                                        lops, ldata, &D[1].A); /* agreed there */
  if (!st && dev) D[1].A->host_stale = 2; /* col and val: NULL until ng_matrix_host_current */
  ng_csr_free(&loc);
  ng_free(orp);
  ng_free(ogc);
  ng_free(oval);
  NG_CHECK(st);
  D[1].group = 1;
  ng_amg_dist_trace(ctx, "uncoupled: the coarse matrix (its tables)", &tt);
  M->t_galerkin += ng_wtime() - t;
  return NG_SUCCESS;
}

ng_status ng_amg_uncoupled_refresh(ng_precond Pc, ng_amg *M, int l)
{
  ng_context ctx = Pc->ctx;
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  ng_amg_level *L = &M->L[l];
  ng_matrix A = D->A, C = D[1].A;
  int gpu = L->gpu;
  int64_t *orp = NULL, *ogc = NULL;
  double *oval = NULL, t = ng_wtime(), tt = t;
  ng_status st = set_lump(M, l, A, gpu);
  if (!st) st = transfer(ctx, M, A, l, gpu, 1);
  ng_amg_dist_trace(ctx, gpu ? "update, uncoupled: P and R" : "update, uncoupled: P, R, local R A P", &tt);
  st = ng_comm_agree(ctx, st);
  NG_CHECK(st);
  M->t_prolong += ng_wtime() - t;
  t = ng_wtime();
  NG_CHECK(offrank_and_products(ctx, M, l, A, gpu, 1, NG_SUCCESS, &orp, &ogc, &oval)); /* agreed there */
  ng_amg_dist_trace(ctx, gpu ? "update, uncoupled: off-rank block of A_c beside the local R A P (GPU)"
                             : "update, uncoupled: off-rank block of A_c", &tt);
  /* the same pattern as at the setup: its values into the off-rank block */
  const ng_csr *O = &C->offrank;
  int same = orp[C->n_local] == O->nnz;
  for (int32_t i = 0; same && i < C->n_local; i++) same = orp[i + 1] == O->rowptr[i + 1];
  for (int64_t p = 0; same && p < O->nnz; p++) same = ogc[p] == C->halo_gcol[O->col[p]];
  if (same) memcpy(O->val, oval, (size_t)O->nnz * sizeof(double));
  else st = NG_ERROR(NG_ERR_INTERNAL, "AMG update: level %d's off-rank coarse couplings changed pattern", l + 1);
  ng_free(orp);
  ng_free(ogc);
  ng_free(oval);
  if (!st && C->spmv_off) st = C->spmv_off->update_values(C->spmv_off_data, &C->offrank);
  /* the local block's values: the host copy (on GPUs the values alone,
   * downloaded into it: the pattern is the setup's), then the table */
  if (!st) {
    int done = 0;
#ifdef NG_HAVE_CUDA
    if (gpu && C->host_stale == 2) done = 1; /* a device-only block: the table below is the copy */
    else if (gpu) st = ng_amg_gpu_coarse_values_host(M, l + 1, C->local.val, C->local.nnz, &done);
#endif
    if (!st && !done) {
      ng_csr loc = {0};
      st = local_product(M, l, gpu, &loc);
      if (!st && loc.nnz != C->local.nnz)
        st = NG_ERROR(NG_ERR_INTERNAL, "AMG update: level %d's local block changed pattern", l + 1);
      if (!st) memcpy(C->local.val, loc.val, (size_t)loc.nnz * sizeof(double));
      ng_csr_free(&loc);
    }
    done = 0;
#ifdef NG_HAVE_CUDA
    if (!st && gpu) st = ng_amg_gpu_coarse_values(M, l + 1, C->spmv, C->spmv_data, &done);
#endif
    if (!st && !done && C->host_stale == 2)
      st = NG_ERROR(NG_ERR_INTERNAL, "AMG update: level %d's device-only block has no device values", l + 1);
    if (!st && !done) st = C->spmv->update_values(C->spmv_data, &C->local);
  }
  NG_CHECK(ng_comm_agree(ctx, st));
  ng_amg_dist_trace(ctx, "update, uncoupled: the coarse matrix's values", &tt);
  M->t_galerkin += ng_wtime() - t;
  return NG_SUCCESS;
}
