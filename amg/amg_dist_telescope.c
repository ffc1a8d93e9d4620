/* amg/amg_dist_telescope.c: the coarse levels of the distributed hierarchy
 * on one rank (-amg_telescope_rows; the idea of PETSc's PCTELESCOPE and of
 * coarse agglomeration in hypre and AmgX, taken to rank 0). The first
 * level below the finest with at most that many rows in all is gathered
 * onto rank 0 as one CSR, where a one-rank AMG, on a context of that rank
 * alone that shares the device and its stream, builds the rest of the
 * hierarchy with the one-rank setup (on the GPU when the context is there).
 * The gathered level is then the distributed hierarchy's coarsest, and its
 * coarse solve (an ng_spmv_ops table in M->Cops, so the cycle is unchanged)
 * gathers the residual onto rank 0 (G = I with rank 0's rows: a forward
 * halo exchange, device to device through the matrix transport), applies
 * the nested AMG's cycle there and sends the correction back (S = I with
 * the level's rows). The aim: on GPUs a coarse level costs every
 * exchange's latency at each smoothing step and its distributed setup is a
 * host algorithm. Measured on 4 H100s (doc/performance.md) it does not pay
 * yet: at lap27:256 the gather (83 ms), the one-rank setup of level 1's
 * 360k rows (99 ms with the upload) and the two identities' halo plans
 * (89 ms) cost more than the distributed levels they replace, so it is off
 * by default (-amg_telescope_rows 0). */
#include "amg_dist.h"
#include "../precond/precond.h"

typedef struct {
  ng_context ctx;   /* the hierarchy's context */
  ng_context sub;   /* rank 0: the one-rank context (NULL elsewhere) */
  ng_matrix A1;     /* rank 0: the gathered level */
  ng_precond N;     /* rank 0: its one-rank AMG */
  ng_matrix G, S;   /* the gather (rows on rank 0) and scatter (the level's rows) identities */
  double *gb, *gx;  /* rank 0: the gathered right-hand side and correction (context memory) */
  int64_t n, nnz;   /* the level's rows and entries in all */
} telescope;

int ng_amg_telescope_wanted(ng_amg *M, int l)
{
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  ng_context ctx = D->A->ctx;
  int64_t rows = M->telescope_rows;
  /* the W-cycle's second visit and weights assume a coarsest solved exactly
   * or smoothed: not a nested cycle */
  return ctx->size > 1 && l >= 1 && rows > 0 && D->n_global <= rows && D->n_global > M->coarse_size &&
         M->cycle_gamma <= 1 && D->nnz_global < INT32_MAX / 8; /* one MPI gather of the values */
}

/* The coarse solve x = N(b): b gathered onto rank 0, the nested cycle
 * there, the correction scattered back. Collective (the two exchanges). */
static ng_status tel_apply(void *data, double alpha, const double *b, double beta, double *x)
{
  telescope *T = data;
  if (alpha != 1.0 || beta != 0.0)
    return NG_ERROR(NG_ERR_INTERNAL, "AMG: the gathered coarse solve computes x = N b only");
  NG_CHECK(ng_matrix_apply_raw(T->G, b, T->gb));
  /* rank 0 sends the correction back even when its cycle failed: the
   * others wait in that exchange */
  ng_status st = T->N ? T->N->ops->apply(T->N, T->gb, T->gx) : NG_SUCCESS;
  ng_status s2 = ng_matrix_apply_raw(T->S, T->gx, x);
  NG_CHECK(st);
  NG_CHECK(s2);
  return NG_SUCCESS;
}

static void tel_destroy(void *data)
{
  telescope *T = data;
  if (!T) return;
  ng_precond_destroy(T->N);
  ng_matrix_destroy(T->A1);
  ng_context_destroy(T->sub);
  ng_matrix_destroy(T->G);
  ng_matrix_destroy(T->S);
  if (T->gb) T->ctx->vops->free(T->ctx, T->gb);
  if (T->gx) T->ctx->vops->free(T->ctx, T->gx);
  ng_free(T);
}

static size_t tel_bytes(const void *data)
{
  (void)data;
  return 0; /* counted by the memory tracker (core/memtrack.c) */
}

static const ng_spmv_ops telescope_ops = {.name = "telescope", .apply = tel_apply, .bytes = tel_bytes,
                                          .destroy = tel_destroy};

/* G (rows [0, n) on rank 0, none elsewhere) and S (the level's rows)
 * over the two layouts: identities, so that G b gathers and S y scatters. */
static ng_status identities(telescope *T, ng_matrix A)
{
  ng_context ctx = A->ctx;
  int root = ctx->rank == 0;
  int64_t n = A->n_global, mine = root ? n : 0, m = (int64_t)A->n_local + (root ? n : 0);
  int64_t *rp = NULL, *gc = NULL;
  double *one = NULL;
  ng_status st = NG_MALLOC(rp, (size_t)m + 2);
  if (!st) st = NG_MALLOC(gc, m ? m : 1);
  if (!st) st = NG_MALLOC(one, m ? m : 1);
  for (int64_t i = 0; !st && i <= m; i++) rp[i] = i;
  for (int64_t i = 0; !st && i < m; i++) one[i] = 1.0;
  for (int64_t i = 0; !st && i < mine; i++) gc[i] = i;
  st = ng_comm_agree(ctx, st);
  if (!st)
    st = ng_matrix_create_rect(ctx, n, root ? 0 : n, root ? n : n, n, A->row_begin, A->row_begin + A->n_local, rp, gc,
                               one, &T->G);
  for (int32_t i = 0; !st && i < A->n_local; i++) gc[i] = A->row_begin + i;
  if (!st)
    st = ng_matrix_create_rect(ctx, n, A->row_begin, A->row_begin + A->n_local, n, root ? 0 : n, root ? n : n, rp, gc,
                               one, &T->S);
  ng_free(rp);
  ng_free(gc);
  ng_free(one);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

/* Rank 0: the one-rank context, matrix (taking W over) and AMG, with the
 * hierarchy's options (no -amg_view of its own: ng_amg_dist_describe
 * prints it with the rest). */
static ng_status nested_setup(telescope *T, ng_amg *M, ng_csr *W)
{
  ng_options o = NULL;
  NG_CHECK(ng_context_create_self(T->ctx, &T->sub));
  ng_status st = ng_options_copy(M->opts, &o);
  if (!st) st = ng_options_set(o, "amg_view", "0");
  if (!st) st = ng_matrix_adopt_local(T->sub, W, &T->A1);
  if (!st) st = ng_precond_create(T->sub, o, T->A1, &T->N);
  ng_options_destroy(o);
  if (!st) st = T->ctx->vops->alloc(T->ctx, &T->gb, T->n);
  if (!st) st = T->ctx->vops->alloc(T->ctx, &T->gx, T->n);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

ng_status ng_amg_telescope_build(ng_precond Pc, ng_amg *M, int l)
{
  ng_context ctx = Pc->ctx;
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  ng_matrix A = D->A;
  telescope *T = NULL;
  ng_csr W = {0};
  double t = ng_wtime(), tt = t;
  ng_status st = M->opts ? NG_CALLOC(T, 1) : NG_ERROR(NG_ERR_INTERNAL, "AMG: the gathered levels need the options");
  if (!st) {
    T->ctx = ctx;
    T->n = A->n_global;
    T->nnz = A->nnz_global;
  }
  st = ng_matrix_gather_csr(A, st, &W); /* agreed there */
  ng_amg_dist_trace(ctx, "telescope: the level gathered onto rank 0", &tt);
  if (!st && ctx->rank == 0) st = nested_setup(T, M, &W);
  ng_csr_free(&W);
  st = ng_comm_agree(ctx, st);
  ng_amg_dist_trace(ctx, "telescope: the one-rank AMG on rank 0", &tt);
  if (!st) st = identities(T, A); /* agreed there */
  ng_amg_dist_trace(ctx, "telescope: the gather and scatter plans", &tt);
  if (st) {
    tel_destroy(T);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  M->telescope = T;
  M->coarse_direct = 1; /* the cycle's coarse solve: M->Cops */
  M->Cops = &telescope_ops;
  M->Cdata = T;
  M->t_galerkin += ng_wtime() - t;
  return NG_SUCCESS;
}

ng_status ng_amg_telescope_refresh(ng_precond Pc, ng_amg *M, int l)
{
  ng_context ctx = Pc->ctx;
  telescope *T = M->telescope;
  ng_csr W = {0};
  ng_status st = ng_matrix_gather_csr(((ng_amg_dlevel *)M->dist)[l].A, NG_SUCCESS, &W);
  if (!st && ctx->rank == 0) {
    const ng_csr *C = &T->A1->local;
    int same = W.nnz == C->nnz;
    for (int32_t i = 0; same && i <= W.nrows; i++) same = W.rowptr[i] == C->rowptr[i];
    for (int64_t p = 0; same && p < W.nnz; p++) same = W.col[p] == C->col[p];
    if (!same) st = NG_ERROR(NG_ERR_INTERNAL, "AMG update: the gathered level %d changed pattern", l);
    if (!st) st = ng_matrix_update_values(T->A1, W.val);
    if (!st) st = ng_precond_update(T->N, T->A1);
  }
  ng_csr_free(&W);
  NG_CHECK(ng_comm_agree(ctx, st));
  return NG_SUCCESS;
}

double ng_amg_telescope_comm_seconds(const ng_amg *M)
{
  const telescope *T = M->telescope;
  double s = 0.0;
  if (T && T->G->halo) s += T->G->halo->comm_seconds;
  if (T && T->S->halo) s += T->S->halo->comm_seconds;
  return s;
}

ng_status ng_amg_telescope_describe(const ng_amg *M, char *buf, size_t len, size_t *k)
{
  const telescope *T = M->telescope;
  if (!T || *k >= len) return NG_SUCCESS;
  *k += (size_t)snprintf(buf + *k, len - *k,
                         "  level %d gathered onto rank 0 (%lld rows, %lld entries), solved there by one cycle of a "
                         "one-rank AMG (-amg_telescope_rows):\n",
                         M->nlevels - 1, (long long)T->n, (long long)T->nnz);
  if (!T->N || *k >= len) return NG_SUCCESS;
  char sub[4096];
  NG_CHECK(ng_amg_describe(T->N, sub, sizeof(sub)));
  /* indented under the line above */
  for (const char *s = sub; *s && *k + 8 < len;) {
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) + 1 : strlen(s);
    *k += (size_t)snprintf(buf + *k, len - *k, "    %.*s", (int)n, s);
    s += n;
  }
  return NG_SUCCESS;
}
