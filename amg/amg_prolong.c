/* amg/amg_prolong.c: the prolongator of smoothed aggregation (Vanek,
 * Mandel, Brezina 1996). Tentative P from the constant vector, one column
 * per aggregate, normalised so that its columns are orthonormal; smoothed
 * P = (I - omega D^-1 A_F) P_tent with omega = 4 / (3 rho(D^-1 A)); R = P^T.
 * A_F is A, or with -amg_filter (the default) A without its weak couplings
 * (ng_amg_strength's test at the level's theta), each added to the
 * diagonal, as ML and AmgX do: the row sums stay, so P_tent's constant is
 * still reproduced, and interpolation does not reach across weak couplings
 * (layers of a coefficient jump, the weak direction of an anisotropy). D
 * stays A's diagonal.
 * Patterns and values are computed separately so that update() only redoes
 * the values. */
#include "amg.h"
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static int nthreads(void)
{
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
static int thread_id(void)
{
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

ng_status ng_amg_tentative(int32_t n, const int32_t *agg, int32_t nagg, double *ptent)
{
  int32_t *size;
  NG_CHECK(NG_CALLOC(size, nagg));
  for (int32_t i = 0; i < n; i++)
    if (agg[i] >= 0) size[agg[i]]++;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) ptent[i] = agg[i] >= 0 ? 1.0 / sqrt((double)size[agg[i]]) : 0.0;
  ng_free(size);
  return NG_SUCCESS;
}

ng_status ng_amg_tentative_carried(int32_t n, const int32_t *agg, int32_t nagg, const double *b, double *ptent,
                                   double *bc)
{
  for (int32_t J = 0; J < nagg; J++) bc[J] = 0.0;
  for (int32_t i = 0; i < n; i++) /* in row order: the same sums at every run */
    if (agg[i] >= 0) bc[agg[i]] += (b ? b[i] * b[i] : 1.0);
  for (int32_t J = 0; J < nagg; J++) bc[J] = sqrt(bc[J]);
  for (int32_t i = 0; i < n; i++) ptent[i] = agg[i] >= 0 ? (b ? b[i] : 1.0) / bc[agg[i]] : 0.0;
  return NG_SUCCESS;
}

/* Deterministic start vector in [0.5, 1.5) with every mode present
 * (amg_rho_cuda.cu has a device copy: keep them equal). */
static double start_value(int32_t i)
{
  uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + 12345;
  x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return 0.5 + (double)(x & 0xffff) / 65536.0;
}

ng_status ng_amg_spectral_radius(const ng_csr *A, int iters, double *rho)
{
  int32_t n = A->nrows;
  double *s = NULL, *v = NULL, *w = NULL, est = 0.0;
  ng_status st = NG_SUCCESS;
  NG_CHECK_GOTO(st, NG_MALLOC(s, n), out);
  NG_CHECK_GOTO(st, NG_MALLOC(v, n), out);
  NG_CHECK_GOTO(st, NG_MALLOC(w, n), out);
  NG_CHECK_GOTO(st, ng_csr_diagonal(A, s, 1), out);
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) s[i] = 1.0 / sqrt(fabs(s[i]));
  for (int32_t i = 0; i < n; i++) v[i] = start_value(i);
  /* B = D^-1/2 A D^-1/2 (|D| keeps it defined for negative diagonals):
   * w = B v, est = v.w / v.v, v = w / ||w|| */
  for (int it = 0; it < iters; it++) {
    double vv = 0, vw = 0, ww = 0;
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int32_t i = 0; i < n; i++) v[i] *= s[i];
    ng_csr_spmv(A, 1.0, v, 0.0, w);
#pragma omp parallel for schedule(static) reduction(+ : vv, vw, ww) if (n > 20000)
    for (int32_t i = 0; i < n; i++) {
      double vi = v[i] / s[i], wi = w[i] * s[i];
      vv += vi * vi;
      vw += vi * wi;
      ww += wi * wi;
      w[i] = wi;
    }
    if (!(ww > 0) || !(vv > 0)) break;
    est = fabs(vw / vv);
    double scale = 1.0 / sqrt(ww);
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int32_t i = 0; i < n; i++) v[i] = w[i] * scale;
  }
  if (!(est > 0) || !isfinite(est)) {
    st = NG_ERROR(NG_ERR_NUMERIC, "AMG: the spectral radius estimate of D^-1 A is %g on a level of %d rows", est,
                  (int)n);
    goto out;
  }
  *rho = est;
out:
  ng_free(s);
  ng_free(v);
  ng_free(w);
  return st;
}

/* The same estimate for the finest level on the context's memory (the
 * user's matrix and ctx->vops: on the GPU when the context is there). v is
 * a context vector of n kept between calls for the warm start. */
ng_status ng_amg_spectral_radius_ctx(ng_matrix A, int iters, double *v, int warm, double *rho)
{
  ng_context ctx = A->ctx;
  const ng_vec_ops *V = ctx->vops;
  int32_t n = A->n_local;
  double *h = NULL, *s = NULL, *t = NULL, *w = NULL, est = 0.0;
  int done = 0;
  ng_status st = V->alloc(ctx, &s, n);
  if (!st) st = V->alloc(ctx, &t, n);
  if (!st) st = V->alloc(ctx, &w, n);
#ifdef NG_HAVE_CUDA
  /* s and the start vector made on the device from the matrix's CSR (same
   * values; under MPI too: the host's diagonal of a 8M-row block and two
   * uploads took 60 ms a rank at lap27:256 on 2 H100s) */
  if (!st && ctx->on_gpu) st = ng_amg_gpu_rho_init(A, s, warm ? NULL : v, &done);
#endif
  if (!st && !done) {
    st = NG_MALLOC(h, n);
    /* several ranks: the zero check names the global row (agreed below, before the iterations) */
    if (!st) st = ng_csr_diagonal(&A->local, h, ctx->size == 1);
    for (int32_t i = 0; !st && ctx->size > 1 && i < n; i++)
      if (h[i] == 0.0)
        st = NG_ERROR(NG_ERR_NUMERIC, "AMG: row %lld (0-based %lld) has a zero or missing diagonal entry",
                      (long long)(A->row_begin + i + 1), (long long)(A->row_begin + i));
    if (!st) {
#pragma omp parallel for schedule(static) if (n > 20000)
      for (int32_t i = 0; i < n; i++) h[i] = 1.0 / sqrt(fabs(h[i]));
      st = V->upload(ctx, s, h, n);
    }
    if (!st && !warm) {
      /* by global row: every rank count starts from the same vector */
      for (int32_t i = 0; i < n; i++) h[i] = start_value((int32_t)(A->row_begin + i));
      st = V->upload(ctx, v, h, n);
    }
  }
  /* the iterations are collective: no rank starts them alone */
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  for (int it = 0; it < iters; it++) {
    double r[3];
    const double *x[3] = {v, v, w}, *y[3] = {v, w, w};
    NG_CHECK_GOTO(st, V->pointwise_mult(ctx, n, s, v, t), out);
    NG_CHECK_GOTO(st, ng_matrix_apply_raw(A, t, w), out);
    NG_CHECK_GOTO(st, V->pointwise_mult(ctx, n, s, w, w), out);
    NG_CHECK_GOTO(st, V->dot_local(ctx, n, 3, x, y, r), out);
    NG_CHECK_GOTO(st, ng_comm_allreduce_sum(ctx, r, 3), out);
    if (!(r[2] > 0) || !(r[0] > 0)) break;
    est = fabs(r[1] / r[0]);
    NG_CHECK_GOTO(st, V->axpbypcz(ctx, n, 1.0 / sqrt(r[2]), w, 0.0, w, 0.0, v), out);
  }
  if (!(est > 0) || !isfinite(est)) {
    st = NG_ERROR(NG_ERR_NUMERIC, "AMG: the spectral radius estimate of D^-1 A is %g on the finest level", est);
    goto out;
  }
  *rho = est;
out:
  ng_free(h);
  V->free(ctx, s);
  V->free(ctx, t);
  V->free(ctx, w);
  return st;
}

static void sort_ints(int32_t *a, int64_t n)
{
  for (int64_t i = 1; i < n; i++) {
    int32_t x = a[i];
    int64_t j = i;
    for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
    a[j] = x;
  }
}

/* The aggregates of row i of X (its columns numbered from off) not yet
 * marked for row i: marked, written at out + c (when out), counted on c. */
static inline int64_t mark_row(const ng_csr *X, int32_t off, int32_t i, const int32_t *agg, int32_t *mark,
                               int32_t *out, int64_t c)
{
  for (int64_t k = X->rowptr[i]; k < X->rowptr[i + 1]; k++) {
    int32_t a = agg[off + X->col[k]];
    if (a < 0 || mark[a] == i) continue;
    mark[a] = i;
    if (out) out[c] = a;
    c++;
  }
  return c;
}

/* Row i of P has a column for every aggregate met in row i of A. The
 * threads' markers are one allocation made before the parallel region, so
 * that its failure reports itself (an allocation failing inside the region
 * left only a generic message: the fault walk could not find its number). */
ng_status ng_amg_smooth_pattern(const ng_csr *A, const ng_csr *A2, const int32_t *agg, int32_t nagg, ng_csr *P)
{
  int32_t n = A->nrows, *marks = NULL;
  int64_t *rp = NULL;
  int nt = 1;
  ng_status st = NG_SUCCESS;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
  memset(P, 0, sizeof(*P));
  NG_CHECK(NG_CALLOC(rp, (size_t)n + 1));
  NG_CHECK_GOTO(st, NG_MALLOC(marks, (size_t)nt * nagg + 1), out);
  for (int pass = 0; pass < 2; pass++) {
#pragma omp parallel num_threads(nt)
    {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num();
#endif
      int32_t *mark = marks + (size_t)t * nagg;
      for (int32_t c = 0; c < nagg; c++) mark[c] = -1;
#pragma omp for schedule(static)
      for (int32_t i = 0; i < n; i++) {
        int32_t *out = pass ? P->col + P->rowptr[i] : NULL;
        int64_t c = mark_row(A, 0, i, agg, mark, out, 0);
        if (A2) c = mark_row(A2, A->ncols, i, agg, mark, out, c);
        if (pass) sort_ints(out, c);
        else rp[i + 1] = c;
      }
    }
    if (!pass) {
      for (int32_t i = 0; i < n; i++) rp[i + 1] += rp[i];
      NG_CHECK_GOTO(st, ng_csr_alloc(P, n, nagg, rp[n]), out);
      memcpy(P->rowptr, rp, ((size_t)n + 1) * sizeof(int64_t));
    }
  }
out:
  ng_free(rp);
  ng_free(marks);
  if (st != NG_SUCCESS) ng_csr_free(P);
  return st;
}

static int64_t find_col(const int32_t *col, int64_t lo, int64_t hi, int32_t c)
{
  while (hi - lo > 1) {
    int64_t mid = (lo + hi) / 2;
    if (col[mid] <= c) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* df plus the couplings of row i of X (columns from off) that the filter
 * drops. */
static inline double weak_sum(const ng_csr *X, int32_t off, int32_t i, double df, double ti, int sgn,
                              const double *sd)
{
  const int32_t *col = X->col;
  const double *val = X->val;
  for (int64_t k = X->rowptr[i], k1 = X->rowptr[i + 1]; k < k1; k++) {
    int32_t j = off + col[k];
    if (j != i && !NG_AMG_STRONG(val[k], ti, 1.0, sd[j], sgn)) df += val[k];
  }
  return df;
}

/* Row i of X's (columns from off) s a_ij ptent_j into P's row [lo, hi)
 * (the diagonal's value df when filtered, dropped couplings skipped). */
static inline void add_row(const ng_csr *X, int32_t off, int32_t i, const int32_t *agg, const double *ptent,
                           double s, double df, double ti, int sgn, const double *sd, int lumped, ng_csr *P,
                           int64_t lo, int64_t hi)
{
  const int32_t *col = X->col;
  const double *val = X->val;
  for (int64_t k = X->rowptr[i], k1 = X->rowptr[i + 1]; k < k1; k++) {
    int32_t j = off + col[k];
    double v = val[k];
    if (agg[j] < 0) continue;
    if ((sd || lumped) && j == i) v = df;
    else if (sd && !NG_AMG_STRONG(v, ti, 1.0, sd[j], sgn)) continue;
    P->val[find_col(P->col, lo, hi, agg[j])] += s * v * ptent[j];
  }
}

int32_t ng_amg_smooth_rows(const ng_csr *A, const ng_csr *A2, const int32_t *agg, const double *ptent, double omega,
                           double filter, int sgn, const double *sd, const double *lump, ng_csr *P)
{
  int32_t n = A->nrows, off = A->ncols, bad = -1;
  if (!(filter > 0)) sd = NULL;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t lo = P->rowptr[i], hi = P->rowptr[i + 1];
    double d = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) /* A2's columns are past A's: no diagonal there */
      if (A->col[k] == i) d += A->val[k];
    for (int64_t p = lo; p < hi; p++) P->val[p] = 0.0;
    if (d == 0.0) {
#pragma omp critical(ng_amg_bad_row)
      if (bad < 0 || i < bad) bad = i;
      continue;
    }
    /* filtered: the diagonal takes the weak couplings (row sums kept); ti
     * = filter sqrt |a_ii|, the strength test's first product (the same
     * rounding: filter * si * sj is (filter * si) * sj) */
    double s = -omega / d, df = lump ? d + lump[i] : d, ti = sd ? filter * sd[i] : 0.0;
    if (sd) {
      df = weak_sum(A, 0, i, df, ti, sgn, sd);
      if (A2) df = weak_sum(A2, off, i, df, ti, sgn, sd);
    }
    add_row(A, 0, i, agg, ptent, s, df, ti, sgn, sd, lump != NULL, P, lo, hi);
    if (A2) add_row(A2, off, i, agg, ptent, s, df, ti, sgn, sd, lump != NULL, P, lo, hi);
    if (agg[i] >= 0) P->val[find_col(P->col, lo, hi, agg[i])] += ptent[i];
  }
  return bad;
}

ng_status ng_amg_smooth_values(const ng_csr *A, const int32_t *agg, const double *ptent, double omega,
                               double filter, int sgn, const double *lump, ng_csr *P)
{
  int32_t n = A->nrows;
  double *sd = NULL; /* sqrt |a_ii| for the filter */
  if (filter > 0) {
    NG_CHECK(NG_MALLOC(sd, n));
    ng_status st = ng_amg_sqrt_diagonal(A, sd);
    if (st != NG_SUCCESS) {
      ng_free(sd);
      return ng_error_trace(st, __FILE__, __LINE__);
    }
  }
  int32_t bad = ng_amg_smooth_rows(A, NULL, agg, ptent, omega, filter, sgn, sd, lump, P);
  ng_free(sd);
  if (bad >= 0) return NG_ERROR(NG_ERR_NUMERIC, "AMG: a level's row %d (0-based %d) has a zero or missing diagonal entry",
                              (int)bad + 1, (int)bad);
  return NG_SUCCESS;
}

/* Parallel transpose with a column histogram per thread: each thread owns a
 * contiguous block of rows, so every row of T lists its columns in order
 * and the result does not depend on the thread count. perm (optional)
 * records where each entry of A went, for ng_csr_transpose_values. */
ng_status ng_csr_transpose(const ng_csr *A, ng_csr *T, int64_t *perm)
{
  int32_t n = A->nrows, m = A->ncols;
  int nt = nthreads();
  int64_t *cnt = NULL;
  ng_status st = NG_SUCCESS;
  memset(T, 0, sizeof(*T));
  NG_CHECK(NG_CALLOC(cnt, (size_t)nt * m + 1));
#pragma omp parallel num_threads(nt)
  {
    int t = thread_id();
    int32_t lo = (int32_t)((int64_t)n * t / nt), hi = (int32_t)((int64_t)n * (t + 1) / nt);
    int64_t *c = cnt + (size_t)t * m;
    for (int64_t k = A->rowptr[lo]; k < A->rowptr[hi]; k++) c[A->col[k]]++;
  }
  NG_CHECK_GOTO(st, ng_csr_alloc(T, m, n, A->nnz), out);
  /* cnt[t][c] becomes the position where thread t writes column c */
  int64_t pos = 0;
  for (int32_t c = 0; c < m; c++) {
    T->rowptr[c] = pos;
    for (int t = 0; t < nt; t++) {
      int64_t x = cnt[(size_t)t * m + c];
      cnt[(size_t)t * m + c] = pos;
      pos += x;
    }
  }
  T->rowptr[m] = pos;
#pragma omp parallel num_threads(nt)
  {
    int t = thread_id();
    int32_t lo = (int32_t)((int64_t)n * t / nt), hi = (int32_t)((int64_t)n * (t + 1) / nt);
    int64_t *c = cnt + (size_t)t * m;
    for (int32_t i = lo; i < hi; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        int64_t p = c[A->col[k]]++;
        T->col[p] = i;
        T->val[p] = A->val[k];
        if (perm) perm[k] = p;
      }
  }
out:
  ng_free(cnt);
  return st;
}

void ng_csr_transpose_values(const ng_csr *A, const int64_t *perm, ng_csr *T)
{
#pragma omp parallel for schedule(static) if (A->nnz > 20000)
  for (int64_t k = 0; k < A->nnz; k++) T->val[perm[k]] = A->val[k];
}
