/* core/coo.c: coordinate-list builder and its conversion to sorted CSR with
 * duplicates summed (used by the Matrix Market reader and the generators). */
#include "core.h"

ng_status ng_coo_init(ng_coo *C, int32_t nrows, int32_t ncols, int64_t capacity)
{
  memset(C, 0, sizeof(*C));
  NG_ASSERT_ARG(nrows >= 0 && ncols >= 0 && capacity >= 0, "negative COO size %d x %d cap %lld",
                (int)nrows, (int)ncols, (long long)capacity);
  C->nrows = nrows;
  C->ncols = ncols;
  if (capacity < 16) capacity = 16;
  C->cap = capacity;
  ng_status st;
  NG_CHECK_GOTO(st, NG_MALLOC(C->row, capacity), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(C->col, capacity), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(C->val, capacity), fail);
  return NG_SUCCESS;
fail:
  ng_coo_free(C);
  return st;
}

static ng_status coo_grow(ng_coo *C)
{
  int64_t cap = C->cap * 2;
  NG_CHECK(ng_host_realloc((void **)&C->row, (size_t)cap, sizeof(int32_t), "COO rows"));
  NG_CHECK(ng_host_realloc((void **)&C->col, (size_t)cap, sizeof(int32_t), "COO columns"));
  NG_CHECK(ng_host_realloc((void **)&C->val, (size_t)cap, sizeof(double), "COO values"));
  C->cap = cap;
  return NG_SUCCESS;
}

ng_status ng_coo_push(ng_coo *C, int32_t i, int32_t j, double v)
{
  if (i < 0 || i >= C->nrows || j < 0 || j >= C->ncols)
    return NG_ERROR(NG_ERR_ARGUMENT, "entry (%d, %d) outside a %d x %d matrix", (int)i, (int)j,
                    (int)C->nrows, (int)C->ncols);
  if (C->nnz == C->cap) NG_CHECK(coo_grow(C));
  C->row[C->nnz] = i;
  C->col[C->nnz] = j;
  C->val[C->nnz] = v;
  C->nnz++;
  return NG_SUCCESS;
}

void ng_coo_free(ng_coo *C)
{
  ng_free(C->row);
  ng_free(C->col);
  ng_free(C->val);
  memset(C, 0, sizeof(*C));
}

/* Counting sort by row, then an insertion sort of each row by column (rows
 * are short), then duplicates merged in place. */
ng_status ng_coo_to_csr(const ng_coo *C, ng_csr *A)
{
  ng_status st;
  int64_t *next = NULL;
  NG_CHECK(ng_csr_alloc(A, C->nrows, C->ncols, C->nnz));
  for (int64_t k = 0; k < C->nnz; k++) A->rowptr[C->row[k] + 1]++;
  for (int32_t i = 0; i < C->nrows; i++) A->rowptr[i + 1] += A->rowptr[i];
  NG_CHECK_GOTO(st, NG_MALLOC(next, (size_t)C->nrows + 1), fail);
  memcpy(next, A->rowptr, ((size_t)C->nrows + 1) * sizeof(int64_t));
  for (int64_t k = 0; k < C->nnz; k++) {
    int64_t p = next[C->row[k]]++;
    A->col[p] = C->col[k];
    A->val[p] = C->val[k];
  }
  ng_free(next);
  int64_t out = 0;
  for (int32_t i = 0; i < C->nrows; i++) {
    int64_t b = A->rowptr[i], e = A->rowptr[i + 1];
    for (int64_t p = b + 1; p < e; p++) {
      int32_t c = A->col[p];
      double v = A->val[p];
      int64_t q = p - 1;
      while (q >= b && A->col[q] > c) {
        A->col[q + 1] = A->col[q];
        A->val[q + 1] = A->val[q];
        q--;
      }
      A->col[q + 1] = c;
      A->val[q + 1] = v;
    }
    A->rowptr[i] = out;
    for (int64_t p = b; p < e; p++) {
      if (out > A->rowptr[i] && A->col[out - 1] == A->col[p]) {
        A->val[out - 1] += A->val[p];
      } else {
        A->col[out] = A->col[p];
        A->val[out] = A->val[p];
        out++;
      }
    }
  }
  A->rowptr[C->nrows] = out;
  A->nnz = out;
  return NG_SUCCESS;
fail:
  ng_csr_free(A);
  return st;
}
