/* precond/amg_galerkin.c: sparse-sparse product C = A B for the Galerkin
 * coarse operator R (A P) (Gustavson's row-by-row algorithm). The symbolic
 * phase marks the columns of each row of C with a per-thread marker array,
 * the numeric phase accumulates into a per-thread dense row of B's width and
 * gathers; update() reruns only the numeric phase on new values. */
#include "amg.h"

static int cmp_int32(const void *a, const void *b)
{
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

ng_status ng_spgemm_symbolic(const ng_csr *A, const ng_csr *B, ng_csr *C, int sorted)
{
  int32_t n = A->nrows, m = B->ncols;
  int64_t *rp = NULL;
  int fail = 0;
  ng_status st = NG_SUCCESS;
  memset(C, 0, sizeof(*C));
  if (A->ncols != B->nrows)
    return NG_ERROR(NG_ERR_INTERNAL, "spgemm: inner sizes differ (%d and %d)", (int)A->ncols, (int)B->nrows);
  NG_CHECK(NG_CALLOC(rp, (size_t)n + 1));
  for (int pass = 0; pass < 2; pass++) {
#pragma omp parallel
    {
      int32_t *mark = NULL;
      if (NG_MALLOC(mark, m) != NG_SUCCESS) {
#pragma omp atomic write
        fail = 1;
      } else {
        for (int32_t c = 0; c < m; c++) mark[c] = -1;
#pragma omp for schedule(dynamic, 256)
        for (int32_t i = 0; i < n; i++) {
          int64_t c = 0, base = pass ? C->rowptr[i] : 0;
          for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t j = A->col[k];
            for (int64_t q = B->rowptr[j]; q < B->rowptr[j + 1]; q++) {
              int32_t b = B->col[q];
              if (mark[b] == i) continue;
              mark[b] = i;
              if (pass) C->col[base + c] = b;
              c++;
            }
          }
          if (!pass) rp[i + 1] = c;
          else if (sorted) qsort(C->col + base, (size_t)c, sizeof(int32_t), cmp_int32);
        }
      }
      ng_free(mark);
    }
    if (fail) {
      st = NG_ERROR(NG_ERR_MEMORY, "spgemm: no memory for the per-thread markers (%d columns)", (int)m);
      goto out;
    }
    if (!pass) {
      for (int32_t i = 0; i < n; i++) rp[i + 1] += rp[i];
      NG_CHECK_GOTO(st, ng_csr_alloc(C, n, m, rp[n]), out);
      memcpy(C->rowptr, rp, ((size_t)n + 1) * sizeof(int64_t));
    }
  }
out:
  ng_free(rp);
  if (st != NG_SUCCESS) ng_csr_free(C);
  return st;
}

ng_status ng_spgemm_numeric(const ng_csr *A, const ng_csr *B, ng_csr *C)
{
  int32_t n = A->nrows, m = B->ncols;
  int fail = 0;
#pragma omp parallel
  {
    double *acc = NULL;
    if (NG_CALLOC(acc, m) != NG_SUCCESS) {
#pragma omp atomic write
      fail = 1;
    } else {
#pragma omp for schedule(dynamic, 256)
      for (int32_t i = 0; i < n; i++) {
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
          int32_t j = A->col[k];
          double a = A->val[k];
          for (int64_t q = B->rowptr[j]; q < B->rowptr[j + 1]; q++) acc[B->col[q]] += a * B->val[q];
        }
        for (int64_t p = C->rowptr[i]; p < C->rowptr[i + 1]; p++) {
          C->val[p] = acc[C->col[p]];
          acc[C->col[p]] = 0.0;
        }
      }
    }
    ng_free(acc);
  }
  if (fail) return NG_ERROR(NG_ERR_MEMORY, "spgemm: no memory for the per-thread accumulators (%d columns)", (int)m);
  return NG_SUCCESS;
}
