/* comm/distribute.c: collective helpers for building distributed objects:
 * agreeing on failure (so that a rank that fails never leaves the others
 * waiting in a collective), checking that per-rank row ranges tile the
 * matrix, and scattering a whole matrix or vector held on rank 0. */
#include "halo.h"
#include "comm_mpi.h"

#ifdef NG_HAVE_MPI
#include <limits.h>

ng_status ng_comm_agree(ng_context ctx, ng_status st) { return ng_comm_agree_min(ctx, st, NULL, 0); }

/* The failures are counted in the SUM that the caller's values take; only
 * when some rank failed (every rank sees the count) does the plain
 * agreement follow, to name the lowest failing rank and pass its message. */
ng_status ng_comm_agree_sum(ng_context ctx, ng_status st, double *values, int n)
{
  if (ctx->size == 1) return st;
  double buf[1 + NG_AGREE_MIN_MAX];
  if (n < 0 || n > NG_AGREE_MIN_MAX) return NG_ERROR(NG_ERR_INTERNAL, "ng_comm_agree_sum: %d values", n);
  buf[0] = st != NG_SUCCESS;
  for (int k = 0; k < n; k++) buf[1 + k] = values[k];
  NG_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, buf, 1 + n, MPI_DOUBLE, MPI_SUM, ctx->comm->comm));
  for (int k = 0; k < n; k++) values[k] = buf[1 + k];
  if (buf[0] == 0) return NG_SUCCESS;
  return ng_comm_agree(ctx, st); /* the failure path: who failed, and why */
}

/* The agreement is a MIN over the failing ranks (a failed rank gives its
 * number, the others size); the caller's n values ride along in the same
 * MPI_Allreduce. */
ng_status ng_comm_agree_min(ng_context ctx, ng_status st, int *values, int n)
{
  if (ctx->size == 1) return st;
  int buf[1 + NG_AGREE_MIN_MAX], first;
  if (n < 0 || n > NG_AGREE_MIN_MAX) return NG_ERROR(NG_ERR_INTERNAL, "ng_comm_agree_min: %d values", n);
  buf[0] = st != NG_SUCCESS ? ctx->rank : ctx->size;
  for (int k = 0; k < n; k++) buf[1 + k] = values[k];
  NG_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, buf, 1 + n, MPI_INT, MPI_MIN, ctx->comm->comm));
  for (int k = 0; k < n; k++) values[k] = buf[1 + k];
  first = buf[0];
  if (first == ctx->size) return NG_SUCCESS;
  /* the lowest failing rank tells everyone its status and message */
  char msg[1024];
  int code = (int)st;
  if (ctx->rank == first) snprintf(msg, sizeof(msg), "%s", ng_last_error());
  NG_MPI_CHECK(MPI_Bcast(&code, 1, MPI_INT, first, ctx->comm->comm));
  NG_MPI_CHECK(MPI_Bcast(msg, (int)sizeof(msg), MPI_CHAR, first, ctx->comm->comm));
  msg[sizeof(msg) - 1] = '\0';
  if (st != NG_SUCCESS) return st; /* keep this rank's own message */
  return NG_ERROR((ng_status)code, "rank %d failed: %s", first, msg);
}

/* One range's verdict from the gathered triples (stride 6: rows, then
 * columns): the same on every rank. */
static ng_status check_gathered(int size, const int64_t *all, int64_t n_global)
{
  ng_status st = NG_SUCCESS;
  for (int r = 0; r < size && st == NG_SUCCESS; r++) {
    int64_t n = all[6 * r], b = all[6 * r + 1], e = all[6 * r + 2];
    int64_t expect = r == 0 ? 0 : all[6 * (r - 1) + 2];
    if (n != all[0])
      st = NG_ERROR(NG_ERR_MPI, "ranks disagree on the matrix size: rank 0 gave n_global %lld, rank %d gave %lld",
                    (long long)all[0], r, (long long)n);
    else if (b != expect)
      st = NG_ERROR(NG_ERR_MPI,
                    "row ranges must tile 0..n_global-1 in rank order: rank %d starts at row %lld but %s %lld (%s)", r,
                    (long long)b, r == 0 ? "rank 0 must start at" : "the previous rank ends at", (long long)expect,
                    b < expect ? "overlap" : "gap");
    else if (e < b)
      st = NG_ERROR(NG_ERR_MPI, "rank %d gave an empty-reversed row range [%lld, %lld)", r, (long long)b, (long long)e);
  }
  if (st == NG_SUCCESS && all[6 * (size - 1) + 2] != n_global)
    st = NG_ERROR(NG_ERR_MPI, "row ranges end at row %lld but the matrix has %lld rows (%s)",
                  (long long)all[6 * (size - 1) + 2], (long long)n_global,
                  all[6 * (size - 1) + 2] < n_global ? "rows missing at the end" : "rows past the end");
  return st;
}

/* One agreement (st and the buffers) and one MPI_Allgather of the row and
 * column triples, where a rectangular matrix used to take two of each and
 * its halo plan a third gather of the column starts. */
ng_status ng_comm_check_ranges(ng_context ctx, ng_status st, int64_t n_global, int64_t row_begin, int64_t row_end,
                               int64_t n_col_global, int64_t col_begin, int64_t col_end, int64_t **col_starts)
{
  int size = ctx->size;
  int64_t mine[6] = {n_global, row_begin, row_end, n_col_global, col_begin, col_end}, *all = NULL;
  *col_starts = NULL;
  if (!st) st = NG_MALLOC(all, 6 * (size_t)size);
  if (!st) st = NG_MALLOC(*col_starts, (size_t)size + 1);
  st = ng_comm_agree(ctx, st); /* the gather is collective */
  if (st) {
    ng_free(all);
    ng_free(*col_starts);
    *col_starts = NULL;
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  int rc = MPI_Allgather(mine, 6, MPI_INT64_T, all, 6, MPI_INT64_T, ctx->comm->comm);
  if (rc != MPI_SUCCESS) st = NG_ERROR(NG_ERR_MPI, "MPI_Allgather of the row ranges failed");
  /* every rank checks the same gathered data: the same verdict everywhere */
  if (!st) st = check_gathered(size, all, n_global);
  if (!st) st = check_gathered(size, all + 3, n_col_global);
  if (!st) {
    for (int r = 0; r < size; r++) (*col_starts)[r] = all[6 * r + 4];
    (*col_starts)[size] = n_col_global;
  }
  ng_free(all);
  if (st) {
    ng_free(*col_starts);
    *col_starts = NULL;
  }
  return st;
}

/* counts/displacements of int64 ranges as MPI ints (refusing overflow). */
static ng_status mpi_counts(ng_context ctx, const int64_t *first, const int64_t *last, int *cnt, int *dsp)
{
  for (int r = 0; r < ctx->size; r++) {
    if (last[r] - first[r] > INT_MAX || first[r] > INT_MAX)
      return NG_ERROR(NG_ERR_UNSUPPORTED, "distributing from rank 0: block of rank %d (%lld entries at %lld) "
                      "exceeds MPI's int counts", r, (long long)(last[r] - first[r]), (long long)first[r]);
    cnt[r] = (int)(last[r] - first[r]);
    dsp[r] = (int)first[r];
  }
  return NG_SUCCESS;
}

ng_status ng_distribute_csr(ng_context ctx, const ng_csr *W, const int64_t *starts, int64_t **rowptr,
                            int64_t **gcol, double **val)
{
  int size = ctx->size, rank = ctx->rank, *cnt = NULL, *dsp = NULL, rc;
  int64_t *pfirst = NULL, nloc = starts[rank + 1] - starts[rank], nnz = 0;
  int32_t *col32 = NULL;
  ng_status st = NG_SUCCESS;
  MPI_Comm comm = ctx->comm->comm;
  *rowptr = *gcol = NULL;
  *val = NULL;
  st = NG_MALLOC(cnt, size);
  if (!st) st = NG_MALLOC(dsp, size);
  if (!st) st = NG_MALLOC(pfirst, size + 1);
  if (!st) st = NG_MALLOC(*rowptr, nloc + 1);
  if (!st && rank == 0)
    for (int r = 0; r <= size; r++) pfirst[r] = W->rowptr[starts[r]];
  if (!st && rank == 0) st = mpi_counts(ctx, starts, starts + 1, cnt, dsp);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), fail);
  /* row offsets: rank r gets rowptr[starts[r] .. starts[r+1]) and rebases */
  rc = MPI_Bcast(pfirst, size + 1, MPI_INT64_T, 0, comm);
  if (rc == MPI_SUCCESS)
    rc = MPI_Scatterv(rank == 0 ? W->rowptr : NULL, cnt, dsp, MPI_INT64_T, *rowptr, (int)nloc, MPI_INT64_T, 0, comm);
  if (rc != MPI_SUCCESS) {
    st = NG_ERROR(NG_ERR_MPI, "scattering row offsets from rank 0 failed");
    goto fail;
  }
  nnz = pfirst[rank + 1] - pfirst[rank];
  for (int64_t i = 0; i < nloc; i++) (*rowptr)[i] -= pfirst[rank];
  (*rowptr)[nloc] = nnz;
  st = mpi_counts(ctx, pfirst, pfirst + 1, cnt, dsp);
  if (!st) st = NG_MALLOC(col32, nnz);
  if (!st) st = NG_MALLOC(*gcol, nnz);
  if (!st) st = NG_MALLOC(*val, nnz);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), fail);
  rc = MPI_Scatterv(rank == 0 ? W->col : NULL, cnt, dsp, MPI_INT32_T, col32, (int)nnz, MPI_INT32_T, 0, comm);
  if (rc == MPI_SUCCESS)
    rc = MPI_Scatterv(rank == 0 ? W->val : NULL, cnt, dsp, MPI_DOUBLE, *val, (int)nnz, MPI_DOUBLE, 0, comm);
  if (rc != MPI_SUCCESS) {
    st = NG_ERROR(NG_ERR_MPI, "scattering columns and values from rank 0 failed");
    goto fail;
  }
  for (int64_t p = 0; p < nnz; p++) (*gcol)[p] = col32[p];
  goto done;
fail:
  ng_free(*rowptr);
  ng_free(*gcol);
  ng_free(*val);
  *rowptr = *gcol = NULL;
  *val = NULL;
done:
  ng_free(col32);
  ng_free(pfirst);
  ng_free(cnt);
  ng_free(dsp);
  return st;
}

/* Rank 0's whole vector x <-> every rank's block `mine` (rows starts[r] ..
 * starts[r+1]): one MPI_Scatterv (gather = 0) or MPI_Gatherv (gather = 1). */
static ng_status move_values(ng_context ctx, const int64_t *starts, double *x, double *mine, int gather)
{
  int *cnt = NULL, *dsp = NULL;
  ng_status st = NG_MALLOC(cnt, ctx->size);
  if (!st) st = NG_MALLOC(dsp, ctx->size);
  if (!st) st = mpi_counts(ctx, starts, starts + 1, cnt, dsp);
  st = ng_comm_agree(ctx, st);
  int rc = MPI_SUCCESS;
  if (!st) {
    int n = (int)(starts[ctx->rank + 1] - starts[ctx->rank]);
    rc = gather ? MPI_Gatherv(mine, n, MPI_DOUBLE, x, cnt, dsp, MPI_DOUBLE, 0, ctx->comm->comm)
                : MPI_Scatterv(ctx->rank == 0 ? x : NULL, cnt, dsp, MPI_DOUBLE, mine, n, MPI_DOUBLE, 0,
                               ctx->comm->comm);
  }
  ng_free(cnt);
  ng_free(dsp);
  if (st) return ng_error_trace(st, __FILE__, __LINE__);
  if (rc != MPI_SUCCESS)
    return NG_ERROR(NG_ERR_MPI, gather ? "MPI_Gatherv of a vector to rank 0 failed"
                                       : "MPI_Scatterv of a vector from rank 0 failed");
  return NG_SUCCESS;
}

ng_status ng_distribute_values(ng_context ctx, const double *x, const int64_t *starts, double *mine)
{
  return move_values(ctx, starts, (double *)x, mine, 0); /* x only read when scattering */
}
ng_status ng_comm_bcast_int64(ng_context ctx, int64_t *v, int n)
{
  NG_MPI_CHECK(MPI_Bcast(v, n, MPI_INT64_T, 0, ctx->comm->comm));
  return NG_SUCCESS;
}

ng_status ng_comm_starts(ng_context ctx, int32_t n_local, int64_t *starts)
{
  int64_t mine = n_local;
  NG_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT64_T, starts + 1, 1, MPI_INT64_T, ctx->comm->comm));
  starts[0] = 0;
  for (int r = 0; r < ctx->size; r++) starts[r + 1] += starts[r];
  return NG_SUCCESS;
}

ng_status ng_gather_values(ng_context ctx, const double *mine, const int64_t *starts, double *x)
{
  return move_values(ctx, starts, x, (double *)mine, 1); /* mine only read when gathering */
}

ng_status ng_comm_bcast_double(ng_context ctx, int root, double *x, int64_t n)
{
  if (n > INT_MAX) return NG_ERROR(NG_ERR_UNSUPPORTED, "broadcast of %lld values exceeds MPI's int counts", (long long)n);
  NG_MPI_CHECK(MPI_Bcast(x, (int)n, MPI_DOUBLE, root, ctx->comm->comm));
  return NG_SUCCESS;
}

ng_status ng_comm_allgather_blocks(ng_context ctx, double *x, const int64_t *starts)
{
  int cnt[ctx->size], dsp[ctx->size]; /* the same verdict on every rank: starts is */
  NG_CHECK(mpi_counts(ctx, starts, starts + 1, cnt, dsp));
  NG_MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x, cnt, dsp, MPI_DOUBLE, ctx->comm->comm));
  return NG_SUCCESS;
}

ng_status ng_comm_gather_blocks(ng_context ctx, int root, const double *mine, const int64_t *starts, double *x)
{
  int cnt[ctx->size], dsp[ctx->size]; /* the same verdict on every rank: starts is */
  NG_CHECK(mpi_counts(ctx, starts, starts + 1, cnt, dsp));
  NG_MPI_CHECK(MPI_Gatherv(mine, cnt[ctx->rank], MPI_DOUBLE, x, cnt, dsp, MPI_DOUBLE, root, ctx->comm->comm));
  return NG_SUCCESS;
}
#else
ng_status ng_comm_agree(ng_context ctx, ng_status st) { return st; }
ng_status ng_comm_agree_min(ng_context ctx, ng_status st, int *values, int n) { return st; }
ng_status ng_comm_agree_sum(ng_context ctx, ng_status st, double *values, int n) { return st; }
ng_status ng_comm_check_ranges(ng_context ctx, ng_status st, int64_t n_global, int64_t row_begin, int64_t row_end,
                               int64_t n_col_global, int64_t col_begin, int64_t col_end, int64_t **col_starts)
{
  *col_starts = NULL;
  if (st) return st;
  if (row_begin != 0 || row_end != n_global)
    return NG_ERROR(NG_ERR_ARGUMENT, "one rank must own all rows 0..%lld (gave [%lld, %lld))", (long long)n_global,
                    (long long)row_begin, (long long)row_end);
  if (col_begin != 0 || col_end != n_col_global)
    return NG_ERROR(NG_ERR_ARGUMENT, "one rank must own all rows 0..%lld (gave [%lld, %lld))", (long long)n_col_global,
                    (long long)col_begin, (long long)col_end);
  return NG_SUCCESS;
}
ng_status ng_distribute_csr(ng_context ctx, const ng_csr *W, const int64_t *starts, int64_t **rowptr,
                            int64_t **gcol, double **val)
{
  return NG_ERROR(NG_ERR_INTERNAL, "ng_distribute_csr needs MPI");
}
ng_status ng_distribute_values(ng_context ctx, const double *x, const int64_t *starts, double *mine)
{
  return NG_ERROR(NG_ERR_INTERNAL, "ng_distribute_values needs MPI");
}
ng_status ng_comm_bcast_int64(ng_context ctx, int64_t *v, int n) { return NG_SUCCESS; }
ng_status ng_comm_starts(ng_context ctx, int32_t n_local, int64_t *starts)
{
  starts[0] = 0;
  starts[1] = n_local;
  return NG_SUCCESS;
}
ng_status ng_gather_values(ng_context ctx, const double *mine, const int64_t *starts, double *x)
{
  return NG_ERROR(NG_ERR_INTERNAL, "ng_gather_values needs MPI");
}
/* one rank: its block is everything */
ng_status ng_comm_bcast_double(ng_context ctx, int root, double *x, int64_t n) { return NG_SUCCESS; }
ng_status ng_comm_allgather_blocks(ng_context ctx, double *x, const int64_t *starts) { return NG_SUCCESS; }
ng_status ng_comm_gather_blocks(ng_context ctx, int root, const double *mine, const int64_t *starts, double *x)
{
  if (starts[1] > starts[0]) memcpy(x + starts[0], mine, (size_t)(starts[1] - starts[0]) * sizeof(double));
  return NG_SUCCESS;
}
#endif
