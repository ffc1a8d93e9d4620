/* spmv/csr_rows.c: host CSR that visits only its non-empty rows, for a
 * matrix's off-rank block (dist/matrix.c), where most rows are empty (only
 * the boundary rows couple to other ranks) and y = alpha A x + y is added
 * after the local block. Not in the format registry: the matrix picks it
 * for its off-rank block when fewer than half the rows have entries. It
 * reads the block's own host CSR, like spmv/csr.c. An empty row is left as
 * it is instead of getting alpha * 0.0 added (the only difference to the
 * full loop: a -0.0 there stays -0.0). */
#include "spmv.h"

typedef struct {
  const ng_csr *A;
  int32_t *rows, nrows; /* the rows with entries, ascending */
} csr_rows;

static ng_status rows_create(ng_context ctx, const ng_csr *A, void **data)
{
  csr_rows *R = NULL;
  (void)ctx;
  NG_CHECK(NG_CALLOC(R, 1));
  ng_status st = NG_MALLOC(R->rows, A->nrows > 0 ? A->nrows : 1); /* room for all: one pass */
  if (st) {
    ng_free(R);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  R->A = A;
  for (int32_t i = 0; i < A->nrows; i++)
    if (A->rowptr[i + 1] > A->rowptr[i]) R->rows[R->nrows++] = i;
  *data = R;
  return NG_SUCCESS;
}

/* beta 1 (the off-rank block's add): the listed rows; otherwise every row
 * is scaled, so the full CSR loop runs. */
static ng_status rows_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  const csr_rows *R = data;
  const ng_csr *A = R->A;
  if (beta != 1.0) {
    ng_csr_spmv(A, alpha, x, beta, y);
    return NG_SUCCESS;
  }
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (A->nnz > 100000)
#endif
  for (int32_t q = 0; q < R->nrows; q++) {
    int32_t i = R->rows[q];
    double s = 0.0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) s += A->val[p] * x[A->col[p]];
    y[i] = alpha * s + beta * y[i]; /* ng_csr_spmv's expression */
  }
  return NG_SUCCESS;
}

static ng_status rows_update(void *data, const ng_csr *A)
{
  (void)data;
  (void)A; /* same pattern: the values are read from A at each apply */
  return NG_SUCCESS;
}
static size_t rows_bytes(const void *data)
{
  const csr_rows *R = data;
  const ng_csr *A = R->A;
  return ((size_t)A->nrows + 1) * sizeof(int64_t) + (size_t)A->nnz * (sizeof(int32_t) + sizeof(double)) +
         (size_t)R->nrows * sizeof(int32_t);
}
static void rows_destroy(void *data)
{
  csr_rows *R = data;
  if (!R) return;
  ng_free(R->rows);
  ng_free(R);
}

const ng_spmv_ops ng_spmv_csr_rows_host = {.name = "csr-rows", .on_gpu = 0, .create = rows_create,
                                           .apply = rows_apply, .update_values = rows_update,
                                           .bytes = rows_bytes, .destroy = rows_destroy};
