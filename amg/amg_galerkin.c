/* amg/amg_galerkin.c: sparse-sparse product C = A B for the Galerkin
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

/* A product row's columns in order: insertion sort up to 64 (the rows of
 * A P and R (A P) have 10-120 entries; qsort's call per comparison was 7%
 * of stretch7:64's classical setup and solve), qsort beyond. */
static void sort_cols(int32_t *c, int64_t len)
{
  if (len > 64) {
    qsort(c, (size_t)len, sizeof(int32_t), cmp_int32);
    return;
  }
  for (int64_t i = 1; i < len; i++) {
    int32_t v = c[i];
    int64_t j = i;
    for (; j > 0 && c[j - 1] > v; j--) c[j] = c[j - 1];
    c[j] = v;
  }
}

/* Per-thread output of the one-pass product: a list of chunks, each row
 * written whole into the last one. A full chunk is followed by a new one
 * (twice as big) instead of being copied into a bigger buffer: the rows
 * are copied once, into C. */
#define ROWBUF_CHUNKS 48 /* doubling sizes: never all used */
typedef struct {
  int32_t *col;
  double *val;
  int64_t len, cap;
} chunk;
typedef struct {
  chunk ch[ROWBUF_CHUNKS];
  int n;
} rowbuf;

/* The chunk with room for extra more entries (NULL: no memory). */
static chunk *rowbuf_reserve(rowbuf *b, int64_t extra)
{
  chunk *k = b->n ? &b->ch[b->n - 1] : NULL;
  if (k && k->len + extra <= k->cap) return k;
  if (b->n == ROWBUF_CHUNKS) return NULL;
  int64_t cap = (k ? 2 * k->cap : 0) + extra + 1024;
  k = &b->ch[b->n];
  k->col = malloc((size_t)cap * sizeof(int32_t));
  k->val = malloc((size_t)cap * sizeof(double));
  if (!k->col || !k->val) {
    free(k->col);
    free(k->val);
    k->col = NULL;
    k->val = NULL;
    return NULL;
  }
  k->len = 0;
  k->cap = cap;
  b->n++;
  return k;
}

/* The entries of B's rows that row i of X (columns from off) reaches. */
static inline int64_t row_bound(const ng_csr *X, int32_t off, int32_t i, const ng_csr *B)
{
  int64_t bound = 0;
  for (int64_t k = X->rowptr[i]; k < X->rowptr[i + 1]; k++)
    bound += B->rowptr[off + X->col[k] + 1] - B->rowptr[off + X->col[k]];
  return bound;
}

/* Row i of X (columns from off) times B into acc, new columns appended to
 * ck on first touch. */
static inline void row_product(const ng_csr *X, int32_t off, int32_t i, const ng_csr *B, double *acc, char *seen,
                               chunk *ck)
{
  /* B's arrays, the row's end and ck's length in locals: the stores to
   * seen (char) could alias them, and the compiler reloaded them per entry */
  const int32_t *bcol = B->col;
  const double *bval = B->val;
  int32_t *out = ck->col;
  int64_t len = ck->len;
  for (int64_t k = X->rowptr[i], k1 = X->rowptr[i + 1]; k < k1; k++) {
    int32_t j = off + X->col[k];
    double a = X->val[k];
    for (int64_t q = B->rowptr[j], q1 = B->rowptr[j + 1]; q < q1; q++) {
      int32_t c = bcol[q];
      if (!seen[c]) {
        seen[c] = 1;
        out[len++] = c;
      }
      acc[c] += a * bval[q];
    }
  }
  ck->len = len;
}

/* One pass: each thread takes a contiguous block of rows, accumulates every
 * row in a dense array of B's width (columns recorded on first touch),
 * appends it to its own buffer; the buffers are then concatenated in thread
 * order, so the result does not depend on the thread count. */
ng_status ng_spgemm(const ng_csr *A, const ng_csr *B, ng_csr *C, int sorted)
{
  NG_CHECK(ng_spgemm2(A, NULL, B, NULL, C, sorted));
  return NG_SUCCESS;
}

ng_status ng_spgemm2(const ng_csr *A, const ng_csr *A2, const ng_csr *B, const ng_csr *B2, ng_csr *C, int sorted)
{
  int32_t n = A->nrows, m = B2 && B2->ncols > B->ncols ? B2->ncols : B->ncols;
  int32_t inner = A->ncols + (A2 ? A2->ncols : 0), off2 = B2 ? 0 : A->ncols; /* A2's rows of B: B2's from 0 */
  const ng_csr *Bs = B2 ? B2 : B;
  int64_t *rp = NULL, *start = NULL;
  rowbuf *buf = NULL;
  int nt = 1, fail = 0;
  ng_status st = NG_SUCCESS;
  memset(C, 0, sizeof(*C));
  if (inner != (B2 ? A->ncols + B2->nrows : B->nrows) || (B2 && B->nrows != A->ncols) || (A2 && A2->nrows != n))
    return NG_ERROR(NG_ERR_INTERNAL, "spgemm: inner sizes differ (%d and %d)", (int)inner,
                    (int)(B->nrows + (B2 ? B2->nrows : 0)));
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
      int64_t bound = row_bound(A, 0, i, B) + (A2 ? row_bound(A2, off2, i, Bs) : 0);
      if (bound > m) bound = m;
      chunk *ck = rowbuf_reserve(b, bound);
      if (!ck) {
#pragma omp atomic write
        fail = 1;
        break;
      }
      int64_t c0 = ck->len;
      row_product(A, 0, i, B, acc, seen, ck);
      if (A2) row_product(A2, off2, i, Bs, acc, seen, ck);
      if (sorted && ck->len > c0) sort_cols(ck->col + c0, ck->len - c0);
      for (int64_t p = c0; p < ck->len; p++) {
        int32_t c = ck->col[p];
        ck->val[p] = acc[c];
        acc[c] = 0.0;
        seen[c] = 0;
      }
      rp[i + 1] = ck->len - c0;
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
    int64_t at = rp[(int32_t)((int64_t)n * t / nt)];
    for (int c = 0; c < buf[t].n; c++) {
      const chunk *k = &buf[t].ch[c];
      if (k->len) {
        memcpy(C->col + at, k->col, (size_t)k->len * sizeof(int32_t));
        memcpy(C->val + at, k->val, (size_t)k->len * sizeof(double));
      }
      at += k->len;
    }
  }
out:
  for (int t = 0; buf && t < nt; t++)
    for (int c = 0; c < buf[t].n; c++) {
      free(buf[t].ch[c].col);
      free(buf[t].ch[c].val);
    }
  ng_free(buf);
  ng_free(start);
  ng_free(rp);
  return st;
}

/* Row i of X (columns from off) times B into acc. */
static inline void row_numeric(const ng_csr *X, int32_t off, int32_t i, const ng_csr *B, double *acc)
{
  const int32_t *bcol = B->col;
  const double *bval = B->val;
  for (int64_t k = X->rowptr[i], k1 = X->rowptr[i + 1]; k < k1; k++) {
    int32_t j = off + X->col[k];
    double a = X->val[k];
    for (int64_t q = B->rowptr[j], q1 = B->rowptr[j + 1]; q < q1; q++) acc[bcol[q]] += a * bval[q];
  }
}

ng_status ng_spgemm_numeric(const ng_csr *A, const ng_csr *B, ng_csr *C)
{
  NG_CHECK(ng_spgemm2_numeric(A, NULL, B, NULL, C));
  return NG_SUCCESS;
}

ng_status ng_spgemm2_numeric(const ng_csr *A, const ng_csr *A2, const ng_csr *B, const ng_csr *B2, ng_csr *C)
{
  int32_t n = A->nrows, m = C->ncols, off2 = B2 ? 0 : A->ncols;
  const ng_csr *Bs = B2 ? B2 : B;
  int nt = 1;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
  /* the threads' accumulators in one block made here: a failure is the
   * allocator's own error (an injected one names its number), and no
   * thread can miss the loop's worksharing (an allocation inside the
   * region could fail on one thread only) */
  double *accs = NULL;
  NG_CHECK(NG_CALLOC(accs, (size_t)nt * ((size_t)m + 1)));
#pragma omp parallel num_threads(nt)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    double *acc = accs + (size_t)t * ((size_t)m + 1);
#pragma omp for schedule(dynamic, 256)
    for (int32_t i = 0; i < n; i++) {
      row_numeric(A, 0, i, B, acc);
      if (A2) row_numeric(A2, off2, i, Bs, acc);
      for (int64_t p = C->rowptr[i]; p < C->rowptr[i + 1]; p++) {
        C->val[p] = acc[C->col[p]];
        acc[C->col[p]] = 0.0;
      }
    }
  }
  ng_free(accs);
  return NG_SUCCESS;
}
