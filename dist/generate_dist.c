/* dist/generate_dist.c: ng_matrix_generate over ranks. Grid problems are cut
 * into slabs of whole z-planes (natural order: a slab is a contiguous row
 * range whose halo is one plane each side).
 *  - lap7, lap27, aniso27: each rank generates ONLY its slab, as the same
 *    stencil on the sub-grid of its planes plus one ghost plane each side,
 *    and keeps the slab's rows (columns shifted to global numbering). The
 *    stencil is truncated only at the box, so these rows, and their row-sum
 *    right-hand side, are bitwise those of the whole grid.
 *  - fem27 (its Dirichlet face and element assembly make sub-grids differ)
 *    and mps (not a grid): rank 0 generates the whole problem and scatters
 *    the rows (slabs for fem27, nnz-balanced blocks for mps) and b.
 * One rank: the whole problem, as before. */
#include "dist.h"
#include "../comm/halo.h"
#include "../core/generate.h"

typedef ng_status (*stencil_fn)(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b);

/* The stencil generator for a "name:..." spec, or NULL. */
static stencil_fn stencil_of(const char *spec)
{
  static const struct { const char *name; stencil_fn fn; } t[] = {
    {"lap7:", ng_gen_lap7}, {"lap27:", ng_gen_lap27}, {"aniso27:", ng_gen_aniso27}};
  for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
    if (!strncmp(spec, t[k].name, strlen(t[k].name))) return t[k].fn;
  return NULL;
}

/* The slab's rows of W (n rows from row off; W's column q is global column
 * gfirst + q) split in place: the local entries move to the front of W's
 * arrays, which become the local block (*L, W's arrays taken over; a
 * row's entries are written at or before where they were read, so one
 * ordered pass is safe), the off-rank ones (the ghost planes' columns,
 * a boundary's worth) go to orp/ogc/oval in global columns. */
static ng_status split_slab(ng_csr *W, int64_t off, int32_t n, int64_t gfirst, ng_csr *L, int64_t **orp,
                            int64_t **ogc, double **oval)
{
  int64_t p0 = W->rowptr[off], noff = 0, w = 0, k = 0;
  for (int64_t p = p0; p < W->rowptr[off + n]; p++) noff += W->col[p] < off || W->col[p] >= off + n;
  memset(L, 0, sizeof(*L));
  NG_CHECK(NG_MALLOC(*orp, (size_t)n + 1));
  NG_CHECK(NG_MALLOC(*ogc, noff ? noff : 1));
  NG_CHECK(NG_MALLOC(*oval, noff ? noff : 1));
  NG_CHECK(NG_MALLOC(L->rowptr, (size_t)n + 1));
  L->rowptr[0] = (*orp)[0] = 0;
  for (int32_t i = 0; i < n; i++) {
    for (int64_t p = W->rowptr[off + i]; p < W->rowptr[off + i + 1]; p++) {
      int32_t q = W->col[p];
      double v = W->val[p];
      if (q >= off && q < off + n) {
        W->col[w] = (int32_t)(q - off);
        W->val[w++] = v;
      } else {
        (*ogc)[k] = gfirst + q;
        (*oval)[k++] = v;
      }
    }
    L->rowptr[i + 1] = w;
    (*orp)[i + 1] = k;
  }
  L->nrows = L->ncols = n;
  L->nnz = w;
  L->col = W->col;
  L->val = W->val;
  W->col = NULL;
  W->val = NULL;
  /* the ghost rows' and off-rank entries' room given back: a refused
   * shrink keeps the larger arrays, which hold the same data */
  if (ng_host_realloc((void **)&L->col, (size_t)(w ? w : 1), sizeof(int32_t), "local block columns") ||
      ng_host_realloc((void **)&L->val, (size_t)(w ? w : 1), sizeof(double), "local block values"))
    ng_error_clear();
  return NG_SUCCESS;
}

/* Rank's slab [z0, z1) generated from planes [g0, g1) = [z0-1, z1+1) ∩ grid
 * and split in place (split_slab): the host holds the slab about once
 * (the generated CSR becomes the local block), where a copy of its
 * columns, the blocks and their value map made it about three times over
 * (lap27:800 on 4 ranks passed the node's 512 GB). */
static ng_status slab_stencil(ng_context ctx, stencil_fn fn, const int64_t dims[3], const int64_t *starts,
                              ng_matrix *A, double **rhs)
{
  int64_t nxy = dims[0] * dims[1], b = starts[ctx->rank], e = starts[ctx->rank + 1];
  int64_t z0 = b / nxy, z1 = e / nxy, n = nxy * dims[2];
  ng_csr W = {0, 0, 0, NULL, NULL, NULL}, L = {0, 0, 0, NULL, NULL, NULL};
  int64_t *orp = NULL, *ogc = NULL;
  double *wb = NULL, *oval = NULL;
  ng_status st = NG_SUCCESS;
  *rhs = NULL;
  if (z1 > z0) {
    int64_t g0 = z0 > 0 ? z0 - 1 : 0, g1 = z1 < dims[2] ? z1 + 1 : dims[2];
    st = fn((int32_t)dims[0], (int32_t)dims[1], (int32_t)(g1 - g0), &W, &wb);
    int64_t off = (z0 - g0) * nxy; /* first slab row inside W */
    if (!st) st = NG_MALLOC(*rhs, e - b);
    if (!st) memcpy(*rhs, wb + off, (size_t)(e - b) * sizeof(double));
    ng_free(wb);
    if (!st) st = split_slab(&W, off, (int32_t)(e - b), g0 * nxy, &L, &orp, &ogc, &oval);
    ng_csr_free(&W);
  } else { /* no rows: empty blocks */
    st = ng_csr_alloc(&L, 0, 0, 0);
    if (!st) st = NG_CALLOC(orp, 1);
    if (!st) st = NG_MALLOC(ogc, 1);
    if (!st) st = NG_MALLOC(oval, 1);
  }
  NG_CHECK_GOTO(st, ng_matrix_adopt_blocks(ctx, st, n, b, &L, orp, ogc, oval, A), done); /* agreed there */
done:
  ng_csr_free(&W);
  ng_csr_free(&L);
  ng_free(orp);
  ng_free(ogc);
  ng_free(oval);
  return st;
}

/* Rank 0 generates, everyone gets its rows and its part of b. */
static ng_status from_rank0(ng_context ctx, const char *spec, const int64_t dims_or_null[3], ng_matrix *A,
                            double **rhs)
{
  ng_csr W = {0, 0, 0, NULL, NULL, NULL};
  double *wb = NULL, *v = NULL;
  int64_t *starts = NULL, *rp = NULL, *g = NULL;
  ng_status st = NG_MALLOC(starts, ctx->size + 1);
  *rhs = NULL;
  if (!st && ctx->rank == 0) {
    st = ng_generate_csr(spec, &W, &wb);
    if (!st && dims_or_null && dims_or_null[0] * dims_or_null[1] * dims_or_null[2] == W.nrows)
      ng_partition_slabs(dims_or_null[0] * dims_or_null[1], dims_or_null[2], ctx->size, starts);
    else if (!st)
      st = ng_partition_rows_by_nnz(ctx, &W, starts);
  }
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), done);
  NG_CHECK_GOTO(st, ng_comm_bcast_int64(ctx, starts, ctx->size + 1), done);
  NG_CHECK_GOTO(st, ng_distribute_csr(ctx, &W, starts, &rp, &g, &v), done);
  st = NG_MALLOC(*rhs, starts[ctx->rank + 1] - starts[ctx->rank]);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), done);
  NG_CHECK_GOTO(st, ng_distribute_values(ctx, wb, starts, *rhs), done);
  NG_CHECK_GOTO(st, ng_matrix_create_distributed(ctx, starts[ctx->size], starts[ctx->rank], starts[ctx->rank + 1],
                                                 rp, g, v, A), done);
done:
  ng_csr_free(&W);
  ng_free(wb);
  ng_free(starts);
  ng_free(rp);
  ng_free(g);
  ng_free(v);
  return st;
}

/* Whole problem on a single rank: the generated CSR becomes the matrix's
 * local block without a copy (ng_matrix_adopt_local), so the host holds
 * lap27:432 (2.17e9 entries, 26 GB) once, not three times over. */
static ng_status whole(ng_context ctx, const char *spec, ng_matrix *A, double **rhs)
{
  ng_csr W;
  NG_CHECK(ng_generate_csr(spec, &W, rhs));
  NG_CHECK(ng_matrix_adopt_local(ctx, &W, A));
  return NG_SUCCESS;
}

ng_status ng_matrix_generate(ng_context ctx, const char *spec, ng_matrix *A, ng_vector *b)
{
  double *rhs = NULL;
  int64_t dims[3], *starts = NULL;
  ng_status st;
  NG_ASSERT_ARG(ctx && spec && A, "ng_matrix_generate: null argument");
  *A = NULL;
  if (b) *b = NULL;
  int grid = ng_partition_spec_grid(spec, dims);
  stencil_fn fn = grid ? stencil_of(spec) : NULL;
  if (ctx->size == 1) {
    st = whole(ctx, spec, A, &rhs);
  } else if (fn && dims[0] * dims[1] <= INT32_MAX && dims[0] * dims[1] * dims[2] <= INT32_MAX) {
    st = NG_MALLOC(starts, ctx->size + 1);
    NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), done);
    ng_partition_slabs(dims[0] * dims[1], dims[2], ctx->size, starts);
    st = slab_stencil(ctx, fn, dims, starts, A, &rhs);
  } else {
    /* fem27, mps, and every spec the generator must judge (its message) */
    st = from_rank0(ctx, spec, grid ? dims : NULL, A, &rhs);
  }
  NG_CHECK_GOTO(st, st, done);
  if (b) {
    st = ng_vector_create(*A, b);
    if (!st) st = ng_vector_set_values(*b, rhs);
    NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), done);
  }
done:
  if (st != NG_SUCCESS) {
    if (b && *b) ng_vector_destroy(*b);
    if (b) *b = NULL;
    ng_matrix_destroy(*A);
    *A = NULL;
  }
  ng_free(rhs);
  ng_free(starts);
  return st;
}
