/* amg/amg_dist_coarse.c: the coarsest level's dense inverse across
 * ranks (collective). The level's rows are on one rank (root); every entry
 * is made by the one-rank arithmetic (dense_chol.c's steps), so the inverse
 * is the one-rank inverse bit for bit. The factor A = L L^T goes by blocks
 * of CHOL_BLOCK rows dealt to the ranks in turn: the block's owner finishes
 * its triangle and broadcasts the rows, then every rank adds the block's
 * columns to its own rows below (entry j of row i needs row i before j and
 * row j: the dot products of one rank's row-by-row loop). The rows of
 * U = L^-T and of U U^T, independent of each other, are spread in blocks
 * of equal work and gathered on root. A matrix that is not SPD (a pivot
 * not above NG_DENSE_PIVOT_RTOL a_ii, or not symmetric): root alone runs
 * the one-rank ng_dense_inverse (the pseudo-inverse of a symmetric
 * semidefinite matrix, e.g. a pure-Neumann problem's coarsest operator,
 * else Gauss-Jordan), so that too is the one-rank inverse bit for bit; so
 * does a small matrix (one thread there too), without the collectives. */
#include "amg_dist.h"
#include <limits.h>

#define CHOL_BLOCK 16 /* rows a broadcast: 30 rounds at 467 rows */

/* first[r] (size + 1, in values: rows times n): rank r's rows of an n x n
 * dense step, blocks of about equal work when row i costs (n - i)(n - i +
 * 1) / 2 (u_rows: a row of U, a forward substitution from i) or (i + 1)(n
 * - i) (a row of U U^T: i + 1 dot products of n - i). The same blocks on
 * every rank. */
static void work_blocks(int32_t n, int size, int u_rows, int64_t *first)
{
  double total = 0, sum = 0;
  for (int32_t i = 0; i < n; i++) total += u_rows ? 0.5 * (double)(n - i) * (n - i + 1) : (double)(i + 1) * (n - i);
  int r = 1;
  first[0] = 0;
  for (int32_t i = 0; i < n && r < size; i++) {
    sum += u_rows ? 0.5 * (double)(n - i) * (n - i + 1) : (double)(i + 1) * (n - i);
    while (r < size && sum >= total * r / size) first[r++] = (int64_t)(i + 1) * n;
  }
  while (r <= size) first[r++] = (int64_t)n * n;
}

static const double *low_row(const double *low, int32_t i) { return low + (size_t)i * (i + 1) / 2; }

/* L (n x n, zero above the diagonal) on every rank from A's lower triangle
 * low (row i at i (i + 1) / 2); *spd = 0 on every rank when a diagonal is
 * not positive. buf: a block's rows (their lower parts) and the owner's
 * verdict. */
static ng_status spread_cholesky(ng_context ctx, int32_t n, const double *low, double *L, double *buf, int *spd)
{
  int size = ctx->size, rank = ctx->rank;
  int32_t nb = (n + CHOL_BLOCK - 1) / CHOL_BLOCK;
  memset(L, 0, (size_t)n * n * sizeof(double));
  *spd = 1;
  for (int32_t q = 0; q < nb; q++) {
    int32_t j0 = q * CHOL_BLOCK, j1 = j0 + CHOL_BLOCK < n ? j0 + CHOL_BLOCK : n;
    int owner = q % size;
    int64_t len = 0;
    for (int32_t i = j0; i < j1; i++) len += i + 1;
    if (rank == owner) { /* the block's triangle: its rows before j0 are done here */
      int ok = 1;
      for (int32_t i = j0; i < j1 && ok; i++) ok = ng_dense_chol_row(n, low_row(low, i), L, i, j0, i + 1);
      for (int32_t i = j0, o = 0; i < j1; o += i + 1, i++) memcpy(buf + o, L + (size_t)i * n, (size_t)(i + 1) * sizeof(double));
      buf[len] = ok;
    }
    NG_CHECK(ng_comm_bcast_double(ctx, owner, buf, len + 1));
    if (buf[len] == 0.0) {
      *spd = 0;
      return NG_SUCCESS;
    }
    if (rank != owner)
      for (int32_t i = j0, o = 0; i < j1; o += i + 1, i++) memcpy(L + (size_t)i * n, buf + o, (size_t)(i + 1) * sizeof(double));
    /* the block's columns of this rank's rows below it (blocks p > q, p = rank mod size) */
    int32_t p0 = q + 1 + ((rank - (q + 1) % size) + size) % size;
#pragma omp parallel for schedule(dynamic, 1) if (n > NG_DENSE_SPREAD_MIN)
    for (int32_t p = p0; p < nb; p += size)
      for (int32_t i = p * CHOL_BLOCK; i < n && i < (p + 1) * CHOL_BLOCK; i++)
        ng_dense_chol_row(n, low_row(low, i), L, i, j0, j1);
  }
  return NG_SUCCESS;
}

ng_status ng_amg_dist_coarse_inverse(ng_context ctx, ng_amg *M, ng_matrix A, ng_status st)
{
  int size = ctx->size, rank = ctx->rank, here = A->n_local > 0;
  int32_t n = (int32_t)A->n_global;
  int64_t ub[size + 1], ab[size + 1];
  double *L = NULL, *U = NULL, *mine = NULL, *low = NULL, *buf = NULL;
  int vals[2] = {here ? rank : INT_MAX, 1}; /* the root, and whether A is symmetric (root's word) */
  if (!st && here) st = ng_amg_coarse_dense(M, &A->local);
  else if (!st && !M->coarse_inv.rowptr) st = ng_csr_alloc(&M->coarse_inv, 0, 0, 0);
  if (n <= NG_DENSE_SPREAD_MIN) { /* small: the root alone (agreed by the caller) */
    if (!st && here) st = ng_dense_inverse(n, M->coarse_inv.val);
    return st;
  }
  work_blocks(n, size, 1, ub);
  work_blocks(n, size, 0, ab);
  if (!st) st = NG_MALLOC(L, (size_t)n * n);
  if (!st) st = NG_MALLOC(U, (size_t)n * n);
  if (!st) st = NG_MALLOC(mine, ab[rank + 1] > ab[rank] ? ab[rank + 1] - ab[rank] : 1);
  if (!st) st = NG_MALLOC(low, (size_t)n * (n + 1) / 2);
  if (!st) st = NG_MALLOC(buf, (size_t)CHOL_BLOCK * n + 1);
  if (!st && here) vals[1] = ng_dense_symmetrize(n, M->coarse_inv.val);
  NG_CHECK_GOTO(st, ng_comm_agree_min(ctx, st, vals, 2), out);
  int root = vals[0], spd = vals[1];
  if (root == INT_MAX) goto out; /* an empty level */
  if (spd) {
    if (rank == root) /* A's lower triangle to every rank */
      for (int32_t i = 0; i < n; i++)
        memcpy(low + (size_t)i * (i + 1) / 2, M->coarse_inv.val + (size_t)i * n, (size_t)(i + 1) * sizeof(double));
    NG_CHECK_GOTO(st, ng_comm_bcast_double(ctx, root, low, (int64_t)n * (n + 1) / 2), out);
    NG_CHECK_GOTO(st, spread_cholesky(ctx, n, low, L, buf, &spd), out);
  }
  if (!spd) {
    if (rank == root) st = ng_dense_inverse(n, M->coarse_inv.val);
    goto out; /* agreed by the caller */
  }
  ng_dense_chol_u(n, L, U, (int32_t)(ub[rank] / n), (int32_t)(ub[rank + 1] / n));
  NG_CHECK_GOTO(st, ng_comm_allgather_blocks(ctx, U, ub), out);
  ng_dense_chol_a(n, U, mine, (int32_t)(ab[rank] / n), (int32_t)(ab[rank + 1] / n));
  NG_CHECK_GOTO(st, ng_comm_gather_blocks(ctx, root, mine, ab, M->coarse_inv.val), out);
  if (rank == root) ng_dense_mirror(n, M->coarse_inv.val);
out:
  ng_free(L);
  ng_free(U);
  ng_free(mine);
  ng_free(low);
  ng_free(buf);
  return st;
}
