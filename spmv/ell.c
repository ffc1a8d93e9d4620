/* spmv/ell.c: ELLPACK ("ell") and ELLPACK-R ("ellr") storage (seed 002):
 * column-major n x width arrays so a warp's loads are coalesced; padding
 * repeats a valid column with value 0 (ELL runs every row to width with no
 * branch), ELLR adds row lengths so each row stops at its own end. Refused
 * when the longest row is more than maxratio x the mean row length. Host
 * converter, refill, reference SpMV, footprint and host tables. */
#include "formats.h"

#ifdef _OPENMP
#define NG_OMP_ROWS _Pragma("omp parallel for schedule(static) if (n > 20000)")
#else
#define NG_OMP_ROWS
#endif

ng_status ng_ell_fill(ng_ell *E, const ng_csr *A)
{
  int32_t n = E->n, w = E->width;
  NG_OMP_ROWS
  for (int32_t i = 0; i < n; i++) {
    int64_t p0 = A->rowptr[i], len = A->rowptr[i + 1] - p0;
    int32_t pad = len ? A->col[p0 + len - 1] : 0;
    for (int32_t k = 0; k < w; k++) {
      size_t s = (size_t)k * n + i;
      E->col[s] = k < len ? A->col[p0 + k] : pad;
      E->val[s] = k < len ? A->val[p0 + k] : 0.0;
    }
    if (E->ellr) E->rl[i] = (int32_t)len;
  }
  return NG_SUCCESS;
}

ng_status ng_ell_build(const ng_csr *A, int ellr, const ng_spmv_opts *o, ng_ell *E)
{
  const char *name = ellr ? "ellr" : "ell";
  int32_t n = A->nrows;
  int64_t w = 0;
  memset(E, 0, sizeof(*E));
  for (int32_t i = 0; i < n; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
  double mean = n ? (double)A->nnz / n : 0.0;
  if (w > 0 && (double)w > o->ell_max_ratio * mean)
    return NG_ERROR(NG_ERR_DOES_NOT_FIT,
                    "%s: longest row has %lld entries, %.1f x the mean %.2f (limit %g x; maxratio=, -ell_max_ratio)",
                    name, (long long)w, (double)w / mean, mean, o->ell_max_ratio);
  if (w > 0 && A->ncols == 0)
    return NG_ERROR(NG_ERR_INTERNAL, "%s: entries in a matrix with no columns", name);
  ng_status st;
  E->n = n;
  E->ncols = A->ncols;
  E->width = (int32_t)w;
  E->ellr = ellr;
  E->o = *o;
  NG_CHECK_GOTO(st, NG_MALLOC(E->col, (size_t)w * n), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(E->val, (size_t)w * n), fail);
  if (ellr) NG_CHECK_GOTO(st, NG_MALLOC(E->rl, n), fail);
  NG_CHECK_GOTO(st, ng_ell_fill(E, A), fail);
  return NG_SUCCESS;
fail:
  ng_ell_free(E);
  return st;
}

void ng_ell_spmv(const ng_ell *E, double alpha, const double *x, double beta, double *y)
{
  int32_t n = E->n;
  NG_OMP_ROWS
  for (int32_t i = 0; i < n; i++) {
    int32_t len = E->ellr ? E->rl[i] : E->width;
    double s = 0.0;
    for (int32_t k = 0; k < len; k++) {
      size_t q = (size_t)k * n + i;
      s += E->val[q] * x[E->col[q]];
    }
    y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
  }
}

size_t ng_ell_bytes(const ng_ell *E)
{
  return (size_t)E->width * E->n * (sizeof(double) + sizeof(int32_t)) + (E->ellr ? (size_t)E->n * sizeof(int32_t) : 0);
}

void ng_ell_free(ng_ell *E)
{
  ng_free(E->col);
  ng_free(E->val);
  ng_free(E->rl);
  E->col = E->rl = NULL;
  E->val = NULL;
}

/* ---- host tables ---------------------------------------------------------- */
static ng_status ell_create_any(const ng_csr *A, const char *opt, int ellr, void **data)
{
  ng_spmv_opts o;
  ng_ell *E = NULL;
  NG_CHECK(ng_spmv_opts_parse(ellr ? "ellr" : "ell", opt, &o));
  NG_CHECK(NG_CALLOC(E, 1));
  ng_status st = ng_ell_build(A, ellr, &o, E);
  if (st != NG_SUCCESS) {
    ng_free(E);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *data = E;
  return NG_SUCCESS;
}
static ng_status ell_create_opt(ng_context c, const ng_csr *A, const char *opt, void **d)
{
  return ell_create_any(A, opt, 0, d);
}
static ng_status ellr_create_opt(ng_context c, const ng_csr *A, const char *opt, void **d)
{
  return ell_create_any(A, opt, 1, d);
}
static ng_status ell_create(ng_context c, const ng_csr *A, void **d) { return ell_create_any(A, "", 0, d); }
static ng_status ellr_create(ng_context c, const ng_csr *A, void **d) { return ell_create_any(A, "", 1, d); }
static ng_status ell_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  ng_ell_spmv(data, alpha, x, beta, y);
  return NG_SUCCESS;
}
static ng_status ell_update(void *data, const ng_csr *A)
{
  NG_CHECK(ng_ell_fill(data, A));
  return NG_SUCCESS;
}
static size_t ell_bytes(const void *data) { return ng_ell_bytes(data); }
static void ell_destroy(void *data)
{
  if (!data) return;
  ng_ell_free(data);
  ng_free(data);
}

const ng_spmv_ops ng_spmv_ell_host = {.name = "ell", .on_gpu = 0, .create = ell_create, .apply = ell_apply,
                                      .update_values = ell_update, .bytes = ell_bytes, .destroy = ell_destroy,
                                      .create_opt = ell_create_opt};
const ng_spmv_ops ng_spmv_ellr_host = {.name = "ellr", .on_gpu = 0, .create = ellr_create, .apply = ell_apply,
                                       .update_values = ell_update, .bytes = ell_bytes, .destroy = ell_destroy,
                                       .create_opt = ellr_create_opt};
