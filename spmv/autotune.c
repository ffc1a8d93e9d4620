/* spmv/autotune.c: "-format auto". The choice (spmv/autotune.h): profile
 * the block where it lives, refuse what the profile shows a converter would
 * refuse, time CSR, then convert and time the other formats in increasing
 * lower bound on their traffic while that bound leaves them a chance to beat
 * the best time so far; the fastest is kept and every loser destroyed as soon
 * as it lost, so at most the CSR, the best and one candidate are alive. On
 * the GPU every converter starts from the device CSR of a CSR instance: the
 * matrix's own when one is given (ng_spmv_select_from, from matrix.c), else
 * one made by a single upload, which is also the CSR candidate. Every step is
 * timed (CUDA events on the GPU) into an ng_auto_breakdown. ng_spmv_select
 * works on any CSR block (one call per AMG level); the "auto" tables wrap it
 * for ng_matrix, so that ng_matrix_format() says "auto:<chosen>" and
 * ng_spmv_autotune_report() (dist/matrix.c) gives the timings. */
#include "autotune.h"
#include <math.h>

#define NG_AUTO_WARMUP 2
#define NG_AUTO_REPS 5

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

/* ---- clocks ------------------------------------------------------------------ */
ng_status ng_clock_start(ng_context ctx, ng_clock *c)
{
  memset(c, 0, sizeof(*c));
  c->ctx = ctx;
#ifdef NG_HAVE_CUDA
  if (ctx->on_gpu) {
    NG_CHECK(ng_clock_start_cuda(c));
    return NG_SUCCESS;
  }
#endif
  c->t0 = ng_wtime();
  return NG_SUCCESS;
}
ng_status ng_clock_ms(ng_clock *c, double *ms)
{
#ifdef NG_HAVE_CUDA
  if (c->ctx->on_gpu) {
    NG_CHECK(ng_clock_ms_cuda(c, ms));
    return NG_SUCCESS;
  }
#endif
  *ms = (ng_wtime() - c->t0) * 1e3;
  return NG_SUCCESS;
}
void ng_clock_free(ng_clock *c)
{
#ifdef NG_HAVE_CUDA
  if (c->ctx && c->ctx->on_gpu) ng_clock_free_cuda(c);
#endif
  memset(c, 0, sizeof(*c));
}

/* ---- the choice --------------------------------------------------------------- */
/* Options "all", "slack=F" (F >= 1) over -format_auto_slack; the pruning
 * only for blocks whose CSR has at least -format_auto_prune_mb MB
 * (ng_spmv_get_defaults, spmv.h). */
static ng_status auto_opts(const char *opt, int *all, double *slack, double *prune_mb)
{
  char *end, buf[128];
  const ng_spmv_defaults *d = ng_spmv_get_defaults();
  *all = 0;
  *slack = d->auto_slack;
  *prune_mb = d->auto_prune_mb;
  if (!opt || !*opt) return NG_SUCCESS;
  if (strlen(opt) >= sizeof(buf)) return NG_ERROR(NG_ERR_ARGUMENT, "auto: options '%s' too long", opt);
  snprintf(buf, sizeof(buf), "%s", opt);
  for (char *save = NULL, *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
    if (!strcmp(t, "all")) *all = 1;
    else if (!strncmp(t, "slack=", 6) && t[6] && (*slack = strtod(t + 6, &end), !*end) && *slack >= 1.0 &&
             isfinite(*slack))
      ;
    else
      return NG_ERROR(NG_ERR_ARGUMENT, "format 'auto': unknown option '%s' (known: all, slack=F with F >= 1)", t);
  }
  return NG_SUCCESS;
}

/* *out = ms since the last lap (or the start) */
static ng_status lap(ng_clock *c, double *prev, double *out)
{
  double now;
  NG_CHECK(ng_clock_ms(c, &now));
  *out = now - *prev;
  *prev = now;
  return NG_SUCCESS;
}

static int refusal(ng_status st)
{
  return st == NG_ERR_DOES_NOT_FIT || st == NG_ERR_DEVICE_MEMORY || st == NG_ERR_MEMORY || st == NG_ERR_UNSUPPORTED;
}
static const char *refusal_name(ng_status st)
{
  return st == NG_ERR_DOES_NOT_FIT ? "does-not-fit" : st == NG_ERR_UNSUPPORTED ? "unsupported" : "out-of-memory";
}

/* Everything ng_spmv_select_from holds, released in one place. */
typedef struct {
  ng_context ctx;
  const ng_spmv_ops *csr;
  void *csr_data;
  int csr_given;
  const ng_spmv_ops *best;
  void *best_data;
  void *dcsr;
  double *x, *y;
} auto_state;

static void auto_release(auto_state *w)
{
  if (w->best && w->best_data && w->best_data != w->csr_data) w->best->destroy(w->best_data);
  if (w->csr_data && !w->csr_given) w->csr->destroy(w->csr_data);
#ifdef NG_HAVE_CUDA
  if (w->dcsr) ng_dcsr_destroy(w->dcsr);
#endif
  if (w->x) w->ctx->vops->free(w->ctx, w->x);
  if (w->y) w->ctx->vops->free(w->ctx, w->y);
}

/* Candidates: "csr" first, then the others by increasing lower bound
 * (refused ones last), ties in registry order. */
static ng_status auto_candidates(ng_context ctx, const ng_spmv_profile *prof, ng_auto_breakdown *bd, int *order)
{
  for (const char *const *name = ng_spmv_names(ctx->on_gpu); *name; name++) {
    if (!strcmp(*name, "auto")) continue;
    if (bd->ncand == NG_AUTO_MAXCAND) return NG_ERROR(NG_ERR_INTERNAL, "auto: more than %d formats", NG_AUTO_MAXCAND);
    ng_auto_cand *c = &bd->cand[bd->ncand];
    snprintf(c->name, sizeof(c->name), "%s", *name);
    if (ng_spmv_predict(prof, *name, &c->lo_bytes, c->why, sizeof(c->why))) c->state = "refused";
    order[bd->ncand] = bd->ncand;
    bd->ncand++;
  }
  for (int i = 1; i < bd->ncand; i++) /* insertion sort: a handful of entries */
    for (int j = i; j > 0; j--) {
      const ng_auto_cand *a = &bd->cand[order[j - 1]], *b = &bd->cand[order[j]];
      int ka = strcmp(a->name, "csr") ? (a->state ? 2 : 1) : 0, kb = strcmp(b->name, "csr") ? (b->state ? 2 : 1) : 0;
      if (ka < kb || (ka == kb && (ka != 1 || a->lo_bytes <= b->lo_bytes))) break;
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  return NG_SUCCESS;
}

/* Converts and times candidate c (w->csr_data for "csr"); keeps it when it
 * is the fastest so far. */
static ng_status auto_try(ng_context ctx, const ng_csr *A, auto_state *w, ng_auto_cand *c, double *best_ms,
                          double *best_bw)
{
  const ng_spmv_ops *t = ng_spmv_find(c->name, ctx->on_gpu);
  void *d = NULL;
  ng_status st;
  double ms;
  if (t == w->csr) {
    d = w->csr_data; /* made (and timed) before the view */
  } else {
    ng_clock k;
    NG_CHECK(ng_clock_start(ctx, &k));
    st = w->dcsr && t->create_dev ? t->create_dev(ctx, A, w->dcsr, "", &d) : t->create(ctx, A, &d);
    ng_status sc = ng_clock_ms(&k, &c->convert_ms);
    ng_clock_free(&k);
    if (refusal(st)) {
      c->state = refusal_name(st);
      return NG_SUCCESS;
    }
    if (st == NG_SUCCESS) st = sc;
    if (st != NG_SUCCESS) {
      if (d) t->destroy(d);
      return ng_error_trace(st, __FILE__, __LINE__);
    }
  }
  st = ng_spmv_time(ctx, t, d, 1, &w->x, &w->y, NG_AUTO_WARMUP, NG_AUTO_REPS, &ms);
  if (st != NG_SUCCESS) {
    if (d != w->csr_data) t->destroy(d);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  c->state = "timed";
  c->spmv_ms = ms;
  c->bytes = (double)t->bytes(d) + 8.0 * A->ncols + 8.0 * A->nrows;
  double bw = ms > 0.0 ? c->bytes / ms : INFINITY;
  if (bw > *best_bw) *best_bw = bw;
  if (!w->best || ms < *best_ms) {
    if (w->best && w->best_data != w->csr_data) w->best->destroy(w->best_data);
    w->best = t;
    w->best_data = d;
    *best_ms = ms;
  } else if (d != w->csr_data) {
    t->destroy(d); /* a loser goes at once: peak memory is CSR + best + one */
  }
  return NG_SUCCESS;
}

ng_status ng_spmv_select_from(ng_context ctx, const ng_csr *A, const ng_spmv_ops *base_ops, void *base_data,
                              const char *opt, const ng_spmv_ops **ops, void **data, ng_auto_breakdown *bdp)
{
  ng_auto_breakdown local;
  ng_auto_breakdown *bd = bdp ? bdp : &local;
  auto_state w;
  ng_clock total, step;
  ng_spmv_profile prof;
  int order[NG_AUTO_MAXCAND];
  double best_ms = 0.0, best_bw = 0.0;
  ng_status st = NG_SUCCESS;
  memset(bd, 0, sizeof(*bd));
  memset(&w, 0, sizeof(w));
  double prune_mb;
  NG_CHECK(auto_opts(opt, &bd->all, &bd->slack, &prune_mb));
  w.ctx = ctx;
  w.csr = ng_spmv_find("csr", ctx->on_gpu);
  NG_CHECK(ng_clock_start(ctx, &total));
  NG_CHECK_GOTO(st, ng_clock_start(ctx, &step), done);
  NG_CHECK_GOTO(st, ctx->vops->alloc(ctx, &w.x, A->ncols), done);
  NG_CHECK_GOTO(st, ctx->vops->alloc(ctx, &w.y, A->nrows), done);
  NG_CHECK_GOTO(st, ctx->vops->fill(ctx, A->ncols, 1.0, w.x), done);
  NG_CHECK_GOTO(st, ctx->vops->fill(ctx, A->nrows, 0.0, w.y), done);
  /* 1. the CSR instance: the one given, else made here (on the GPU: the one upload) */
  ng_status csr_st = NG_SUCCESS;
  double prev = 0.0, vectors_ms;
  NG_CHECK_GOTO(st, lap(&step, &prev, &vectors_ms), done); /* x and y: in total_ms only */
  if (base_ops == w.csr && base_data) {
    w.csr_data = base_data;
    w.csr_given = 1;
    bd->from_device = 1;
  } else {
    csr_st = w.csr->create(ctx, A, &w.csr_data);
    if (csr_st != NG_SUCCESS && !refusal(csr_st)) NG_CHECK_GOTO(st, csr_st, done);
    if (csr_st != NG_SUCCESS) w.csr_data = NULL;
    NG_CHECK_GOTO(st, lap(&step, &prev, &bd->csr_ms), done);
  }
  /* 2. the converters' device CSR: a view of that instance (an upload when there is none) */
#ifdef NG_HAVE_CUDA
  if (ctx->on_gpu) {
    if (w.csr_data) NG_CHECK_GOTO(st, ng_dcsr_view(ctx, w.csr, w.csr_data, A, &w.dcsr), done);
    else NG_CHECK_GOTO(st, ng_dcsr_create(ctx, A, &w.dcsr), done);
    NG_CHECK_GOTO(st, lap(&step, &prev, &bd->view_ms), done);
  }
#endif
  /* 3. profile */
#ifdef NG_HAVE_CUDA
  if (ctx->on_gpu) NG_CHECK_GOTO(st, ng_spmv_profile_cuda(ctx, w.dcsr, &prof), done);
  else
#endif
    NG_CHECK_GOTO(st, ng_spmv_profile_host(A, &prof), done);
  NG_CHECK_GOTO(st, lap(&step, &prev, &bd->profile_ms), done);
  /* 4. candidates, and 5. conversions and timings while they can win. A
   * block whose CSR is under prune_mb MB may sit in the caches, where times
   * do not follow the bytes: every format that fits is timed (cheap there). */
  NG_CHECK_GOTO(st, auto_candidates(ctx, &prof, bd, order), done);
  int prune = bd->pruning = !bd->all && 12.0 * (double)A->nnz + 4.0 * A->nrows >= prune_mb * 1e6;
  for (int k = 0; k < bd->ncand; k++) {
    ng_auto_cand *c = &bd->cand[order[k]];
    if (c->state) continue; /* refused by the profile */
    if (!strcmp(c->name, "csr")) {
      c->convert_ms = bd->csr_ms;
      if (!w.csr_data) {
        c->state = refusal_name(csr_st);
        continue;
      }
    } else if (prune && w.best && c->lo_bytes / (bd->slack * best_bw) >= best_ms) {
      c->state = "pruned";
      continue;
    }
    NG_CHECK_GOTO(st, auto_try(ctx, A, &w, c, &best_ms, &best_bw), done);
  }
  if (!w.best) {
    st = NG_ERROR(NG_ERR_INTERNAL, "auto: no SpMV format could be created (not even csr)");
    goto done;
  }
  snprintf(bd->chosen, sizeof(bd->chosen), "%s", w.best->name);
  *ops = w.best;
  *data = w.best_data;
  if (w.best_data == w.csr_data) w.csr_data = NULL; /* the caller's now (or base itself) */
  w.best = NULL;
  w.best_data = NULL;
done:
  auto_release(&w);
  if (st == NG_SUCCESS && ng_clock_ms(&total, &bd->total_ms) != NG_SUCCESS) bd->total_ms = -1.0; /* keep the result */
  ng_clock_free(&step);
  ng_clock_free(&total);
  if (st != NG_SUCCESS) ng_error_trace(st, __FILE__, __LINE__);
  return st;
}

/* "csr 2.4 ms, dia_half 0.86 ms, dia pruned, ... -> dia_half" */
static void auto_report(const ng_auto_breakdown *bd, char *report, size_t len)
{
  if (!report || !len) return;
  report[0] = 0;
  for (int k = 0; k <= bd->ncand; k++) {
    size_t used = strlen(report);
    if (used >= len) break;
    if (k == bd->ncand) snprintf(report + used, len - used, "%s-> %s", used ? ", " : "", bd->chosen);
    else if (bd->cand[k].spmv_ms > 0 || !strcmp(bd->cand[k].state, "timed"))
      snprintf(report + used, len - used, "%s%s %.4g ms", used ? ", " : "", bd->cand[k].name, bd->cand[k].spmv_ms);
    else
      snprintf(report + used, len - used, "%s%s %s", used ? ", " : "", bd->cand[k].name, bd->cand[k].state);
  }
}

void ng_auto_breakdown_json(const ng_auto_breakdown *bd, char *buf, size_t len)
{
  if (!buf || !len) return;
  snprintf(buf, len,
           "\"total_ms\":%.3f,\"from_device\":%d,\"all\":%d,\"pruning\":%d,\"slack\":%.2f,\"csr_ms\":%.3f,\"view_ms\":%.3f,"
           "\"profile_ms\":%.3f,\"candidates\":[",
           bd->total_ms, bd->from_device, bd->all, bd->pruning, bd->slack, bd->csr_ms, bd->view_ms, bd->profile_ms);
  for (int k = 0; k < bd->ncand; k++) {
    const ng_auto_cand *c = &bd->cand[k];
    size_t used = strlen(buf);
    if (used >= len) return;
    snprintf(buf + used, len - used,
             "%s{\"format\":\"%s\",\"state\":\"%s\",\"lo_bytes\":%.0f,\"bytes\":%.0f,\"convert_ms\":%.3f,"
             "\"spmv_ms\":%.4f%s%s%s}",
             k ? "," : "", c->name, c->state ? c->state : "-", c->lo_bytes, c->bytes, c->convert_ms, c->spmv_ms,
             *c->why ? ",\"why\":\"" : "", c->why, *c->why ? "\"" : "");
  }
  size_t used = strlen(buf);
  if (used < len) snprintf(buf + used, len - used, "],\"chosen\":\"%s\"", bd->chosen);
}

ng_status ng_spmv_select(ng_context ctx, const ng_csr *A, const ng_spmv_ops **ops, void **data, char *report,
                         size_t len)
{
  ng_auto_breakdown bd;
  if (report && len) report[0] = 0;
  NG_CHECK(ng_spmv_select_from(ctx, A, NULL, NULL, "", ops, data, &bd));
  auto_report(&bd, report, len);
  return NG_SUCCESS;
}

/* ---- the "auto" tables ----------------------------------------------------- */
typedef struct {
  const ng_spmv_ops *ops;
  void *data;
  char name[32];
  char report[512];
  ng_auto_breakdown bd;
} spmv_auto;

ng_status ng_spmv_auto_create_from(ng_context ctx, const ng_csr *A, const ng_spmv_ops *base_ops, void *base_data,
                                   const char *opt, void **data, int *base_taken)
{
  spmv_auto *S = NULL;
  *base_taken = 0;
  NG_CHECK(NG_CALLOC(S, 1));
  ng_status st = ng_spmv_select_from(ctx, A, base_ops, base_data, opt, &S->ops, &S->data, &S->bd);
  if (st != NG_SUCCESS) {
    ng_free(S);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *base_taken = base_data && S->data == base_data;
  auto_report(&S->bd, S->report, sizeof(S->report));
  snprintf(S->name, sizeof(S->name), "auto:%s", S->ops->name);
  *data = S;
  return NG_SUCCESS;
}
static ng_status auto_create_opt(ng_context ctx, const ng_csr *A, const char *opt, void **data)
{
  int taken;
  NG_CHECK(ng_spmv_auto_create_from(ctx, A, NULL, NULL, opt, data, &taken));
  return NG_SUCCESS;
}
static ng_status auto_create(ng_context ctx, const ng_csr *A, void **data)
{
  NG_CHECK(auto_create_opt(ctx, A, "", data));
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
                                       .create_opt = auto_create_opt, .describe = auto_describe};
#ifdef NG_HAVE_CUDA
const ng_spmv_ops ng_spmv_auto_cuda = {.name = "auto", .on_gpu = 1, .create = auto_create, .apply = auto_apply,
                                       .update_values = auto_update, .bytes = auto_bytes, .destroy = auto_destroy,
                                       .create_opt = auto_create_opt, .describe = auto_describe};
#endif

const char *ng_spmv_auto_report(const ng_spmv_ops *ops, const void *data)
{
  if (!ops || ops->describe != auto_describe || !data) return "";
  return ((const spmv_auto *)data)->report;
}

const ng_auto_breakdown *ng_spmv_auto_breakdown(const ng_spmv_ops *ops, const void *data)
{
  if (!ops || ops->describe != auto_describe || !data) return NULL;
  return &((const spmv_auto *)data)->bd;
}
