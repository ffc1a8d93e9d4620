/* amg/amg_dist_telescope.c: the coarse levels of the distributed hierarchy
 * on one rank (-amg_telescope_rows; the idea of PETSc's PCTELESCOPE and of
 * coarse agglomeration in hypre and AmgX, taken to rank 0). The first
 * level below the finest with at most that many rows in all is gathered
 * onto rank 0 as one CSR, where a one-rank AMG, on a context of that rank
 * alone that shares the device and its stream, builds the rest of the
 * hierarchy with the one-rank setup (on the GPU when the context is there).
 * The gathered level is then the distributed hierarchy's coarsest, and its
 * coarse solve (an ng_spmv_ops table in M->Cops, so the cycle is unchanged)
 * gathers the residual onto rank 0 (a gather plan, comm/halo_gather.c:
 * device to device through the matrix transport), applies the nested AMG's
 * cycle there and sends the correction back (the plan's reverse). The
 * level's entries reach rank 0 through the same kind of plan
 * (dist/matrix_gather.c), and an update sends their values alone. On
 * GPUs each rank merges its rows on its device, the entries cross device
 * to device and rank 0 builds the level as a device-only matrix there
 * (its host copy only when a host reader asks: dist/matrix.c), which the
 * one-rank GPU setup reads: on 2 H200s lap27:256's level 1 (356k rows,
 * 8.3M entries) is gathered in 3 ms and set up in 13 ms, where its
 * distributed setup, a host algorithm with GPU parts, took 100 ms. Hence
 * the default with the GPU setup (-amg_telescope_rows -1: levels of at most
 * NG_AMG_TELESCOPE_GPU_ROWS rows); never on CPUs, whose coupled hierarchy
 * spreads the coarse work over the ranks. */
#include "amg_dist.h"
#include "../precond/precond.h"
#include "../comm/halo.h"

typedef struct {
  ng_context ctx;   /* the hierarchy's context */
  ng_context sub;   /* rank 0: the one-rank context (NULL elsewhere) */
  ng_matrix A1;     /* rank 0: the gathered level */
  ng_precond N;     /* rank 0: its one-rank AMG */
  struct ng_halo_plan *gp, *sp; /* the gather onto rank 0 and its reverse (NULL: nothing to move here) */
  ng_matrix_gatherer *mg; /* the level's entries onto rank 0, kept for the update */
  double *val;      /* rank 0: the gathered values of an update (host) */
  double *gb, *gx;  /* rank 0: the gathered right-hand side and correction (context memory) */
  int64_t n, nnz;   /* the level's rows and entries in all */
  int32_t n0, nl;   /* rank 0's rows, this rank's */
} telescope;

int ng_amg_telescope_fits(const ng_amg *M, ng_context ctx, int l, int64_t n_global, int64_t nnz_global)
{
  int64_t rows = M->telescope_rows;
  /* the W-cycle's second visit and weights assume a coarsest solved exactly
   * or smoothed: not a nested cycle */
  return ctx->size > 1 && l >= 1 && rows > 0 && n_global <= rows && n_global > M->coarse_size &&
         M->cycle_gamma <= 1 && nnz_global < INT32_MAX / 8; /* the gather plan counts entries in int32 */
}

int ng_amg_telescope_wanted(ng_amg *M, int l)
{
  ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist + l;
  return ng_amg_telescope_fits(M, D->A->ctx, l, D->n_global, D->nnz_global);
}

/* The coarse solve x = N(b): b gathered onto rank 0 (its own rows first,
 * then the others' in rank order), the nested cycle there, the correction
 * sent back (the reverse exchange adds into a zeroed x). Collective. */
static ng_status tel_apply(void *data, double alpha, const double *b, double beta, double *x)
{
  telescope *T = data;
  ng_context ctx = T->ctx;
  int root = ctx->rank == 0;
  if (alpha != 1.0 || beta != 0.0)
    return NG_ERROR(NG_ERR_INTERNAL, "AMG: the gathered coarse solve computes x = N b only");
  if (T->gp) NG_CHECK(ng_halo_gather_run(T->gp, b, root ? T->gb + T->n0 : NULL));
  if (root && T->n0) NG_CHECK(ctx->vops->copy(ctx, T->n0, b, T->gb));
  /* rank 0 sends the correction back even when its cycle failed: the
   * others wait in that exchange */
  ng_status st = T->N ? T->N->ops->apply(T->N, T->gb, T->gx) : NG_SUCCESS;
  ng_status s2 = NG_SUCCESS;
  if (!root && T->nl) s2 = ctx->vops->fill(ctx, T->nl, 0.0, x);
  if (!s2 && T->sp) s2 = ng_halo_reverse_begin(T->sp, root ? T->gx + T->n0 : x);
  if (!s2 && T->sp) s2 = ng_halo_reverse_end(T->sp, T->gp, x);
  if (!s2 && root && T->n0) s2 = ctx->vops->copy(ctx, T->n0, T->gx, x);
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
  ng_matrix_gatherer_destroy(T->mg);
  ng_free(T->val);
  ng_halo_reverse_destroy(T->sp);
  ng_halo_plan_destroy(T->gp);
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

/* The gather onto rank 0 and its reverse (comm/halo_gather.c): plain
 * plans from the ranks' row ranges, no matrix. */
static ng_status plans(telescope *T, ng_matrix A)
{
  ng_context ctx = A->ctx;
  int64_t *starts = NULL;
  ng_status st = ng_comm_agree(ctx, NG_MALLOC(starts, ctx->size + 1));
  if (!st) st = ng_comm_starts(ctx, A->n_local, starts);
  if (!st) {
    T->n0 = (int32_t)starts[1];
    T->nl = A->n_local;
  }
  st = ng_halo_gather_create(ctx, st, starts, ctx->rank == 0 ? T->gb + T->n0 : NULL, &T->gp); /* agreed there */
  if (!st) st = ng_halo_reverse_create(ctx, st, T->gp, &T->sp);
  ng_free(starts);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

/* Rank 0: the one-rank AMG on the gathered matrix T->A1, with the
 * hierarchy's options (no -amg_view of its own: ng_amg_dist_describe
 * prints it with the rest). Its finest level is a coarse level of the
 * whole hierarchy, not the user's matrix: -amg_fine_format (the finest
 * level's copy, "auto" a dia_half one on a one-rank GPU) does not apply:
 * the gathered level is the matrix itself, as every coarse level. Trying
 * dia_half and dia on lap27:256's gathered level 1 (355,652 rows) took
 * 4.1 ms a setup on 2 H200s (NG_AMG_TRACE's "fine table"). */
static ng_status nested_setup(telescope *T, ng_amg *M)
{
  ng_options o = NULL;
  double tt = ng_wtime();
  ng_status st = ng_options_copy(M->opts, &o);
  if (!st) st = ng_options_set(o, "amg_view", "0");
  if (!st) st = ng_options_set(o, "amg_fine_format", "matrix");
  if (!st) st = ng_precond_create(T->sub, o, T->A1, &T->N);
  ng_amg_trace(T->sub, "telescope: the one-rank AMG", 0, &tt);
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
  if (ng_amg_trace_on()) { /* the slowest rank's lead apart from the gather */
    st = ng_comm_agree(ctx, st);
    ng_amg_dist_trace(ctx, "telescope: the ranks met", &tt);
  }
  ng_matrix_gatherer *mg = NULL;
  if (!st && ctx->rank == 0) st = ng_context_create_self(ctx, &T->sub);
  st = ng_matrix_gatherer_create(A, st, &mg); /* agreed there */
  if (T) T->mg = mg;
  ng_amg_dist_trace(ctx, "telescope: the entries' merge order and gather plan", &tt);
  if (!st && ng_matrix_gatherer_on_device(mg)) { /* GPUs: the gathered CSR made on rank 0's device */
    st = ng_matrix_gather_device(mg, A, st, T->sub, &T->A1);
  } else if (!st) {
    st = ng_matrix_gather_csr_with(mg, A, st, &W);
    if (!st && ctx->rank == 0) st = ng_matrix_adopt_built(T->sub, &W, &T->A1);
  }
  ng_amg_dist_trace(ctx, "telescope: the level gathered onto rank 0", &tt);
  if (!st && ctx->rank == 0) st = nested_setup(T, M);
  ng_csr_free(&W);
  st = ng_comm_agree(ctx, st);
  ng_amg_dist_trace(ctx, "telescope: the one-rank AMG on rank 0", &tt);
  if (!st) st = plans(T, A); /* agreed there */
  ng_amg_dist_trace(ctx, "telescope: the gather plan and its reverse", &tt);
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
  ng_matrix A = ((ng_amg_dlevel *)M->dist)[l].A;
  int dev = ng_matrix_gatherer_on_device(T->mg);
  ng_status st = ctx->rank == 0 && !dev && !T->val ? NG_MALLOC(T->val, T->nnz ? T->nnz : 1) : NG_SUCCESS;
  st = ng_comm_agree(ctx, st);
  /* the level's pattern is the setup's (the distributed levels' update
   * keeps theirs): its values alone, in the gathered CSR's order (on the
   * device straight into the matrix's device CSR) */
  if (!st && dev) st = ng_matrix_gather_values_device(T->mg, A, T->A1);
  if (!st && !dev) st = ng_matrix_gather_values(T->mg, A, T->val);
  if (!st && !dev && ctx->rank == 0) st = ng_matrix_update_values(T->A1, T->val);
  if (!st && ctx->rank == 0) st = ng_precond_update(T->N, T->A1);
  NG_CHECK(ng_comm_agree(ctx, st));
  return NG_SUCCESS;
}

double ng_amg_telescope_comm_seconds(const ng_amg *M)
{
  const telescope *T = M->telescope;
  double s = 0.0;
  if (T && T->gp) s += T->gp->comm_seconds;
  if (T && T->sp) s += T->sp->comm_seconds;
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
