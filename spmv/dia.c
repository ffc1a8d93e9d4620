/* spmv/dia.c: CDS/DIA storage (seed 000): diagonal offsets detected from the
 * matrix, full storage ("dia") and symmetric half storage ("dia_half", only
 * offsets <= 0; the upper part is read from the stored lower entries). Host
 * converter with its refusal rules, value refill, reference SpMV, footprint,
 * and the host ops tables. The CUDA tables in dia_cuda.cu reuse the converter. */
#include "formats.h"
#include <math.h>
#include <stdint.h>

#ifdef _OPENMP
#define NG_OMP_ROWS _Pragma("omp parallel for schedule(static) if (n > 20000)")
#define NG_PRAGMA(x) _Pragma(#x)
#define NG_OMP_REDUCE_MIN(v) NG_PRAGMA(omp parallel for schedule(static) reduction(min : v) if (n > 20000))
#else
#define NG_OMP_ROWS
#define NG_OMP_REDUCE_MIN(v)
#endif

/* Index of offset o in the ascending table, -1 when absent. */
static int32_t dia_find(const ng_dia *D, int32_t o)
{
  int32_t lo = 0, hi = D->nd - 1;
  while (lo <= hi) {
    int32_t m = (lo + hi) / 2;
    if (D->off[m] == o) return m;
    if (D->off[m] < o) lo = m + 1; else hi = m - 1;
  }
  return -1;
}

/* Relative tolerance for calling A symmetric (assembly sums the two halves in
 * different orders, so they may differ in the last bits). */
#define NG_DIA_SYM_RTOL 1e-12

/* Half storage: checks A(i+k, i) == A(i, i+k) for every stored lower entry
 * by filling the mirrored upper entries into a second array of the same
 * shape (O(nd*n) memory, O(nnz) time). */
static ng_status dia_check_symmetric(const ng_dia *D, const ng_csr *A)
{
  int32_t n = D->n;
  double *U = NULL;
  NG_CHECK(NG_CALLOC(U, (size_t)D->nd * n));
  int64_t bad = INT64_MAX; /* first failing slot d*n + r (min over threads) */
  /* Rows are independent: U[d][j] for j > i is written by row i = j + off[d] only. */
  NG_OMP_REDUCE_MIN(bad)
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int32_t j = A->col[p];
      if (j <= i) continue;
      int32_t d = dia_find(D, i - j); /* A(i,j), j > i, mirrors the lower A(j,i) stored at row j */
      if (d < 0) { /* cannot happen: the offset pattern was checked symmetric */
        if ((int64_t)i < bad) bad = i;
        continue;
      }
      U[(size_t)d * n + j] += A->val[p];
    }
  if (bad != INT64_MAX) {
    ng_free(U);
    return NG_ERROR(NG_ERR_INTERNAL, "dia_half: row %lld has an upper entry with no stored mirror", (long long)bad);
  }
  for (int32_t d = 0; d < D->nd; d++) {
    if (D->off[d] == 0) continue;
    NG_OMP_REDUCE_MIN(bad)
    for (int32_t r = 0; r < n; r++) {
      double l = D->val[(size_t)d * n + r], u = U[(size_t)d * n + r];
      if (fabs(l - u) > NG_DIA_SYM_RTOL * fmax(fabs(l), fabs(u)) && (int64_t)d * n + r < bad) bad = (int64_t)d * n + r;
    }
  }
  if (bad != INT64_MAX) {
    int32_t d = (int32_t)(bad / n), r = (int32_t)(bad % n), c = r + D->off[d];
    double l = D->val[bad], u = U[bad];
    ng_free(U);
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "dia_half: the matrix is not symmetric (A(%d,%d) = %g but A(%d,%d) = %g)",
                    (int)r, (int)c, l, (int)c, (int)r, u);
  }
  ng_free(U);
  return NG_SUCCESS;
}

ng_status ng_dia_fill(ng_dia *D, const ng_csr *A)
{
  int32_t n = D->n;
  int64_t bad = INT64_MAX; /* first row with an entry off the pattern */
  if (D->nd) memset(D->val, 0, (size_t)D->nd * n * sizeof(double));
  NG_OMP_REDUCE_MIN(bad)
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int32_t o = A->col[p] - i;
      if (D->half && o > 0) continue;
      int32_t d = dia_find(D, o);
      if (d < 0) {
        if ((int64_t)i < bad) bad = i;
        continue;
      }
      D->val[(size_t)d * n + i] += A->val[p];
    }
  if (bad != INT64_MAX)
    return NG_ERROR(NG_ERR_ARGUMENT, "%s: row %lld has an entry on a diagonal that is not in the pattern",
                    D->half ? "dia_half" : "dia", (long long)bad);
  if (D->half) NG_CHECK(dia_check_symmetric(D, A));
  return NG_SUCCESS;
}

ng_status ng_dia_build(const ng_csr *A, int half, const ng_spmv_opts *o, ng_dia *D)
{
  const char *name = half ? "dia_half" : "dia";
  memset(D, 0, sizeof(*D));
  if (A->nrows != A->ncols)
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "%s: needs a square block (is %d x %d)", name, (int)A->nrows, (int)A->ncols);
  int32_t n = A->nrows;
  unsigned char *mark = NULL;
  if (n > (1 << 30)) /* kernels form i + offset in 32-bit ints */
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "%s: %d rows, more than 2^30 (row + offset must fit 32 bits)", name, (int)n);
  int64_t stored = 0; /* nonzeros the format keeps (the lower part for half) */
  NG_CHECK(NG_CALLOC(mark, n ? 2 * (size_t)n - 1 : 1));
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int32_t off = A->col[p] - i;
      mark[off + n - 1] = 1;
      if (!half || off <= 0) stored++;
    }
  int32_t nall = 0, nd = 0;
  for (int64_t k = 0; k < (n ? 2 * (int64_t)n - 1 : 0); k++)
    if (mark[k]) {
      nall++;
      if (!half || k <= n - 1) nd++;
    }
  if (half) /* the pattern must be symmetric: every +k has its -k */
    for (int64_t k = 1; k < n; k++)
      if (mark[n - 1 + k] != mark[n - 1 - k]) {
        long long present = mark[n - 1 + k] ? k : -k;
        ng_free(mark);
        return NG_ERROR(NG_ERR_DOES_NOT_FIT, "dia_half: the matrix is not symmetric (diagonal %lld is present, %lld is not)",
                        present, -present);
      }
  int maxd = o->dia_max_diags < NG_DIA_MAXD ? o->dia_max_diags : NG_DIA_MAXD;
  if (nall > maxd) {
    ng_free(mark);
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "%s: %d distinct diagonals, more than the limit %d (maxdiag=, -dia_max_diags)",
                    name, (int)nall, maxd);
  }
  if ((double)nd * n > o->dia_max_fill * (double)stored && nd > 0) {
    ng_free(mark);
    return NG_ERROR(NG_ERR_DOES_NOT_FIT,
                    "%s: %d diagonals x %d rows = %.0f slots for %lld nonzeros, padding above the limit "
                    "(slots <= %g x nonzeros; maxfill=, -dia_max_fill)",
                    name, (int)nd, (int)n, (double)nd * n, (long long)stored, o->dia_max_fill);
  }
  ng_status st = NG_SUCCESS;
  D->n = n;
  D->nd = nd;
  D->half = half;
  D->o = *o;
  NG_CHECK_GOTO(st, NG_MALLOC(D->off, nd), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(D->val, (size_t)nd * n), fail);
  nd = 0;
  for (int64_t k = 0; k < (n ? 2 * (int64_t)n - 1 : 0); k++)
    if (mark[k] && (!half || k <= n - 1)) D->off[nd++] = (int32_t)(k - (n - 1));
  NG_CHECK_GOTO(st, ng_dia_fill(D, A), fail);
  ng_free(mark);
  return NG_SUCCESS;
fail:
  ng_free(mark);
  ng_dia_free(D);
  return st;
}

void ng_dia_spmv(const ng_dia *D, double alpha, const double *x, double beta, double *y)
{
  int32_t n = D->n, nd = D->nd;
  NG_OMP_ROWS
  for (int32_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int32_t d = 0; d < nd; d++) {
      int64_t j = (int64_t)i + D->off[d];
      if (j >= 0 && j < n) s += D->val[(size_t)d * n + i] * x[j];
      if (D->half && D->off[d] < 0) { /* upper entry A(i, r) = stored A(r, i), r = i - off */
        int64_t r = (int64_t)i - D->off[d];
        if (r < n) s += D->val[(size_t)d * n + r] * x[r];
      }
    }
    y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
  }
}

void ng_dia_fused(const ng_dia *D, const double *b, const double *x, const double *dinv, double *y)
{
  int32_t n = D->n, nd = D->nd;
  NG_OMP_ROWS
  for (int32_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int32_t d = 0; d < nd; d++) { /* the sum of ng_dia_spmv, in its order */
      int64_t j = (int64_t)i + D->off[d];
      if (j >= 0 && j < n) s += D->val[(size_t)d * n + i] * x[j];
      if (D->half && D->off[d] < 0) {
        int64_t r = (int64_t)i - D->off[d];
        if (r < n) s += D->val[(size_t)d * n + r] * x[r];
      }
    }
    double r = b[i] + -1.0 * s;
    y[i] = dinv ? x[i] + dinv[i] * r : r;
  }
}

size_t ng_dia_bytes(const ng_dia *D)
{
  return (size_t)D->nd * D->n * sizeof(double) + (size_t)D->nd * sizeof(int32_t);
}

void ng_dia_free(ng_dia *D)
{
  ng_free(D->off);
  ng_free(D->val);
  D->off = NULL;
  D->val = NULL;
}

/* ---- host tables ---------------------------------------------------------- */
static ng_status dia_create_any(const ng_csr *A, const char *opt, int half, void **data)
{
  ng_spmv_opts o;
  ng_dia *D = NULL;
  NG_CHECK(ng_spmv_opts_parse(half ? "dia_half" : "dia", opt, &o));
  NG_CHECK(NG_CALLOC(D, 1));
  ng_status st = ng_dia_build(A, half, &o, D);
  if (st != NG_SUCCESS) {
    ng_free(D);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *data = D;
  return NG_SUCCESS;
}
static ng_status dia_create_opt(ng_context ctx, const ng_csr *A, const char *opt, void **data)
{
  return dia_create_any(A, opt, 0, data);
}
static ng_status dia_half_create_opt(ng_context ctx, const ng_csr *A, const char *opt, void **data)
{
  return dia_create_any(A, opt, 1, data);
}
static ng_status dia_create(ng_context ctx, const ng_csr *A, void **data) { return dia_create_any(A, "", 0, data); }
static ng_status dia_half_create(ng_context ctx, const ng_csr *A, void **data)
{
  return dia_create_any(A, "", 1, data);
}
static ng_status dia_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  ng_dia_spmv(data, alpha, x, beta, y);
  return NG_SUCCESS;
}
static ng_status dia_update(void *data, const ng_csr *A)
{
  NG_CHECK(ng_dia_fill(data, A));
  return NG_SUCCESS;
}
static ng_status dia_fused(void *data, const double *b, const double *x, const double *dinv, double *y)
{
  ng_dia_fused(data, b, x, dinv, y);
  return NG_SUCCESS;
}
static size_t dia_bytes(const void *data) { return ng_dia_bytes(data); }
static void dia_destroy(void *data)
{
  if (!data) return;
  ng_dia_free(data);
  ng_free(data);
}

const ng_spmv_ops ng_spmv_dia_host = {.name = "dia", .on_gpu = 0, .create = dia_create, .apply = dia_apply,
                                      .update_values = dia_update, .bytes = dia_bytes, .destroy = dia_destroy,
                                      .create_opt = dia_create_opt, .fused = dia_fused};
const ng_spmv_ops ng_spmv_dia_half_host = {.name = "dia_half", .on_gpu = 0, .create = dia_half_create,
                                           .apply = dia_apply, .update_values = dia_update, .bytes = dia_bytes,
                                           .destroy = dia_destroy, .create_opt = dia_half_create_opt,
                                           .fused = dia_fused};
