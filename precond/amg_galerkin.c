/* precond/amg_galerkin.c: sparse-sparse product C = A B for the Galerkin
 * coarse operator R (A P) (Gustavson's row-by-row algorithm with a dense
 * accumulator per thread). Setup computes pattern and values in one pass;
 * update() reruns only the numeric phase on new values in the same pattern. */
#include "amg.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static int cmp_int32(const void *a, const void *b)
{
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Growable per-thread output of the one-pass product. */
typedef struct {
  int32_t *col;
  double *val;
  int64_t len, cap;
} rowbuf;

static int rowbuf_reserve(rowbuf *b, int64_t extra)
{
  if (b->len + extra <= b->cap) return 1;
  int64_t cap = 2 * (b->len + extra) + 1024;
  int32_t *c = malloc((size_t)cap * sizeof(int32_t));
  double *v = malloc((size_t)cap * sizeof(double));
  if (!c || !v) {
    free(c);
    free(v);
    return 0;
  }
  if (b->len) {
    memcpy(c, b->col, (size_t)b->len * sizeof(int32_t));
    memcpy(v, b->val, (size_t)b->len * sizeof(double));
  }
  free(b->col);
  free(b->val);
  b->col = c;
  b->val = v;
  b->cap = cap;
  return 1;
}

/* One pass: each thread takes a contiguous block of rows, accumulates every
 * row in a dense array of B's width (columns recorded on first touch),
 * appends it to its own buffer; the buffers are then concatenated in thread
 * order, so the result does not depend on the thread count. */
ng_status ng_spgemm(const ng_csr *A, const ng_csr *B, ng_csr *C, int sorted)
{
  int32_t n = A->nrows, m = B->ncols;
  int64_t *rp = NULL, *start = NULL;
  rowbuf *buf = NULL;
  int nt = 1, fail = 0;
  ng_status st = NG_SUCCESS;
  memset(C, 0, sizeof(*C));
  if (A->ncols != B->nrows)
    return NG_ERROR(NG_ERR_INTERNAL, "spgemm: inner sizes differ (%d and %d)", (int)A->ncols, (int)B->nrows);
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
  NG_CHECK(NG_CALLOC(rp, (size_t)n + 1));
  NG_CHECK_GOTO(st, NG_CALLOC(buf, nt), out);
  NG_CHECK_GOTO(st, NG_CALLOC(start, (size_t)nt + 1), out);
#pragma omp parallel num_threads(nt)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    int32_t lo = (int32_t)((int64_t)n * t / nt), hi = (int32_t)((int64_t)n * (t + 1) / nt);
    rowbuf *b = &buf[t];
    double *acc = calloc((size_t)m + 1, sizeof(double));
    char *seen = calloc((size_t)m + 1, 1);
    if (!acc || !seen) {
#pragma omp atomic write
      fail = 1;
    }
    for (int32_t i = lo; i < hi && acc && seen; i++) {
      int64_t bound = 0, c0 = b->len;
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        bound += B->rowptr[A->col[k] + 1] - B->rowptr[A->col[k]];
      if (bound > m) bound = m;
      if (!rowbuf_reserve(b, bound)) {
#pragma omp atomic write
        fail = 1;
        break;
      }
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        int32_t j = A->col[k];
        double a = A->val[k];
        for (int64_t q = B->rowptr[j]; q < B->rowptr[j + 1]; q++) {
          int32_t c = B->col[q];
          if (!seen[c]) {
            seen[c] = 1;
            b->col[b->len++] = c;
          }
          acc[c] += a * B->val[q];
        }
      }
      if (sorted && b->len > c0) qsort(b->col + c0, (size_t)(b->len - c0), sizeof(int32_t), cmp_int32);
      for (int64_t p = c0; p < b->len; p++) {
        int32_t c = b->col[p];
        b->val[p] = acc[c];
        acc[c] = 0.0;
        seen[c] = 0;
      }
      rp[i + 1] = b->len - c0;
    }
    free(acc);
    free(seen);
  }
  if (fail) {
    st = NG_ERROR(NG_ERR_MEMORY, "spgemm: no memory for the per-thread rows of a %d x %d product", (int)n, (int)m);
    goto out;
  }
  for (int32_t i = 0; i < n; i++) rp[i + 1] += rp[i];
  NG_CHECK_GOTO(st, ng_csr_alloc(C, n, m, rp[n]), out);
  memcpy(C->rowptr, rp, ((size_t)n + 1) * sizeof(int64_t));
#pragma omp parallel num_threads(nt)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    int32_t lo = (int32_t)((int64_t)n * t / nt);
    if (buf[t].len) {
      memcpy(C->col + rp[lo], buf[t].col, (size_t)buf[t].len * sizeof(int32_t));
      memcpy(C->val + rp[lo], buf[t].val, (size_t)buf[t].len * sizeof(double));
    }
  }
out:
  for (int t = 0; buf && t < nt; t++) {
    free(buf[t].col);
    free(buf[t].val);
  }
  ng_free(buf);
  ng_free(start);
  ng_free(rp);
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
