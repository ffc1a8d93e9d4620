/* dist/matrix_gather.c: a distributed square matrix gathered onto rank 0 as
 * one CSR over global columns, each row sorted: the coarse levels that the
 * AMG moves onto one rank (amg/amg_dist_telescope.c). The ranks own
 * contiguous row ranges in rank order, so their rows received in rank order
 * are the global rows in order. */
#include "dist.h"
#include "../comm/halo.h"

/* Row i of this rank in global columns: the local block's entries (column
 * col_begin + c) and the off-rank block's (halo_gcol), merged by column
 * (both blocks are sorted by column; the halo columns ascend). */
static int64_t merge_row(ng_matrix A, int32_t i, int32_t *col, double *val)
{
  const ng_csr *L = &A->local, *O = &A->offrank;
  int64_t a = L->rowptr[i], ae = L->rowptr[i + 1], k = 0;
  int64_t b = A->n_halo ? O->rowptr[i] : 0, be = A->n_halo ? O->rowptr[i + 1] : 0;
  while (a < ae || b < be) {
    int64_t ga = a < ae ? A->col_begin + L->col[a] : INT64_MAX;
    int64_t gb = b < be ? A->halo_gcol[O->col[b]] : INT64_MAX;
    if (ga <= gb) {
      col[k] = (int32_t)ga;
      val[k++] = L->val[a++];
    } else {
      col[k] = (int32_t)gb;
      val[k++] = O->val[b++];
    }
  }
  /* a block out of column order (not made by this library): sorted here */
  for (int64_t q = 1; q < k; q++)
    for (int64_t r = q; r > 0 && col[r - 1] > col[r]; r--) {
      int32_t c = col[r];
      double v = val[r];
      col[r] = col[r - 1];
      val[r] = val[r - 1];
      col[r - 1] = c;
      val[r - 1] = v;
    }
  return k;
}

ng_status ng_matrix_gather_csr(ng_matrix A, ng_status st, ng_csr *W)
{
  ng_context ctx = A->ctx;
  int size = ctx->size, root = ctx->rank == 0;
  int32_t n = A->n_local;
  int64_t nnz = A->local.nnz + (A->n_halo ? A->offrank.nnz : 0);
  int64_t *len = NULL, *cnt = NULL, *rcnt = NULL;
  int32_t *col = NULL;
  double *val = NULL;
  memset(W, 0, sizeof(*W));
  if (!st && (A->n_global != A->n_col_global || A->n_global > INT32_MAX))
    st = NG_ERROR(NG_ERR_INTERNAL, "ng_matrix_gather_csr: a square matrix of at most 2^31 rows (%lld x %lld)",
                  (long long)A->n_global, (long long)A->n_col_global);
  if (!st) st = NG_CALLOC(cnt, 2 * (size_t)size);
  if (!st) st = NG_MALLOC(len, n ? n : 1);
  if (!st) st = NG_MALLOC(col, nnz ? nnz : 1);
  if (!st) st = NG_MALLOC(val, nnz ? nnz : 1);
  if (!st) {
    rcnt = cnt + size;
    int64_t p = 0;
    for (int32_t i = 0; i < n; i++) {
      len[i] = merge_row(A, i, col + p, val + p);
      p += len[i];
    }
  }
  /* the rows' lengths, then columns and values, to rank 0 */
  if (!st) cnt[0] = n;
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_comm_alltoall_counts(ctx, cnt, rcnt);
  if (!st && root) st = ng_csr_alloc(W, (int32_t)A->n_global, (int32_t)A->n_global, 0);
  st = ng_comm_alltoallv(ctx, st, len, cnt, root ? W->rowptr + 1 : NULL, rcnt, sizeof(int64_t));
  if (!st && root) {
    W->rowptr[0] = 0;
    for (int64_t i = 0; i < A->n_global; i++) W->rowptr[i + 1] += W->rowptr[i];
    W->nnz = W->rowptr[A->n_global];
    ng_free(W->col);
    ng_free(W->val);
    W->col = NULL;
    W->val = NULL;
    st = NG_MALLOC(W->col, W->nnz ? W->nnz : 1);
    if (!st) st = NG_MALLOC(W->val, W->nnz ? W->nnz : 1);
  }
  if (!st) {
    cnt[0] = nnz;
    for (int r = 0; root && r < size; r++) rcnt[r] = 0;
  }
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_comm_alltoall_counts(ctx, cnt, rcnt);
  st = ng_comm_alltoallv(ctx, st, col, cnt, root ? W->col : NULL, rcnt, sizeof(int32_t));
  st = ng_comm_alltoallv(ctx, st, val, cnt, root ? W->val : NULL, rcnt, sizeof(double));
  ng_free(cnt);
  ng_free(len);
  ng_free(col);
  ng_free(val);
  if (st) ng_csr_free(W);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}
