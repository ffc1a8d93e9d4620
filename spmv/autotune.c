/* spmv/autotune.c: "-format auto". At setup every registered format that
 * fits the block is created and timed on a few SpMVs (CUDA events on the GPU,
 * wall clock on the host); the fastest is kept and the rest destroyed, so at
 * most two formats are alive at once. ng_spmv_select works on any CSR block
 * (one call per AMG level); the "auto" tables wrap it for ng_matrix, so that
 * ng_matrix_format() says "auto:<chosen>" and ng_spmv_autotune_report() gives
 * the timings. */
#include "formats.h"

#define NG_AUTO_WARMUP 2
#define NG_AUTO_REPS 7

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

ng_status ng_spmv_time(ng_context ctx, const ng_spmv_ops *ops, void *data, int ncopies, double *const *x,
                       double *const *y, int warmup, int reps, double *median_ms)
{
  NG_ASSERT_ARG(ncopies >= 1 && reps >= 1 && warmup >= 0, "ng_spmv_time: bad counts %d copies, %d reps", ncopies, reps);
#ifdef NG_HAVE_CUDA
  if (ctx->on_gpu) {
    NG_CHECK(ng_spmv_time_cuda(ctx, ops, data, ncopies, x, y, warmup, reps, median_ms));
    return NG_SUCCESS;
  }
#endif
  double *t = NULL;
  NG_CHECK(NG_MALLOC(t, reps));
  for (int k = 0; k < warmup; k++) NG_CHECK(ops->apply(data, 1.0, x[k % ncopies], 0.0, y[k % ncopies]));
  for (int k = 0; k < reps; k++) {
    double t0 = ng_wtime();
    ng_status st = ops->apply(data, 1.0, x[k % ncopies], 0.0, y[k % ncopies]);
    t[k] = (ng_wtime() - t0) * 1e3;
    if (st != NG_SUCCESS) {
      ng_free(t);
      return ng_error_trace(st, __FILE__, __LINE__);
    }
  }
  qsort(t, (size_t)reps, sizeof(double), cmp_double);
  *median_ms = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  ng_free(t);
  return NG_SUCCESS;
}

/* Appends to the report without overflowing it. */
static void report_add(char *report, size_t len, const char *name, const char *what)
{
  if (!report || !len) return;
  size_t used = strlen(report);
  if (used < len) snprintf(report + used, len - used, "%s%s %s", used ? ", " : "", name, what);
}

ng_status ng_spmv_select(ng_context ctx, const ng_csr *A, const ng_spmv_ops **ops, void **data, char *report,
                         size_t len)
{
  const ng_spmv_ops *best = NULL;
  void *best_data = NULL;
  double best_ms = 0.0, *x = NULL, *y = NULL;
  void *dcsr = NULL;
  ng_status st = NG_SUCCESS;
  char buf[64];
  if (report && len) report[0] = 0;
  NG_CHECK(ctx->vops->alloc(ctx, &x, A->ncols));
  NG_CHECK_GOTO(st, ctx->vops->alloc(ctx, &y, A->nrows), done);
  NG_CHECK_GOTO(st, ctx->vops->fill(ctx, A->ncols, 1.0, x), done);
  NG_CHECK_GOTO(st, ctx->vops->fill(ctx, A->nrows, 0.0, y), done);
#ifdef NG_HAVE_CUDA
  if (ctx->on_gpu) NG_CHECK_GOTO(st, ng_dcsr_create(ctx, A, &dcsr), done); /* one upload for every GPU converter */
#endif
  for (const char *const *name = ng_spmv_names(ctx->on_gpu); *name; name++) {
    const ng_spmv_ops *t = ng_spmv_find(*name, ctx->on_gpu);
    void *d = NULL;
    double ms;
    if (!strcmp(*name, "auto")) continue;
    st = dcsr && t->create_dev ? t->create_dev(ctx, A, dcsr, "", &d) : t->create(ctx, A, &d);
    if (st == NG_ERR_DOES_NOT_FIT || st == NG_ERR_DEVICE_MEMORY || st == NG_ERR_MEMORY) {
      report_add(report, len, *name, st == NG_ERR_DOES_NOT_FIT ? "does-not-fit" : "out-of-memory");
      st = NG_SUCCESS;
      continue;
    }
    if (st != NG_SUCCESS) goto done;
    st = ng_spmv_time(ctx, t, d, 1, &x, &y, NG_AUTO_WARMUP, NG_AUTO_REPS, &ms);
    if (st != NG_SUCCESS) {
      t->destroy(d);
      goto done;
    }
    snprintf(buf, sizeof(buf), "%.4g ms", ms);
    report_add(report, len, *name, buf);
    if (!best || ms < best_ms) {
      if (best) best->destroy(best_data);
      best = t;
      best_data = d;
      best_ms = ms;
    } else {
      t->destroy(d);
    }
  }
  if (!best) {
    st = NG_ERROR(NG_ERR_INTERNAL, "auto: no SpMV format could be created (not even csr)");
    goto done;
  }
  report_add(report, len, "->", best->name);
  *ops = best;
  *data = best_data;
done:
#ifdef NG_HAVE_CUDA
  if (dcsr) ng_dcsr_destroy(dcsr);
#endif
  if (x) ctx->vops->free(ctx, x);
  if (y) ctx->vops->free(ctx, y);
  if (st != NG_SUCCESS) ng_error_trace(st, __FILE__, __LINE__);
  return st;
}

/* ---- the "auto" tables ----------------------------------------------------- */
typedef struct {
  const ng_spmv_ops *ops;
  void *data;
  char name[32];
  char report[512];
} spmv_auto;

static ng_status auto_create(ng_context ctx, const ng_csr *A, void **data)
{
  spmv_auto *S = NULL;
  NG_CHECK(NG_CALLOC(S, 1));
  ng_status st = ng_spmv_select(ctx, A, &S->ops, &S->data, S->report, sizeof(S->report));
  if (st != NG_SUCCESS) {
    ng_free(S);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  snprintf(S->name, sizeof(S->name), "auto:%s", S->ops->name);
  *data = S;
  return NG_SUCCESS;
}
static ng_status auto_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  spmv_auto *S = data;
  return S->ops->apply(S->data, alpha, x, beta, y);
}
static ng_status auto_update(void *data, const ng_csr *A)
{
  spmv_auto *S = data;
  NG_CHECK(S->ops->update_values(S->data, A));
  return NG_SUCCESS;
}
static size_t auto_bytes(const void *data)
{
  const spmv_auto *S = data;
  return S->ops->bytes(S->data);
}
static void auto_destroy(void *data)
{
  spmv_auto *S = data;
  if (!S) return;
  S->ops->destroy(S->data);
  ng_free(S);
}
static const char *auto_describe(const void *data) { return ((const spmv_auto *)data)->name; }

const ng_spmv_ops ng_spmv_auto_host = {.name = "auto", .on_gpu = 0, .create = auto_create, .apply = auto_apply,
                                       .update_values = auto_update, .bytes = auto_bytes, .destroy = auto_destroy,
                                       .describe = auto_describe};
#ifdef NG_HAVE_CUDA
const ng_spmv_ops ng_spmv_auto_cuda = {.name = "auto", .on_gpu = 1, .create = auto_create, .apply = auto_apply,
                                       .update_values = auto_update, .bytes = auto_bytes, .destroy = auto_destroy,
                                       .describe = auto_describe};
#endif

const char *ng_spmv_auto_report(const ng_spmv_ops *ops, const void *data)
{
  if (!ops || ops->describe != auto_describe || !data) return "";
  return ((const spmv_auto *)data)->report;
}

const char *ng_spmv_autotune_report(ng_matrix A)
{
  return A ? ng_spmv_auto_report(A->spmv, A->spmv_data) : "";
}
