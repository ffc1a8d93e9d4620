/* amg/amg_dist_setup.c: the distributed hierarchy (amg_dist.h): level
 * by level, rho(D^-1 A) through the level's distributed SpMV, aggregation
 * over the global graph, tentative and smoothed P, R's blocks and reverse
 * exchange, agglomeration of small levels, the Galerkin product; then the
 * smoother's diagonal, work vectors and the coarsest dense inverse (held
 * by one rank, its steps spread over all: amg_dist_coarse.c). The update repeats the values only. The
 * level operators, P and R are wrapped as ng_spmv_ops tables so that
 * amg_cycle.c runs them like the one-rank tables. */
#include "amg_dist.h"
#include "../smoother/smoother.h"
#include <math.h>

#define RHO_ITERS 12      /* as amg_setup.c */
#define DIRECT_MAX_ROWS 1024

/* ---- the tables the V-cycle calls ---------------------------------------- */
static ng_status dist_A_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  NG_CHECK(ng_matrix_apply_ab((ng_matrix)data, alpha, x, beta, y));
  return NG_SUCCESS;
}
static ng_status dist_P_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  NG_CHECK(ng_matrix_apply_ab(((ng_amg_dlevel *)data)->P, alpha, x, beta, y));
  return NG_SUCCESS;
}
/* y = alpha P^T x + beta y: contributions to other ranks' coarse rows leave
 * first, the own block runs while they travel, then what others sent us is
 * added. */
static ng_status dist_R_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  ng_amg_dlevel *D = data;
  if (D->rev) {
    if (D->Ro_ops) NG_CHECK(D->Ro_ops->apply(D->Ro_data, alpha, x, 0.0, D->contrib));
    NG_CHECK(ng_halo_reverse_begin(D->rev, D->contrib));
  }
  NG_CHECK(D->Rl_ops->apply(D->Rl_data, alpha, x, beta, y));
  if (D->rev) NG_CHECK(ng_halo_reverse_end(D->rev, D->P->halo, y));
  return NG_SUCCESS;
}
static size_t dist_bytes(const void *data) { return 0; }
static void dist_none(void *data) { (void)data; } /* the level owns the data (ng_amg_dist_free) */
static const ng_spmv_ops dist_A_ops = {.name = "dist-A", .apply = dist_A_apply, .bytes = dist_bytes, .destroy = dist_none};
static const ng_spmv_ops dist_P_ops = {.name = "dist-P", .apply = dist_P_apply, .bytes = dist_bytes, .destroy = dist_none};
static const ng_spmv_ops dist_R_ops = {.name = "dist-R", .apply = dist_R_apply, .bytes = dist_bytes, .destroy = dist_none};

/* ---- setup ------------------------------------------------------------------ */
static int trace_level;
void ng_amg_dist_trace(ng_context ctx, const char *what, double *t) { ng_amg_trace(ctx, what, trace_level, t); }
void ng_amg_dist_trace_level(int l) { trace_level = l; }

/* The estimate checks every rank's diagonal and agrees before its
 * collective iterations, naming the global row of a zero. */
static ng_status level_rho(ng_matrix A, double *rho)
{
  ng_context ctx = A->ctx;
  double *v = NULL;
  ng_status st = ng_comm_agree(ctx, ctx->vops->alloc(ctx, &v, A->n_local));
  if (st) { if (v) ctx->vops->free(ctx, v); return ng_error_trace(st, __FILE__, __LINE__); }
  st = ng_amg_spectral_radius_ctx(A, RHO_ITERS, v, 0, rho);
  ctx->vops->free(ctx, v);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

/* Report figures of a level, gathered while every rank is here. */
/* One collective (every rank's halo size gathered) gives the sum, the
 * maximum and the active ranks, where a sum and a max took two. */
static ng_status level_stats(ng_matrix A, ng_amg_dlevel *D, int64_t *all)
{
  ng_context ctx = A->ctx;
  int64_t mine = A->n_local > 0 ? A->n_halo : -1; /* -1: no rows here (inactive) */
  ng_status st = ng_comm_allgather_int64(ctx, mine, all);
  D->active = 0;
  D->halo_total = D->halo_max = 0;
  for (int r = 0; !st && r < ctx->size; r++) {
    int64_t h = all[r] < 0 ? 0 : all[r];
    D->active += all[r] >= 0;
    D->halo_total += h;
    if (h > D->halo_max) D->halo_max = h;
  }
  NG_CHECK(st);
  D->n_global = A->n_global;
  D->nnz_global = A->nnz_global;
  return NG_SUCCESS;
}

/* Coarse rows of each group of `group` ranks move to the group's first rank
 * when there are fewer than agglomerate_rows of them per rank (the coarsest
 * level, small enough for the dense solve, to rank 0). Coarse numbers stay;
 * only the ownership ranges change. */
static void agglomerate(ng_amg *M, ng_context ctx, int l, int64_t nc)
{
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l, *C = D + 1;
  int size = ctx->size, g = D->group;
  int coarsest = nc <= M->coarse_size || l + 1 == M->max_levels - 1;
  int64_t direct_max = M->coarse_size > DIRECT_MAX_ROWS ? M->coarse_size : DIRECT_MAX_ROWS;
  if (coarsest && M->coarse_direct && nc <= direct_max) g = size;
  else
    while (g < size && nc < M->agglomerate_rows * (int64_t)((size + g - 1) / g)) g *= 2;
  if (g > size) g = size;
  C->group = g;
  if (g == 1) return;
  int64_t *old = D->cstarts, copy[size + 1];
  memcpy(copy, old, sizeof(copy));
  for (int r = 0; r < size; r++) {
    int64_t lead = g == size ? (r ? size : 0) : ((r + g - 1) / g) * g; /* first rank of the next group from r */
    old[r] = copy[lead < size ? lead : size];
  }
  old[size] = nc;
}

/* R's two blocks (P's local and off-rank blocks transposed) as tables, and
 * the reverse exchange over P's halo plan. */
static ng_status make_restriction(ng_context ctx, ng_amg *M, ng_amg_dlevel *D)
{
  ng_matrix P = D->P;
  NG_CHECK(NG_MALLOC(D->rl_perm, P->local.nnz));
  NG_CHECK(ng_csr_transpose(&P->local, &D->Rl, D->rl_perm));
  NG_CHECK(ng_amg_make_spmv(ctx, M, &D->Rl, &D->Rl_ops, &D->Rl_data));
  if (P->n_halo > 0) {
    NG_CHECK(NG_MALLOC(D->ro_perm, P->offrank.nnz));
    NG_CHECK(ng_csr_transpose(&P->offrank, &D->Ro, D->ro_perm));
    NG_CHECK(ng_amg_make_spmv(ctx, M, &D->Ro, &D->Ro_ops, &D->Ro_data));
  }
  return NG_SUCCESS;
}

/* The reverse exchange over P's halo plan (collective), st (R's blocks)
 * and the contributions' buffer agreed with the plan's buffers: the
 * reverse plan exists exactly where P has a halo plan (a plan without
 * neighbours is never kept). */
static ng_status make_reverse(ng_context ctx, ng_amg_dlevel *D, ng_status st)
{
  if (!st && D->P->halo) st = ctx->vops->alloc(ctx, &D->contrib, D->P->n_halo); /* freed by ng_amg_dist_free */
  NG_CHECK(ng_halo_reverse_create(ctx, st, D->P->halo, &D->rev));
  return NG_SUCCESS;
}

static ng_status restriction_values(ng_amg_dlevel *D)
{
  ng_csr_transpose_values(&D->P->local, D->rl_perm, &D->Rl);
  NG_CHECK(D->Rl_ops->update_values(D->Rl_data, &D->Rl));
  if (D->Ro_ops) {
    ng_csr_transpose_values(&D->P->offrank, D->ro_perm, &D->Ro);
    NG_CHECK(D->Ro_ops->update_values(D->Ro_data, &D->Ro));
  }
  return NG_SUCCESS;
}

/* Level l's R (P^T and its reverse plan), the Galerkin product A_{l+1}
 * (sparsified by sparsify with the hybrid lumping or not, as on one rank)
 * and the cycle's P and R tables, once D->P is made. */
static ng_status restrict_and_multiply(ng_context ctx, ng_amg *M, int l, double sparsify, int hybrid, double *tt)
{
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  ng_amg_level *L = &M->L[l];
  double t = ng_wtime();
  NG_CHECK(make_reverse(ctx, D, make_restriction(ctx, M, D))); /* agreed there */
  ng_amg_dist_trace(ctx, "R and its reverse plan", tt);
  M->t_prolong += ng_wtime() - t;
  t = ng_wtime();
  D->sparsify = sparsify; /* not for gather_transfer's copy */
  D->hybrid = hybrid;
  NG_CHECK(ng_amg_dist_galerkin(D->A, D, 0, &D[1].A));
  ng_amg_dist_trace(ctx, "Galerkin", tt);
  M->t_galerkin += ng_wtime() - t;
  L->Pops = &dist_P_ops;
  L->Pdata = D;
  L->Rops = &dist_R_ops;
  L->Rdata = D;
  return NG_SUCCESS;
}

/* -amg_coarsening classical: level l's C/F splitting and extended+i P
 * (amg_dist_classical.c), then as aggregation; no sparsification, as on
 * one rank. */
static ng_status build_classical(ng_precond Pc, ng_amg *M, int l, int *stop)
{
  ng_context ctx = Pc->ctx;
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  ng_matrix A = D->A;
  int64_t nc = 0;
  double t = ng_wtime(), tt = t;
  NG_CHECK(ng_amg_dist_classical(A, M, D, &nc));
  ng_amg_dist_trace(ctx, "classical: strength, PMIS, extended+i P", &tt);
  *stop = nc == 0 || nc > 0.9 * (double)A->n_global; /* the same verdict on every rank */
  if (*stop) return NG_SUCCESS;
  agglomerate(M, ctx, l, nc); /* the coarse rows' owners only: their global numbers stay */
  NG_CHECK(ng_matrix_create_rect_compact(ctx, A->n_global, A->row_begin, A->row_begin + A->n_local, nc,
                                         D->cstarts[ctx->rank], D->cstarts[ctx->rank + 1], D->Pc.rowptr, D->Pc.col,
                                         D->pcol, D->pm, D->Pc.val, &D->P));
  M->t_aggregate += ng_wtime() - t;
  NG_CHECK(restrict_and_multiply(ctx, M, l, 0.0, 0, &tt));
  return NG_SUCCESS;
}

/* Level l's transfer to l + 1 (setup); *stop when coarsening ends here. */
static ng_status build_transfer(ng_precond Pc, ng_amg *M, int l, int *stop)
{
  ng_context ctx = Pc->ctx;
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  ng_amg_level *L = &M->L[l];
  ng_matrix A = D->A;
  int64_t nc = 0;
  double t = ng_wtime(), tt = t;
  trace_level = l;
  if (M->classical) return build_classical(Pc, M, l, stop);
  D->sgn = M->strength_signed;
  D->filter = M->filter ? ng_amg_level_theta(M, l) : 0.0; /* P from A_F, as on one rank */
  int done = 0;
#ifdef NG_HAVE_CUDA
  /* the same test on every rank: all on the device or all on the host */
  if (ctx->on_gpu && M->gpu_setup && A->n_global >= M->gpu_min_rows)
    NG_CHECK(ng_amg_dist_aggregate_gpu(A, ng_amg_level_theta(M, l), D->sgn, D->filter > 0 && !D->sd, &D->agg,
                                       &D->cstarts, &D->sd, &nc, &D->gx, &done));
#endif
  if (!done) NG_CHECK(ng_amg_dist_aggregate(A, ng_amg_level_theta(M, l), D, &nc));
  ng_amg_dist_trace(ctx, done ? "aggregate (GPU)" : "aggregate (host)", &tt);
  *stop = nc == 0 || nc > 0.9 * (double)A->n_global; /* the same verdict on every rank */
  if (*stop) return NG_SUCCESS;
  NG_CHECK(ng_amg_dist_tentative(A, D));
  agglomerate(M, ctx, l, nc);
  ng_amg_dist_trace(ctx, "tentative", &tt);
  M->t_aggregate += ng_wtime() - t;
  t = ng_wtime();
  NG_CHECK(ng_amg_dist_prolong(A, D, 4.0 / (3.0 * L->s.rho), 0));
  ng_amg_dist_trace(ctx, "P", &tt);
  M->t_prolong += ng_wtime() - t;
  NG_CHECK(restrict_and_multiply(ctx, M, l, M->sparsify, ng_amg_hybrid(M), &tt));
  return NG_SUCCESS;
}

/* Level l is small enough for the dense solve but spread over ranks (the
 * user's matrix itself, or coarsening stalled): one more level, the same
 * rows gathered onto rank 0 by P = I, so that the coarsest solve is exact
 * as on one rank. */
static ng_status gather_transfer(ng_precond Pc, ng_amg *M, int l)
{
  ng_context ctx = Pc->ctx;
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  ng_matrix A = D->A;
  int32_t n = A->n_local;
  ng_status st = NG_MALLOC(D->agg, (size_t)n + A->n_halo);
  if (!st) st = NG_MALLOC(D->ptent, (size_t)n + A->n_halo);
  if (!st) st = NG_MALLOC(D->cstarts, ctx->size + 1);
  NG_CHECK(ng_comm_agree(ctx, st));
  for (int32_t i = 0; i < n; i++) {
    D->agg[i] = A->row_begin + i;
    D->ptent[i] = 1.0;
  }
  for (int32_t h = 0; h < A->n_halo; h++) {
    D->agg[n + h] = A->halo_gcol[h];
    D->ptent[n + h] = 1.0;
  }
  D->cstarts[0] = 0;
  for (int r = 1; r <= ctx->size; r++) D->cstarts[r] = A->n_global;
  D->gather = 1;
  D[1].group = ctx->size;
  NG_CHECK(ng_amg_dist_prolong(A, D, 0.0, 0));
  NG_CHECK(make_reverse(ctx, D, make_restriction(ctx, M, D))); /* agreed there */
  NG_CHECK(ng_amg_dist_galerkin(A, D, 0, &D[1].A));
  M->L[l].Pops = &dist_P_ops;
  M->L[l].Pdata = D;
  M->L[l].Rops = &dist_R_ops;
  M->L[l].Rdata = D;
  return NG_SUCCESS;
}

/* Smoother weight and diagonal, work vectors, the coarsest inverse (its
 * collective steps reached by every rank, the diagonal's status agreed
 * there). */
static ng_status finish_level(ng_context ctx, ng_amg *M, int l, int refresh)
{
  ng_amg_level *L = &M->L[l];
  ng_matrix A = ((ng_amg_dlevel *)M->dist)[l].A;
  L->s.coarsest = l == M->nlevels - 1;
  /* the gathered levels' coarse solve (amg_dist_telescope.c) needs no
   * smoother here, and its M->Cops is made */
  int gathered = L->s.coarsest && M->telescope;
  L->s.omega = M->omega_opt > 0 ? M->omega_opt : 4.0 / (3.0 * L->s.rho);
  ng_status st = gathered ? NG_SUCCESS : ng_amg_smoother_diagonal(ctx, M, l, &A->local);
  if (l == M->nlevels - 1 && M->coarse_direct && !gathered) st = ng_amg_dist_coarse_inverse(ctx, M, A, st);
  NG_CHECK(st);
  if (l > 0 && !refresh) {
    L->s.Aops = &dist_A_ops;
    L->s.Adata = A;
  }
  if (l == M->nlevels - 1 && M->coarse_direct && !gathered) {
    if (!refresh) NG_CHECK(ng_amg_make_spmv(ctx, M, &M->coarse_inv, &M->Cops, &M->Cdata));
    else NG_CHECK(M->Cops->update_values(M->Cdata, &M->coarse_inv));
  }
  if (!refresh) {
    NG_CHECK(ctx->vops->alloc(ctx, &L->s.r, L->s.n));
    if (l > 0) {
      NG_CHECK(ctx->vops->alloc(ctx, &L->x, L->s.n));
      NG_CHECK(ctx->vops->alloc(ctx, &L->b, L->s.n));
    }
  }
  /* the smoother on this rank's block; off-rank couplings through A's halo */
  if (!(l == M->nlevels - 1 && M->coarse_direct)) {
    if (!refresh) NG_CHECK(M->sopts.ops->setup(ctx, &M->sopts, &L->s, &A->local, A, &L->s.sdata));
    else NG_CHECK(M->sopts.ops->update(ctx, &M->sopts, &L->s, &A->local, L->s.sdata));
  }
  return NG_SUCCESS;
}

ng_status ng_amg_dist_build(ng_precond P, ng_amg *M, ng_matrix A)
{
  ng_context ctx = P->ctx;
  double t0 = ng_wtime(), t;
  ng_amg_dlevel *D = NULL;
  ng_status ast = NG_CALLOC(D, M->max_levels);
  if (!ast) ast = NG_MALLOC(D[0].gathered, ctx->size);
  ast = ng_comm_agree(ctx, ast);
  if (ast) { /* allocated here, failed elsewhere */
    if (D) ng_free(D[0].gathered);
    ng_free(D);
    return ng_error_trace(ast, __FILE__, __LINE__);
  }
  M->dist = D;
  D[0].A = A;
  D[0].group = 1;
  M->nlevels = 0;
  for (int l = 0;; l++) {
    ng_amg_level *L = &M->L[l];
    int stop = 0;
    L->s.n = D[l].A->n_local;
    M->nlevels = l + 1;
    double tt = ng_wtime();
    ng_amg_dist_trace_level(l);
    NG_CHECK(level_stats(D[l].A, &D[l], D[0].gathered));
    ng_amg_dist_trace(ctx, "the level's figures gathered", &tt);
    if (ng_amg_telescope_wanted(M, l)) { /* the rest on rank 0: no rho or smoother here */
      L->s.rho = 1.0;
      NG_CHECK(ng_amg_telescope_build(P, M, l));
      break;
    }
    /* a level set up across the ranks: its halo plan, if its making waited
     * for this verdict (an uncoupled level's coarse matrix) */
    NG_CHECK(ng_matrix_halo_ensure(D[l].A));
    ng_amg_dist_trace(ctx, "the level's halo plan", &tt);
    t = ng_wtime();
    NG_CHECK(level_rho(D[l].A, &L->s.rho));
    M->t_rho += ng_wtime() - t;
    ng_amg_dist_trace(ctx, "rho", &tt);
    if (D[l].A->n_global <= M->coarse_size || l == M->max_levels - 1) break;
    if (ng_amg_uncoupled_wanted(M, l)) NG_CHECK(ng_amg_uncoupled_build(P, M, l, &stop));
    else NG_CHECK(build_transfer(P, M, l, &stop));
    if (stop) break;
  }
  ng_amg_dlevel *last = &D[M->nlevels - 1];
  int64_t direct_max = M->coarse_size > DIRECT_MAX_ROWS ? M->coarse_size : DIRECT_MAX_ROWS;
  if (!M->telescope && M->coarse_direct && last->active > 1 && last->n_global <= direct_max &&
      M->nlevels < M->max_levels) {
    int l = M->nlevels - 1;
    t = ng_wtime();
    NG_CHECK(gather_transfer(P, M, l));
    M->t_galerkin += ng_wtime() - t;
    M->L[l + 1].s.n = D[l + 1].A->n_local;
    M->nlevels = l + 2;
    NG_CHECK(level_stats(D[l + 1].A, &D[l + 1], D[0].gathered));
    NG_CHECK(level_rho(D[l + 1].A, &M->L[l + 1].s.rho));
    last = &D[l + 1];
  }
  if (!M->telescope && M->coarse_direct && (last->active > 1 || last->n_global > direct_max)) M->coarse_direct = 0;
  t = ng_wtime();
  for (int l = 0; l < M->nlevels; l++) {
    ng_status st = finish_level(ctx, M, l, 0);
    NG_CHECK(ng_comm_agree(ctx, st));
  }
  NG_CHECK(ctx->vops->sync(ctx));
  M->t_finish = ng_wtime() - t;
  M->setup_seconds = ng_wtime() - t0;
  return NG_SUCCESS;
}

ng_status ng_amg_dist_refresh(ng_precond P, ng_amg *M, ng_matrix A)
{
  ng_context ctx = P->ctx;
  ng_amg_dlevel *D = M->dist;
  double t0 = ng_wtime(), t, tt = t0;
  M->t_rho = M->t_prolong = M->t_galerkin = 0;
  for (int l = 0; l < M->nlevels; l++) {
    ng_amg_level *L = &M->L[l];
    t = ng_wtime();
    trace_level = l;
    if (l == M->nlevels - 1 && M->telescope) { /* the gathered levels' values and their one-rank update */
      NG_CHECK(ng_amg_telescope_refresh(P, M, l));
      M->t_galerkin += ng_wtime() - t;
      ng_amg_dist_trace(ctx, "update: telescoped levels (values gathered, one-rank update)", &tt);
      break;
    }
    NG_CHECK(level_rho(D[l].A, &L->s.rho));
    M->t_rho += ng_wtime() - t;
    ng_amg_dist_trace(ctx, "update: rho", &tt);
    if (l == M->nlevels - 1) break;
    if (D[l].uncoupled) {
      NG_CHECK(ng_amg_uncoupled_refresh(P, M, l));
      ng_amg_dist_trace(ctx, "update: uncoupled level's P, R and A_c", &tt);
      continue;
    }
    t = ng_wtime();
    NG_CHECK(ng_amg_dist_prolong(D[l].A, &D[l], D[l].gather ? 0.0 : 4.0 / (3.0 * L->s.rho), 1));
    ng_status st = restriction_values(&D[l]);
    NG_CHECK(ng_comm_agree(ctx, st));
    M->t_prolong += ng_wtime() - t;
    t = ng_wtime();
    NG_CHECK(ng_amg_dist_galerkin(D[l].A, &D[l], 1, &D[l + 1].A));
    M->t_galerkin += ng_wtime() - t;
    ng_amg_dist_trace(ctx, "update: P, R and Galerkin", &tt);
  }
  t = ng_wtime();
  for (int l = 0; l < M->nlevels; l++) {
    ng_status st = finish_level(ctx, M, l, 1);
    NG_CHECK(ng_comm_agree(ctx, st));
    trace_level = l;
    ng_amg_dist_trace(ctx, "update: finish (smoother values, tables)", &tt);
  }
  NG_CHECK(ctx->vops->sync(ctx));
  M->t_finish = ng_wtime() - t;
  M->update_seconds = ng_wtime() - t0;
  return NG_SUCCESS;
}

void ng_amg_dist_free(ng_context ctx, ng_amg *M)
{
  ng_amg_dlevel *D = M->dist;
  if (!D) return;
  for (int l = 0; l < M->max_levels; l++) {
    ng_amg_dlevel *d = &D[l];
    if (l > 0) ng_matrix_destroy(d->A);
    ng_matrix_destroy(d->P);
    if (d->Rl_ops) d->Rl_ops->destroy(d->Rl_data);
    if (d->Ro_ops) d->Ro_ops->destroy(d->Ro_data);
    ng_csr_free(&d->Rl);
    ng_csr_free(&d->Ro);
    ng_halo_reverse_destroy(d->rev);
    if (d->contrib) ctx->vops->free(ctx, d->contrib);
    ng_amg_dgalerkin_free(d->G);
    ng_amg_ucache_free(d->ucache);
    ng_free(d->rl_perm);
    ng_free(d->ro_perm);
    ng_free(d->cstarts);
    ng_free(d->agg);
    ng_free(d->ptent);
    ng_free(d->sd);
    ng_csr_free(&d->Aext);
#ifdef NG_HAVE_CUDA
    ng_amg_dx_free(d->gx);
    ng_amg_gpu_offrank_free(d->doff);
#endif
    ng_free(d->pcol);
    ng_free(d->cagg);
    ng_csr_free(&d->Pc);
    ng_free(d->gathered);
  }
  ng_free(D);
  M->dist = NULL;
}

double ng_amg_dist_comm_seconds(const ng_amg *M)
{
  const ng_amg_dlevel *D = M->dist;
  double s = 0;
  if (!D) return 0;
  for (int l = 0; l < M->nlevels; l++) {
    if (l > 0 && D[l].A->halo) s += D[l].A->halo->comm_seconds;
    if (D[l].P && D[l].P->halo) s += D[l].P->halo->comm_seconds;
    if (D[l].rev) s += D[l].rev->comm_seconds;
  }
  s += ng_amg_telescope_comm_seconds(M); /* the gathered levels' gather and scatter */
  return s;
}

ng_status ng_amg_dist_describe(ng_precond P, char *buf, size_t len)
{
  ng_amg *M = P->data;
  ng_amg_dlevel *D = M->dist;
  double rows = 0, nnz = 0, n0 = (double)D[0].n_global, z0 = (double)D[0].nnz_global;
  size_t k;
  for (int l = 0; l < M->nlevels; l++) {
    if (l > 0 && D[l - 1].gather) continue; /* the same rows gathered: not a coarser level */
    rows += (double)D[l].n_global;
    nnz += (double)D[l].nnz_global;
  }
  k = (size_t)snprintf(buf, len,
                       "amg: %d levels over %d ranks, grid complexity %.3f, operator complexity %.3f, theta %g, "
                       "coarsest %s%s\n"
                       "  setup %.3f s: aggregation %.3f, rho %.3f, P and R %.3f, Galerkin %.3f, coarse inverse and "
                       "copies %.3f\n",
                       M->nlevels, P->ctx->size, rows / n0, nnz / z0, M->theta,
                       M->telescope ? "one-rank AMG (rank 0)" : M->coarse_direct ? "direct (rank 0)" : "smoother", M->cycle_gamma > 1 ? ", W-cycle" : M->kcycle ? ", K-cycle" : "", M->setup_seconds, M->t_aggregate, M->t_rho,
                       M->t_prolong, M->t_galerkin, M->t_finish);
  int ngpu = 0, nagg = 0, nun = 0;
  for (int l = 0; l < M->nlevels; l++) {
    ngpu += ng_amg_dgalerkin_on_gpu(D[l].G);
    nagg += D[l].gx != NULL;
    nun += D[l].uncoupled;
  }
  if (nun && k < len)
    k += (size_t)snprintf(buf + k, len - k,
                          "  uncoupled levels (aggregates and P inside each rank, their transfers without exchange): "
                          "%d, built on %s\n",
                          nun, M->L[0].gpu ? "each rank's GPU" : "the host");
  if (ngpu && k < len)
    k += (size_t)snprintf(buf + k, len - k,
                          "  on each rank's GPU: aggregation and P of %d level(s), local Galerkin products of %d; "
                          "the rest on the host\n",
                          nagg, ngpu);
  for (int l = 0; l < M->nlevels && k < len; l++) {
    ng_amg_level *L = &M->L[l];
    int coarsest = l == M->nlevels - 1;
    char sweeps[96];
    if (coarsest && M->telescope) snprintf(sweeps, sizeof(sweeps), "gathered onto rank 0, solved there (below)");
    else if (coarsest && M->coarse_direct) snprintf(sweeps, sizeof(sweeps), "dense inverse");
    else if (coarsest) snprintf(sweeps, sizeof(sweeps), "%d sweeps, omega %.3f", L->pre, L->s.omega);
    else if (D[l].gather) snprintf(sweeps, sizeof(sweeps), "sweeps %d/%d, omega %.3f, gathered to rank 0 below", L->pre,
                                   L->post, L->s.omega);
    else snprintf(sweeps, sizeof(sweeps), "sweeps %d/%d, omega %.3f", L->pre, L->post, L->s.omega);
    k += (size_t)snprintf(buf + k, len - k,
                          "  level %d: %lld rows, %lld nnz (%.1f per row), %d active ranks, halo %lld (max %lld per "
                          "rank), %s\n",
                          l, (long long)D[l].n_global, (long long)D[l].nnz_global,
                          D[l].n_global ? (double)D[l].nnz_global / (double)D[l].n_global : 0.0, D[l].active,
                          (long long)D[l].halo_total, (long long)D[l].halo_max, sweeps);
  }
  NG_CHECK(ng_amg_telescope_describe(M, buf, len, &k));
  if (k < len) k += ng_amg_describe_memory(P, buf + k, len - k);
  if (M->update_seconds > 0 && k < len)
    snprintf(buf + k, len - k, "  last update %.3f s (%.0f%% of setup)\n", M->update_seconds,
             100.0 * M->update_seconds / M->setup_seconds);
  return NG_SUCCESS;
}
