/* core/csr.c: the host CSR container (64-bit row offsets, 32-bit columns)
 * and its host kernels: validation, SpMV reference, diagonal, symmetry. */
#include "core.h"
#include <math.h>

ng_status ng_csr_alloc(ng_csr *A, int32_t nrows, int32_t ncols, int64_t nnz)
{
  memset(A, 0, sizeof(*A));
  NG_ASSERT_ARG(nrows >= 0 && ncols >= 0 && nnz >= 0, "negative CSR size %d x %d, %lld entries",
                (int)nrows, (int)ncols, (long long)nnz);
  A->nrows = nrows;
  A->ncols = ncols;
  A->nnz = nnz;
  if (NG_CALLOC(A->rowptr, (size_t)nrows + 1) != NG_SUCCESS || NG_MALLOC(A->col, nnz) != NG_SUCCESS ||
      NG_MALLOC(A->val, nnz) != NG_SUCCESS) {
    ng_csr_free(A);
    return ng_error_trace(NG_ERR_MEMORY, __FILE__, __LINE__);
  }
  return NG_SUCCESS;
}

size_t ng_csr_bytes(const ng_csr *A)
{
  size_t b = 0;
  if (A->rowptr) b += ((size_t)A->nrows + 1) * sizeof(int64_t);
  if (A->col) b += (size_t)A->nnz * sizeof(int32_t);
  if (A->val) b += (size_t)A->nnz * sizeof(double);
  return b;
}

void ng_csr_free(ng_csr *A)
{
  ng_free(A->rowptr);
  ng_free(A->col);
  ng_free(A->val);
  memset(A, 0, sizeof(*A));
}

ng_status ng_csr_copy(const ng_csr *src, ng_csr *dst)
{
  NG_CHECK(ng_csr_alloc(dst, src->nrows, src->ncols, src->nnz));
  memcpy(dst->rowptr, src->rowptr, ((size_t)src->nrows + 1) * sizeof(int64_t));
  memcpy(dst->col, src->col, (size_t)src->nnz * sizeof(int32_t));
  memcpy(dst->val, src->val, (size_t)src->nnz * sizeof(double));
  return NG_SUCCESS;
}

ng_status ng_csr_validate(const ng_csr *A)
{
  if (A->rowptr[0] != 0) return NG_ERROR(NG_ERR_ARGUMENT, "rowptr[0] is %lld, not 0", (long long)A->rowptr[0]);
  for (int32_t i = 0; i < A->nrows; i++) {
    if (A->rowptr[i + 1] < A->rowptr[i])
      return NG_ERROR(NG_ERR_ARGUMENT, "rowptr decreases at row %d (%lld < %lld)", (int)i,
                      (long long)A->rowptr[i + 1], (long long)A->rowptr[i]);
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      if (A->col[p] < 0 || A->col[p] >= A->ncols)
        return NG_ERROR(NG_ERR_ARGUMENT, "row %d has column %d outside 0..%d", (int)i, (int)A->col[p],
                        (int)A->ncols - 1);
      if (!isfinite(A->val[p]))
        return NG_ERROR(NG_ERR_NUMERIC, "row %d column %d holds a non-finite value (%g)", (int)i,
                        (int)A->col[p], A->val[p]);
    }
  }
  if (A->rowptr[A->nrows] != A->nnz)
    return NG_ERROR(NG_ERR_ARGUMENT, "rowptr[n] is %lld but nnz is %lld", (long long)A->rowptr[A->nrows],
                    (long long)A->nnz);
  return NG_SUCCESS;
}

void ng_csr_spmv(const ng_csr *A, double alpha, const double *x, double beta, double *y)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (A->nnz > 100000)
#endif
  for (int32_t i = 0; i < A->nrows; i++) {
    double s = 0.0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) s += A->val[p] * x[A->col[p]];
    y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
  }
}

ng_status ng_csr_diagonal(const ng_csr *A, double *d, int require_nonzero)
{
  int32_t n = A->nrows, bad = n; /* first row with a zero diagonal */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(min : bad) if (n > 20000)
#endif
  for (int32_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->col[p] == i) s += A->val[p];
    d[i] = s;
    if (s == 0.0 && i < bad) bad = i;
  }
  if (require_nonzero && bad < n)
    return NG_ERROR(NG_ERR_NUMERIC, "row %lld (0-based %d) has a zero or missing diagonal entry",
                    (long long)bad + 1, (int)bad); /* 1-based as in a Matrix Market file */
  return NG_SUCCESS;
}

/* Looks up A(j,i) for every stored A(i,j) by scanning row j (rows are short
 * in the matrices this library meets). */
int ng_csr_is_symmetric(const ng_csr *A, double rtol)
{
  if (A->nrows != A->ncols) return 0;
  for (int32_t i = 0; i < A->nrows; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int32_t j = A->col[p];
      double t = 0.0, s = 0.0;
      int found = 0;
      for (int64_t q = A->rowptr[j]; q < A->rowptr[j + 1]; q++)
        if (A->col[q] == i) { t += A->val[q]; found = 1; }
      for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
        if (A->col[q] == j) s += A->val[q];
      if (!found || fabs(s - t) > rtol * (fabs(s) + fabs(t)) + 1e-300) return 0;
    }
  return 1;
}
