/* dist/matrix_gather.c: a distributed square matrix gathered onto rank 0 as
 * one CSR over global columns, each row sorted: the coarse levels that the
 * AMG moves onto one rank (amg/amg_dist_telescope.c). The ranks own
 * contiguous row ranges in rank order, so their rows received in rank order
 * are the global rows in order.
 *
 * The rows' lengths go through MPI (one int64 a row); the entries, the bulk,
 * through a gather plan over entries (comm/halo_gather.c), so on GPUs they
 * move device to device through the matrix transport (NVLink with ipc):
 * a host MPI gather of lap27:256's 8.3M-entry level 1 onto rank 0 took
 * 55 ms on 4 H100s, at 1.8 GB/s. The columns travel as doubles (integers
 * below 2^53 are exact), so that one plan serves both passes, and an update
 * sends the values alone (ng_matrix_gather_values). On GPU contexts the
 * rows are merged on each rank's device (matrix_gather_cuda.cu) and rank 0
 * can keep the result there: ng_matrix_gather_device. */
#include "dist.h"
#include "../comm/halo.h"

struct ng_matrix_gatherer {
  ng_context ctx;
  int64_t nnz;                /* this rank's entries */
  int64_t *src;               /* merged order: >= 0 the local block's entry, < 0 the off-rank block's -1 - src */
  struct ng_halo_plan *plan;  /* the entries onto rank 0 (NULL: nothing moves here) */
  double *dsend, *drecv;      /* context memory: this rank's entries; rank 0: the others' */
  double *stage;              /* host, ranks other than 0: this rank's entries */
  int64_t nnz0, total;        /* rank 0's entries, all */
  ng_gather_dev *dev;         /* GPU contexts: the rows merged on the device (src unused); NULL: on the host */
};

void ng_matrix_gatherer_destroy(ng_matrix_gatherer *g)
{
  if (!g) return;
  ng_context ctx = g->ctx;
  ng_halo_plan_destroy(g->plan);
  if (g->dsend) ctx->vops->free(ctx, g->dsend);
  if (g->drecv) ctx->vops->free(ctx, g->drecv);
  ng_free(g->src);
  ng_free(g->stage);
#ifdef NG_HAVE_CUDA
  ng_gather_dev_destroy(g->dev);
#endif
  ng_free(g);
}

int ng_matrix_gatherer_on_device(const ng_matrix_gatherer *g) { return g && g->dev; }

/* On a GPU context every rank's rows merge on its device when every
 * rank's blocks are in column order (agreed: one path for all, the same
 * collective on every rank whatever st); else, and on the host, the merge
 * order src. g may be NULL only where st failed. */
static ng_status merge_order(ng_matrix A, ng_matrix_gatherer *g, ng_status st)
{
#ifdef NG_HAVE_CUDA
  ng_context ctx = A->ctx;
  if (ctx->on_gpu) {
    double bad = 1.0;
    int ok = 0;
    if (!st) st = ng_gather_dev_create(A, &g->dev, &ok);
    bad = ok ? 0.0 : 1.0;
    st = ng_comm_agree_sum(ctx, st, &bad, 1);
    if (!st && bad > 0.0) {
      ng_gather_dev_destroy(g->dev);
      g->dev = NULL;
    }
  }
#endif
  /* the host merge reads the blocks' columns: a device-only block's first */
  if (!st && !g->dev) st = ng_matrix_host_current(A);
  if (!st && !g->dev) st = NG_MALLOC(g->src, g->nnz ? g->nnz : 1);
  for (int32_t i = 0; !st && !g->dev && i < A->n_local; i++) /* merged row i starts where the two blocks' rows i start together */
    ng_matrix_merged_row(A, i, g->src + A->local.rowptr[i] + (A->n_halo ? A->offrank.rowptr[i] : 0));
  return st;
}

ng_status ng_matrix_gatherer_create(ng_matrix A, ng_status st, ng_matrix_gatherer **out)
{
  ng_context ctx = A->ctx;
  int size = ctx->size, root = ctx->rank == 0;
  int64_t nnz = A->local.nnz + (A->n_halo ? A->offrank.nnz : 0), *starts = NULL;
  ng_matrix_gatherer *g = NULL;
  *out = NULL;
  if (!st && (A->n_global != A->n_col_global || A->n_global > INT32_MAX || nnz > INT32_MAX))
    st = NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_gather: a square matrix of at most 2^31 rows and entries a rank "
                  "(%lld x %lld, %lld entries here)", (long long)A->n_global, (long long)A->n_col_global,
                  (long long)nnz);
  if (!st) st = NG_CALLOC(g, 1);
  if (!st) {
    g->ctx = ctx;
    g->nnz = nnz;
  }
  if (!st) st = NG_MALLOC(starts, size + 1);
  st = merge_order(A, g, st); /* g is NULL only where st failed */
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_comm_starts(ctx, (int32_t)nnz, starts);
  if (!st) {
    g->nnz0 = starts[1];
    g->total = starts[size];
    int64_t got = root ? g->total - g->nnz0 : 0;
    if (g->total - g->nnz0 > INT32_MAX)
      st = NG_ERROR(NG_ERR_UNSUPPORTED, "gathering %lld entries onto rank 0 exceeds int32", (long long)g->total);
    if (!st && !root && !g->dev) st = NG_MALLOC(g->stage, nnz ? nnz : 1); /* rank 0 writes its own straight into the result */
    /* rank 0 merges on the device into dsend too (its own entries) */
    if (!st && (!root || g->dev) && nnz) st = ctx->vops->alloc(ctx, &g->dsend, (int32_t)nnz);
    if (!st && got) st = ctx->vops->alloc(ctx, &g->drecv, (int32_t)got);
  }
  struct ng_halo_plan *plan = NULL;
  st = ng_halo_gather_create(ctx, st, starts, g ? g->drecv : NULL, &plan); /* agreed there */
  if (g) g->plan = plan;
  ng_free(starts);
  if (st) {
    ng_matrix_gatherer_destroy(g);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *out = g;
  return NG_SUCCESS;
}

/* One pass: this rank's entries (columns as doubles, or values) in merged
 * order onto rank 0, where out[0, total) receives all of them. Collective. */
static ng_status gather_pass(ng_matrix_gatherer *g, ng_matrix A, int cols, double *out)
{
  ng_context ctx = g->ctx;
  int root = ctx->rank == 0;
  double *mine = root ? out : g->stage;
  ng_status st = g->dev ? NG_SUCCESS : ng_matrix_host_current(A); /* the host merge reads its values */
#ifdef NG_HAVE_CUDA
  if (g->dev && g->nnz) st = ng_gather_dev_fill(g->dev, A, cols, g->dsend);
  if (!st && g->dev && root && g->nnz) st = ctx->vops->download(ctx, out, g->dsend, (int32_t)g->nnz);
#endif
  for (int64_t k = 0; !g->dev && k < g->nnz; k++) {
    int64_t s = g->src[k];
    mine[k] = cols ? (double)ng_matrix_entry_gcol(A, s) : ng_matrix_entry_val(A, s);
  }
  if (!st && !root && g->nnz && !g->dev) st = ctx->vops->upload(ctx, g->dsend, g->stage, (int32_t)g->nnz);
  st = ng_comm_agree(ctx, st);
  if (!st && g->plan) st = ng_halo_gather_run(g->plan, g->dsend, g->drecv);
  if (!st && root && g->total > g->nnz0)
    st = ctx->vops->download(ctx, out + g->nnz0, g->drecv, (int32_t)(g->total - g->nnz0));
  NG_CHECK(ng_comm_agree(ctx, st));
  return NG_SUCCESS;
}

ng_status ng_matrix_gather_values(ng_matrix_gatherer *g, ng_matrix A, double *val)
{
  /* the merge order indexes A's blocks as they were: a matrix of another
   * size fails here (agreed), not past their ends */
  int64_t nnz = A->local.nnz + (A->n_halo ? A->offrank.nnz : 0);
  ng_status st = nnz == g->nnz ? NG_SUCCESS
                               : NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_gather_values: the matrix has %lld entries "
                                          "here, the gatherer was made for %lld", (long long)nnz, (long long)g->nnz);
  NG_CHECK(ng_comm_agree(g->ctx, st));
  NG_CHECK(gather_pass(g, A, 0, val));
  return NG_SUCCESS;
}

/* The rows' lengths onto rank 0 (MPI: one int64 a row) as W's row pointers. */
static ng_status gather_rowptr(ng_matrix A, ng_status st, ng_csr *W)
{
  ng_context ctx = A->ctx;
  int size = ctx->size, root = ctx->rank == 0;
  int32_t n = A->n_local;
  int64_t *len = NULL, *cnt = NULL;
  if (!st) st = NG_CALLOC(cnt, 2 * (size_t)size);
  if (!st) st = NG_MALLOC(len, n ? n : 1);
  for (int32_t i = 0; !st && i < n; i++)
    len[i] = A->local.rowptr[i + 1] - A->local.rowptr[i] + (A->n_halo ? A->offrank.rowptr[i + 1] - A->offrank.rowptr[i] : 0);
  if (!st && root) st = ng_csr_alloc(W, (int32_t)A->n_global, (int32_t)A->n_global, 0);
  if (!st) cnt[0] = n;
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_comm_alltoall_counts(ctx, cnt, cnt + size);
  st = ng_comm_alltoallv(ctx, st, len, cnt, root ? W->rowptr + 1 : NULL, cnt + size, sizeof(int64_t));
  if (!st && root) {
    W->rowptr[0] = 0;
    for (int64_t i = 0; i < A->n_global; i++) W->rowptr[i + 1] += W->rowptr[i];
  }
  ng_free(cnt);
  ng_free(len);
  return st;
}

ng_status ng_matrix_gather_csr_with(ng_matrix_gatherer *g, ng_matrix A, ng_status st, ng_csr *W)
{
  ng_context ctx = A->ctx;
  int root = ctx->rank == 0;
  double *c = NULL;
  memset(W, 0, sizeof(*W));
  st = gather_rowptr(A, st, W);
  if (!st && root) {
    W->nnz = g->total;
    if (W->rowptr[A->n_global] != g->total)
      st = NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_gather: %lld entries in the rows, %lld gathered",
                    (long long)W->rowptr[A->n_global], (long long)g->total);
    ng_free(W->col);
    ng_free(W->val);
    W->col = NULL;
    W->val = NULL;
    if (!st) st = NG_MALLOC(W->col, W->nnz ? W->nnz : 1);
    if (!st) st = NG_MALLOC(W->val, W->nnz ? W->nnz : 1);
    if (!st) st = NG_MALLOC(c, W->nnz ? W->nnz : 1);
  }
  st = ng_comm_agree(ctx, st);
  if (!st) st = gather_pass(g, A, 1, c);
  for (int64_t p = 0; !st && root && p < W->nnz; p++) W->col[p] = (int32_t)c[p];
  ng_free(c);
  if (!st) st = gather_pass(g, A, 0, W->val);
  if (st) ng_csr_free(W);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

ng_status ng_matrix_gather_csr(ng_matrix A, ng_status st, ng_csr *W)
{
  ng_matrix_gatherer *g = NULL;
  memset(W, 0, sizeof(*W));
  st = ng_matrix_gatherer_create(A, st, &g); /* agreed there */
  if (!st) st = ng_matrix_gather_csr_with(g, A, st, W);
  ng_matrix_gatherer_destroy(g);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

#ifdef NG_HAVE_CUDA
/* The device passes: every rank's entries leave its device (rank 0 writes
 * its own straight into the gathered CSR, col and val), the others' land
 * in rank 0's drecv and are copied (columns converted) into place. */
static ng_status device_pass(ng_matrix_gatherer *g, ng_matrix A, ng_status st, int cols, int32_t *col, double *val)
{
  ng_context ctx = g->ctx;
  int root = ctx->rank == 0;
  int64_t others = g->total - g->nnz0;
  if (!st && g->nnz && (!root || !col)) st = ng_gather_dev_fill(g->dev, A, cols, root ? val : g->dsend);
  if (!st && g->nnz && root && col) st = ng_gather_dev_fill_csr(g->dev, A, col, val);
  st = ng_comm_agree(ctx, st);
  if (!st && g->plan) st = ng_halo_gather_run(g->plan, g->dsend, g->drecv);
  if (!st && root && others && cols) st = ng_gather_dev_cols(ctx, others, g->drecv, col + g->nnz0);
  if (!st && root && others && !cols) st = ctx->vops->copy(ctx, (int32_t)others, g->drecv, val + g->nnz0);
  NG_CHECK(ng_comm_agree(ctx, st));
  return NG_SUCCESS;
}

ng_status ng_matrix_gather_device(ng_matrix_gatherer *g, ng_matrix A, ng_status st, ng_context sub, ng_matrix *A1)
{
  ng_context ctx = A->ctx;
  int root = ctx->rank == 0;
  ng_csr W = {0};
  int32_t *rp = NULL, *col = NULL;
  double *val = NULL;
  void *data = NULL;
  *A1 = NULL;
  if (!st && !g->dev) st = NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_gather_device: the gatherer merges on the host");
  st = gather_rowptr(A, st, &W);
  if (!st && root && W.rowptr[A->n_global] != g->total)
    st = NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_gather: %lld entries in the rows, %lld gathered",
                  (long long)W.rowptr[A->n_global], (long long)g->total);
  if (!st && root) W.nnz = g->total;
  if (!st && root) st = ng_gather_dev_alloc_csr(ctx, W.rowptr, (int32_t)A->n_global, g->total, &rp, &col, &val);
  st = ng_comm_agree(ctx, st);
  /* the columns (rank 0's own with its values), then the others' values */
  if (!st) st = device_pass(g, A, st, 1, col, val);
  if (!st) st = device_pass(g, A, st, 0, NULL, val);
  if (!st && root) {
    st = ng_csr_cuda_adopt(sub, (int32_t)A->n_global, (int32_t)A->n_global, g->total, rp, col, val, &data);
    if (!st) rp = col = NULL, val = NULL; /* the table's now */
    if (!st) st = ng_matrix_adopt_device(sub, &W, ng_spmv_find("csr", 1), data, A1); /* takes W and the table */
  }
  ng_gather_dev_free_csr(rp, col, val);
  ng_csr_free(&W);
  NG_CHECK(ng_comm_agree(ctx, st));
  return NG_SUCCESS;
}

ng_status ng_matrix_gather_values_device(ng_matrix_gatherer *g, ng_matrix A, ng_matrix A1)
{
  ng_context ctx = g->ctx;
  int root = ctx->rank == 0;
  int32_t *rp = NULL, *col = NULL;
  double *val = NULL;
  int64_t nnz = A->local.nnz + (A->n_halo ? A->offrank.nnz : 0);
  ng_status st = nnz == g->nnz && g->dev ? NG_SUCCESS
                                         : NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_gather_values_device: %lld entries "
                                                    "here, the gatherer was made for %lld on the %s", (long long)nnz,
                                                    (long long)g->nnz, g->dev ? "device" : "host");
  if (!st && root) st = ng_csr_cuda_arrays(A1->spmv, A1->spmv_data, &rp, &col, &val);
  NG_CHECK(ng_comm_agree(ctx, st));
  NG_CHECK(device_pass(g, A, st, 0, NULL, val));
  if (root) A1->host_stale = A1->host_stale ? A1->host_stale : 1; /* the device's values are newer */
  return NG_SUCCESS;
}
#else
ng_status ng_matrix_gather_device(ng_matrix_gatherer *g, ng_matrix A, ng_status st, ng_context sub, ng_matrix *A1)
{
  (void)g; (void)sub;
  *A1 = NULL;
  NG_CHECK(ng_comm_agree(A->ctx, st ? st : NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_gather_device: a build without CUDA")));
  return NG_SUCCESS;
}
ng_status ng_matrix_gather_values_device(ng_matrix_gatherer *g, ng_matrix A, ng_matrix A1)
{
  (void)A; (void)A1;
  NG_CHECK(ng_comm_agree(g->ctx, NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_gather_values_device: a build without CUDA")));
  return NG_SUCCESS;
}
#endif
