/* dist/generate_dist.c: ng_matrix_generate over ranks. Grid problems are cut
 * into slabs of whole z-planes (natural order: a slab is a contiguous row
 * range whose halo is one plane each side).
 *  - lap7, lap27, aniso27: each rank generates ONLY its slab's rows,
 *    straight into its local block and the off-rank entries of the ghost
 *    planes (ng_gen_stencil_slab). The stencil is truncated only at the
 *    box, so these rows, and their row-sum right-hand side, are bitwise
 *    those of the whole grid.
 *  - fem27 (its Dirichlet face and element assembly make sub-grids differ)
 *    and mps (not a grid): rank 0 generates the whole problem and scatters
 *    the rows (slabs for fem27, nnz-balanced blocks for mps) and b.
 * One rank: the whole problem, as before. */
#include "dist.h"
#include "../comm/halo.h"
#include "../core/generate.h"

/* Rank's slab [z0, z1): its rows generated straight into its two blocks
 * (ng_gen_stencil_slab: the local block, the off-rank entries of the
 * ghost planes), in parallel by planes: the host holds the slab once
 * (lap27:800 on 4 ranks: a generated CSR, a copy of its columns, the
 * blocks and their value map passed the node's 512 GB; then an in-place
 * split, one ordered pass, took most of the 75.6 s of -problem). */
static ng_status slab_stencil(ng_context ctx, const double c[27], const int64_t dims[3], const int64_t *starts,
                              ng_matrix *A, double **rhs)
{
  int64_t nxy = dims[0] * dims[1], b = starts[ctx->rank], e = starts[ctx->rank + 1];
  int64_t z0 = b / nxy, z1 = e / nxy, n = nxy * dims[2];
  ng_csr L = {0, 0, 0, NULL, NULL, NULL};
  int64_t *orp = NULL, *ogc = NULL;
  double *oval = NULL;
  ng_status st = ng_gen_stencil_slab(c, (int32_t)dims[0], (int32_t)dims[1], (int32_t)dims[2], (int32_t)z0,
                                     (int32_t)z1, &L, &orp, &ogc, &oval, rhs);
  NG_CHECK_GOTO(st, ng_matrix_adopt_blocks(ctx, st, n, b, &L, orp, ogc, oval, A), done); /* agreed there */
done:
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
  double c[27];
  int stencil = grid && ng_gen_stencil_coeffs(spec, c);
  if (ctx->size == 1) {
    st = whole(ctx, spec, A, &rhs);
  } else if (stencil && dims[0] * dims[1] <= INT32_MAX && dims[0] * dims[1] * dims[2] <= INT32_MAX) {
    st = NG_MALLOC(starts, ctx->size + 1);
    NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), done);
    ng_partition_slabs(dims[0] * dims[1], dims[2], ctx->size, starts);
    st = slab_stencil(ctx, c, dims, starts, A, &rhs);
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
