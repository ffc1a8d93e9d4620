/* amg/amg_interp_ext.c: extended+i interpolation (De Sterck, Falgout,
 * Nolting, Yang, "Distance-two interpolation for parallel algebraic
 * multigrid", Numer. Linear Algebra Appl. 15, 2008; hypre's interp type 6,
 * hypre_BoomerAMGBuildExtPIInterp). An F point i interpolates from
 * C^_i = its strong C points and those of its strong F neighbours k:
 *   w_ij = -(a_ij + sum_k a_ik abar_kj / s_k) / (a_ii + sum_weak a_il
 *                                                 + sum_k a_ik abar_ki / s_k),
 *   s_k = sum_{l in C^_i + {i}} abar_kl, abar_kl = a_kl when its sign is
 * opposite to a_kk's, else 0 (a k with s_k = 0 goes to the diagonal). Every
 * other neighbour (weak, or a C point outside C^_i) is lumped into the
 * diagonal, so a row of zero sum interpolates the constant exactly. */
#include "amg.h"
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
  const ng_csr *A;
  const ng_graph *S;
  const int8_t *cf;
  const int32_t *cidx;
  const double *diag;
  int32_t *mark, *pos, *smark; /* mark[j] == i: j in C^_i at pos[j]; smark[j] == i: j in S_i */
  int32_t *col;                /* the row being built */
  double *val;
} ext_work;

static void add_interp_point(ext_work *W, int32_t i, int32_t j, int *m)
{
  if (W->cf[j] != 1 || W->mark[j] == i) return;
  W->mark[j] = i;
  W->pos[j] = *m;
  W->col[*m] = W->cidx[j];
  W->val[*m] = 0;
  (*m)++;
}

/* Distributes a_ik of the strong F neighbour k over C^_i and i; returns what goes to the diagonal. */
static double distribute(ext_work *W, int32_t i, int32_t k, double aik)
{
  const ng_csr *A = W->A;
  double sgn = W->diag[k] < 0 ? -1.0 : 1.0, sum = 0, dg = 0;
  for (int64_t q = A->rowptr[k]; q < A->rowptr[k + 1]; q++) {
    int32_t l = A->col[q];
    if (l != k && (W->mark[l] == i || l == i) && sgn * A->val[q] < 0) sum += A->val[q];
  }
  if (sum == 0) return aik;
  double f = aik / sum;
  for (int64_t q = A->rowptr[k]; q < A->rowptr[k + 1]; q++) {
    int32_t l = A->col[q];
    if (l == k || sgn * A->val[q] >= 0) continue;
    if (W->mark[l] == i) W->val[W->pos[l]] += f * A->val[q];
    else if (l == i) dg += f * A->val[q];
  }
  return dg;
}

/* Row i of P (an F point) into W->col/val; returns its length. */
static int f_row(ext_work *W, int32_t i)
{
  const ng_csr *A = W->A;
  const ng_graph *S = W->S;
  int m = 0;
  for (int64_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) {
    int32_t k = S->col[q];
    W->smark[k] = i;
    add_interp_point(W, i, k, &m);
    if (W->cf[k] == 1) continue;
    for (int64_t r = S->rowptr[k]; r < S->rowptr[k + 1]; r++) add_interp_point(W, i, S->col[r], &m);
  }
  if (m == 0) return 0;
  double d = W->diag[i];
  for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
    int32_t j = A->col[q];
    if (j == i) continue;
    if (W->mark[j] == i) W->val[W->pos[j]] += A->val[q];
    else if (W->smark[j] == i && W->cf[j] != 1) d += distribute(W, i, j, A->val[q]);
    else d += A->val[q];
  }
  if (d == 0) return 0;
  for (int a = 0; a < m; a++) W->val[a] /= -d;
  return m;
}

/* A thread's rows of P: plain malloc/realloc (inside the OpenMP region no
 * library allocation runs, so the allocation counts of NG_FAIL_ALLOC stay
 * in order: core/memory.c), freed with free. */
typedef struct {
  int64_t *len;  /* each row's length */
  int32_t *col;
  double *val;
  int64_t nnz, cap;
} rowbuf;

static int rowbuf_put(rowbuf *b, int64_t r, const int32_t *col, const double *val, int m)
{
  if (b->nnz + m > b->cap) {
    int64_t cap = 2 * b->cap + m + 1024;
    int32_t *c = realloc(b->col, (size_t)cap * sizeof(int32_t));
    if (c) b->col = c;
    double *v = c ? realloc(b->val, (size_t)cap * sizeof(double)) : NULL;
    if (v) b->val = v;
    if (!c || !v) return 0;
    b->cap = cap;
  }
  if (m) {
    memcpy(b->col + b->nnz, col, (size_t)m * sizeof(int32_t));
    memcpy(b->val + b->nnz, val, (size_t)m * sizeof(double));
  }
  b->nnz += m;
  b->len[r] = m;
  return 1;
}

/* Rows [lo, hi) of P into b; 0 when out of memory. */
static int ext_rows(ext_work *W, int32_t lo, int32_t hi, int64_t row0, int pmax, rowbuf *b)
{
  int32_t one = 0;
  double val1 = 1.0;
  for (int32_t i = lo; i < hi; i++) {
    if (W->cf[i] == 1) {
      one = W->cidx[i];
      if (!rowbuf_put(b, i - lo, &one, &val1, 1)) return 0;
      continue;
    }
    int m = f_row(W, i);
    m = ng_amg_interp_truncate((int32_t)(row0 + i), W->col, W->val, m, pmax); /* ties by the global row */
    if (!rowbuf_put(b, i - lo, W->col, W->val, m)) return 0;
  }
  return 1;
}

static void work_free(ext_work *W)
{
  ng_free(W->mark);
  ng_free(W->pos);
  ng_free(W->smark);
  ng_free(W->col);
  ng_free(W->val);
}

/* A thread's marks over the n rows (-1: none) and room for the longest row. */
static ng_status work_alloc(ext_work *W, int32_t n, int64_t longest)
{
  size_t nn = n > 0 ? (size_t)n : 1, m = longest > 0 ? (size_t)longest : 1;
  NG_CHECK(NG_MALLOC(W->mark, nn));
  NG_CHECK(NG_MALLOC(W->pos, nn));
  NG_CHECK(NG_MALLOC(W->smark, nn));
  NG_CHECK(NG_MALLOC(W->col, m));
  NG_CHECK(NG_MALLOC(W->val, m));
  for (int32_t i = 0; i < n; i++) W->mark[i] = W->smark[i] = -1;
  return NG_SUCCESS;
}

/* The longest row f_row can build before truncation: every strong
 * neighbour and every strong neighbour of one. */
static int64_t longest_row(const ng_graph *S, int32_t nrows)
{
  int64_t longest = 1;
#pragma omp parallel for reduction(max : longest) schedule(static) if (nrows > 20000)
  for (int32_t i = 0; i < nrows; i++) {
    int64_t m = S->rowptr[i + 1] - S->rowptr[i];
    for (int64_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) m += S->rowptr[S->col[q] + 1] - S->rowptr[S->col[q]];
    if (m > longest) longest = m;
  }
  return longest;
}

/* Rows are independent (a row's marks are told apart by its index), so
 * threads build contiguous row ranges, each with its own marks, and the
 * ranges are joined in order: the same P as one thread's, bit for bit. */
ng_status ng_amg_interp_extended_rows(const ng_csr *A, const ng_graph *S, const int8_t *cf, const int32_t *cidx,
                                     int32_t nrows, int64_t row0, int32_t nc, int pmax, ng_csr *P)
{
  int32_t n = A->nrows;
  double *diag = NULL;
  ext_work *W = NULL;
  rowbuf *B = NULL;
  int nt = 1, fail = 0;
  ng_status st;
  memset(P, 0, sizeof(*P));
  NG_CHECK_GOTO(st, NG_MALLOC(diag, n > 0 ? (size_t)n : 1), out);
  NG_CHECK_GOTO(st, ng_csr_diagonal(A, diag, 0), out);
  for (int32_t i = 0; i < n; i++) /* P's rows and the neighbours' (not the distributed level's empty rows) */
    if (diag[i] == 0.0 && (i < nrows || A->rowptr[i + 1] > A->rowptr[i])) {
      st = i < nrows ? NG_ERROR(NG_ERR_NUMERIC, "row %lld (0-based %lld) has a zero or missing diagonal entry",
                                (long long)(row0 + i + 1), (long long)(row0 + i))
                     : NG_ERROR(NG_ERR_NUMERIC, "a neighbouring rank's row has a zero or missing diagonal entry");
      goto out;
    }
#ifdef _OPENMP
  nt = omp_get_max_threads();
  if (nt > nrows / 4096) nt = nrows / 4096 > 1 ? nrows / 4096 : 1; /* a thread's marks cost 12 bytes a row */
#endif
  int64_t longest = longest_row(S, nrows);
  NG_CHECK_GOTO(st, NG_CALLOC(W, nt), out);
  NG_CHECK_GOTO(st, NG_CALLOC(B, nt), out);
  for (int t = 0; t < nt; t++) {
    ext_work w = {A, S, cf, cidx, diag, NULL, NULL, NULL, NULL, NULL};
    W[t] = w;
    int32_t lo = (int32_t)((int64_t)nrows * t / nt), hi = (int32_t)((int64_t)nrows * (t + 1) / nt);
    NG_CHECK_GOTO(st, work_alloc(&W[t], n, longest), out);
    NG_CHECK_GOTO(st, NG_CALLOC(B[t].len, (size_t)(hi - lo) + 1), out);
  }
#pragma omp parallel for num_threads(nt) schedule(static, 1) reduction(| : fail)
  for (int t = 0; t < nt; t++) {
    int32_t lo = (int32_t)((int64_t)nrows * t / nt), hi = (int32_t)((int64_t)nrows * (t + 1) / nt);
    fail |= !ext_rows(&W[t], lo, hi, row0, pmax, &B[t]);
  }
  if (fail) {
    st = NG_ERROR(NG_ERR_MEMORY, "extended+i interpolation: no memory for the rows of P (%d rows)", (int)nrows);
    goto out;
  }
  int64_t total = 0;
  for (int t = 0; t < nt; t++) total += B[t].nnz;
  NG_CHECK_GOTO(st, ng_csr_alloc(P, nrows, nc, total), out);
  P->rowptr[0] = 0;
  int64_t at = 0;
  for (int t = 0; t < nt; t++) {
    int32_t lo = (int32_t)((int64_t)nrows * t / nt), hi = (int32_t)((int64_t)nrows * (t + 1) / nt);
    for (int32_t r = 0; r < hi - lo; r++) P->rowptr[lo + r + 1] = P->rowptr[lo + r] + B[t].len[r];
    if (B[t].nnz) {
      memcpy(P->col + at, B[t].col, (size_t)B[t].nnz * sizeof(int32_t));
      memcpy(P->val + at, B[t].val, (size_t)B[t].nnz * sizeof(double));
    }
    at += B[t].nnz;
  }
out:
  for (int t = 0; W && t < nt; t++) work_free(&W[t]);
  for (int t = 0; B && t < nt; t++) {
    ng_free(B[t].len);
    free(B[t].col);
    free(B[t].val);
  }
  ng_free(W);
  ng_free(B);
  ng_free(diag);
  if (st) ng_csr_free(P);
  return st;
}

ng_status ng_amg_interp_extended(const ng_csr *A, const ng_graph *S, const int8_t *cf, int pmax, ng_csr *P)
{
  int32_t *cidx = NULL, nc;
  memset(P, 0, sizeof(*P));
  NG_CHECK(ng_amg_coarse_index(A->nrows, cf, &cidx, &nc));
  ng_status st = ng_amg_interp_extended_rows(A, S, cf, cidx, A->nrows, 0, nc, pmax, P);
  ng_free(cidx);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}
