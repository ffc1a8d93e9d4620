/* spmv/sell.c: SELL-C-sigma (seed 003, Kreutzer et al.): rows sorted by
 * length inside windows of sigma rows, cut into slices of C rows, each slice
 * padded to its longest row and stored column-major. The permutation stays
 * inside the format: apply() reads and writes x and y in the caller's row
 * order. Host converter, refill, reference SpMV, footprint and host table. */
#include "formats.h"

#ifdef _OPENMP
#define NG_OMP_ROWS _Pragma("omp parallel for schedule(static) if (n > 20000)")
#else
#define NG_OMP_ROWS
#endif

typedef struct {
  int64_t len;
  int32_t row;
} sell_key;

/* Longest row first; equal lengths keep their order (deterministic). */
static int sell_key_cmp(const void *a, const void *b)
{
  const sell_key *x = a, *y = b;
  if (x->len != y->len) return x->len > y->len ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

ng_status ng_sell_fill(ng_sell *S, const ng_csr *A)
{
  int32_t n = S->nslices * S->C, C = S->C, nrows = S->n;
  NG_OMP_ROWS
  for (int32_t t = 0; t < n; t++) {
    int32_t s = t / C, r = t % C;
    int64_t w = (S->sptr[s + 1] - S->sptr[s]) / C, p0 = 0, len = 0;
    if (t < nrows) {
      p0 = A->rowptr[S->perm[t]];
      len = A->rowptr[S->perm[t] + 1] - p0;
    }
    int32_t pad = len ? A->col[p0 + len - 1] : 0;
    for (int64_t k = 0; k < w; k++) {
      int64_t q = S->sptr[s] + k * C + r;
      S->col[q] = k < len ? A->col[p0 + k] : pad;
      S->val[q] = k < len ? A->val[p0 + k] : 0.0;
    }
  }
  return NG_SUCCESS;
}

ng_status ng_sell_build(const ng_csr *A, const ng_spmv_opts *o, ng_sell *S)
{
  int32_t n = A->nrows, C = o->sell_c, sigma = o->sell_sigma;
  sell_key *key = NULL;
  ng_status st;
  memset(S, 0, sizeof(*S));
  if (C < 1 || C > 1024) return NG_ERROR(NG_ERR_ARGUMENT, "sell: slice height C = %d outside 1..1024", C);
  if (sigma < 1) return NG_ERROR(NG_ERR_ARGUMENT, "sell: sorting window sigma = %d must be >= 1", sigma);
  S->n = n;
  S->ncols = A->ncols;
  S->C = C;
  S->sigma = sigma;
  S->nslices = (int32_t)(((int64_t)n + C - 1) / C);
  S->o = *o;
  NG_CHECK_GOTO(st, NG_MALLOC(key, n), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(S->perm, n), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(S->sptr, S->nslices + 1), fail);
  for (int32_t i = 0; i < n; i++) {
    key[i].len = A->rowptr[i + 1] - A->rowptr[i];
    key[i].row = i;
  }
  if (sigma > 1)
    for (int64_t b = 0; b < n; b += sigma) {
      int64_t e = b + sigma < n ? b + sigma : n;
      qsort(key + b, (size_t)(e - b), sizeof(sell_key), sell_key_cmp);
    }
  for (int32_t t = 0; t < n; t++) S->perm[t] = key[t].row;
  S->sptr[0] = 0;
  for (int32_t s = 0; s < S->nslices; s++) {
    int64_t w = 0;
    for (int64_t t = (int64_t)s * C; t < (int64_t)(s + 1) * C && t < n; t++)
      if (key[t].len > w) w = key[t].len;
    S->sptr[s + 1] = S->sptr[s] + w * C;
  }
  if (S->sptr[S->nslices] > 0 && A->ncols == 0) {
    st = NG_ERROR(NG_ERR_INTERNAL, "sell: entries in a matrix with no columns");
    goto fail;
  }
  NG_CHECK_GOTO(st, NG_MALLOC(S->col, S->sptr[S->nslices]), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(S->val, S->sptr[S->nslices]), fail);
  NG_CHECK_GOTO(st, ng_sell_fill(S, A), fail);
  ng_free(key);
  return NG_SUCCESS;
fail:
  ng_free(key);
  ng_sell_free(S);
  return st;
}

void ng_sell_spmv(const ng_sell *S, double alpha, const double *x, double beta, double *y)
{
  int32_t n = S->n, C = S->C;
  NG_OMP_ROWS
  for (int32_t t = 0; t < n; t++) {
    int32_t s = t / C, r = t % C, i = S->perm[t];
    int64_t w = (S->sptr[s + 1] - S->sptr[s]) / C;
    const int32_t *col = S->col + S->sptr[s] + r;
    const double *val = S->val + S->sptr[s] + r;
    double sum = 0.0;
    for (int64_t k = 0; k < w; k++) sum += val[k * C] * x[col[k * C]];
    y[i] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[i];
  }
}

size_t ng_sell_bytes(const ng_sell *S)
{
  size_t total = S->sptr ? (size_t)S->sptr[S->nslices] : 0;
  return total * (sizeof(double) + sizeof(int32_t)) + ((size_t)S->nslices + 1) * sizeof(int64_t) +
         (size_t)S->n * sizeof(int32_t);
}

void ng_sell_free(ng_sell *S)
{
  ng_free(S->sptr);
  ng_free(S->col);
  ng_free(S->val);
  ng_free(S->perm);
  S->sptr = NULL;
  S->col = S->perm = NULL;
  S->val = NULL;
}

/* ---- host table ------------------------------------------------------------ */
static ng_status sell_create_opt(ng_context c, const ng_csr *A, const char *opt, void **data)
{
  ng_spmv_opts o;
  ng_sell *S = NULL;
  NG_CHECK(ng_spmv_opts_parse("sell", opt, &o));
  NG_CHECK(NG_CALLOC(S, 1));
  ng_status st = ng_sell_build(A, &o, S);
  if (st != NG_SUCCESS) {
    ng_free(S);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *data = S;
  return NG_SUCCESS;
}
static ng_status sell_create(ng_context c, const ng_csr *A, void **d) { return sell_create_opt(c, A, "", d); }
static ng_status sell_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  ng_sell_spmv(data, alpha, x, beta, y);
  return NG_SUCCESS;
}
static ng_status sell_update(void *data, const ng_csr *A)
{
  NG_CHECK(ng_sell_fill(data, A));
  return NG_SUCCESS;
}
static size_t sell_bytes(const void *data) { return ng_sell_bytes(data); }
static void sell_destroy(void *data)
{
  if (!data) return;
  ng_sell_free(data);
  ng_free(data);
}

const ng_spmv_ops ng_spmv_sell_host = {.name = "sell", .on_gpu = 0, .create = sell_create, .apply = sell_apply,
                                       .update_values = sell_update, .bytes = sell_bytes, .destroy = sell_destroy,
                                       .create_opt = sell_create_opt};
