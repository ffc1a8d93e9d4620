/* spmv/registry.c: the table of SpMV formats per memory space, the parser of
 * format options ("sell:32:256", "dia:noldg:nounroll", over the defaults of
 * -dia_max_diags ... -sell_sigma, spmv_options.c) and
 * ng_spmv_create / ng_spmv_create_from, which turn a format spec into a
 * created instance (the latter from a CSR instance already on ctx's memory,
 * so that GPU conversions start from its device arrays). A new format adds
 * its ops table here and nowhere else. */
#include "autotune.h"
#include <errno.h>

extern const ng_spmv_ops ng_spmv_csr_host, ng_spmv_dia_host, ng_spmv_dia_half_host, ng_spmv_ell_host,
    ng_spmv_ellr_host, ng_spmv_sell_host, ng_spmv_codsell_host, ng_spmv_auto_host;
#ifdef NG_HAVE_CUDA
extern const ng_spmv_ops ng_spmv_csr_cuda, ng_spmv_dia_cuda, ng_spmv_dia_half_cuda, ng_spmv_ell_cuda,
    ng_spmv_ellr_cuda, ng_spmv_sell_cuda, ng_spmv_codsell_cuda, ng_spmv_auto_cuda;
#endif

static const ng_spmv_ops *const host_formats[] = {&ng_spmv_csr_host, &ng_spmv_dia_host, &ng_spmv_dia_half_host,
                                                  &ng_spmv_ell_host, &ng_spmv_ellr_host, &ng_spmv_sell_host,
                                                  &ng_spmv_codsell_host, &ng_spmv_auto_host, NULL};
#ifdef NG_HAVE_CUDA
static const ng_spmv_ops *const cuda_formats[] = {&ng_spmv_csr_cuda, &ng_spmv_dia_cuda, &ng_spmv_dia_half_cuda,
                                                  &ng_spmv_ell_cuda, &ng_spmv_ellr_cuda, &ng_spmv_sell_cuda,
                                                  &ng_spmv_codsell_cuda, &ng_spmv_auto_cuda, NULL};
#else
static const ng_spmv_ops *const cuda_formats[] = {NULL};
#endif

const ng_spmv_ops *ng_spmv_find(const char *name, int on_gpu)
{
  const ng_spmv_ops *const *t = on_gpu ? cuda_formats : host_formats;
  for (; *t; t++)
    if (!strcmp((*t)->name, name)) return *t;
  return NULL;
}

const char *const *ng_spmv_names(int on_gpu)
{
  static const char *names[2][16];
  const ng_spmv_ops *const *t = on_gpu ? cuda_formats : host_formats;
  int k = 0;
  for (; *t && k < 15; t++) names[on_gpu ? 1 : 0][k++] = (*t)->name;
  names[on_gpu ? 1 : 0][k] = NULL;
  return names[on_gpu ? 1 : 0];
}

/* ---- options ---------------------------------------------------------------- */
/* A whole-token number: 1 and *v set, else 0. */
static int token_number(const char *s, double *v)
{
  char *end;
  if (!*s) return 0;
  errno = 0;
  *v = strtod(s, &end);
  return !*end && !errno;
}

ng_status ng_spmv_opts_parse(const char *fmt, const char *opt, ng_spmv_opts *o)
{
  const ng_spmv_defaults *d = ng_spmv_get_defaults(); /* -dia_max_diags ... -sell_sigma */
  o->dia_max_diags = d->dia_max_diags;
  o->dia_max_fill = d->dia_max_fill;
  o->ell_max_ratio = d->ell_max_ratio;
  int codsell = !strcmp(fmt, "codsell"); /* its own defaults: C = 32, sigma = all rows (seed 003) */
  o->sell_c = d->sell_c;
  o->sell_sigma = d->sell_sigma;
  if (codsell) {
    o->sell_c = 32;
    o->sell_sigma = 1 << 30;
  }
  o->unroll = 1;
  o->ldg = 1;
  o->codsell_seq = 0;
  o->codsell_force = 0;
  if (!opt) return NG_SUCCESS;
  char buf[128];
  if (strlen(opt) >= sizeof(buf)) return NG_ERROR(NG_ERR_ARGUMENT, "%s: options '%s' too long", fmt, opt);
  snprintf(buf, sizeof(buf), "%s", opt);
  int npos = 0;
  for (char *save = NULL, *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
    double v;
    if (!strcmp(t, "noldg")) o->ldg = 0;
    else if (!strcmp(t, "ldg")) o->ldg = 1;
    else if (!strcmp(t, "nounroll")) o->unroll = 0;
    else if (!strcmp(t, "unroll")) o->unroll = 1;
    else if (!strncmp(t, "maxdiag=", 8) && token_number(t + 8, &v) && v >= 0) o->dia_max_diags = (int)v;
    else if (!strncmp(t, "maxfill=", 8) && token_number(t + 8, &v) && v > 0) o->dia_max_fill = v;
    else if (!strncmp(t, "maxratio=", 9) && token_number(t + 9, &v) && v > 0) o->ell_max_ratio = v;
    else if (codsell && !strcmp(t, "seq")) o->codsell_seq = 1;
    else if (codsell && !strcmp(t, "par")) o->codsell_seq = 0;
    else if (codsell && !strcmp(t, "force")) o->codsell_force = 1;
    else if ((!strcmp(fmt, "sell") || codsell) && token_number(t, &v) && v >= 1 && v == (int)v && npos < 2) {
      if (npos++ == 0) o->sell_c = (int)v; else o->sell_sigma = (int)v;
    } else
      return NG_ERROR(NG_ERR_ARGUMENT,
                      "format '%s': unknown option '%s' (known: noldg, nounroll, maxdiag=N, maxfill=F, "
                      "maxratio=R, for sell and codsell C[:sigma], for codsell seq, par, force)",
                      fmt, t);
  }
  if (o->sell_c < 1 || o->sell_c > 1024)
    return NG_ERROR(NG_ERR_ARGUMENT, "format '%s': SELL slice height C = %d outside 1..1024", fmt, o->sell_c);
  if (codsell && (o->sell_c & (o->sell_c - 1)))
    return NG_ERROR(NG_ERR_ARGUMENT, "format '%s': slice height C = %d is not a power of two", fmt, o->sell_c);
  if (o->sell_sigma < 1) return NG_ERROR(NG_ERR_ARGUMENT, "format '%s': SELL sigma = %d must be >= 1", fmt, o->sell_sigma);
  return NG_SUCCESS;
}

ng_status ng_spmv_create(ng_context ctx, const char *spec, const ng_csr *A, const ng_spmv_ops **ops, void **data)
{
  NG_CHECK(ng_spmv_create_dev(ctx, spec, A, NULL, ops, data));
  return NG_SUCCESS;
}

/* Splits "name[:options]" and finds the table. */
static ng_status spec_find(ng_context ctx, const char *spec, char *name, size_t len, const char **opt,
                           const ng_spmv_ops **t)
{
  const char *colon = strchr(spec, ':');
  size_t L = colon ? (size_t)(colon - spec) : strlen(spec);
  *opt = colon ? colon + 1 : "";
  if (L >= len) return NG_ERROR(NG_ERR_ARGUMENT, "unknown SpMV format '%s'", spec);
  memcpy(name, spec, L);
  name[L] = 0;
  *t = ng_spmv_find(name, ctx->on_gpu);
  if (!*t) {
    char known[256] = "";
    for (const char *const *n = ng_spmv_names(ctx->on_gpu); *n; n++)
      snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", *known ? ", " : "", *n);
    return NG_ERROR(NG_ERR_ARGUMENT, "unknown SpMV format '%s' on the %s (known: %s)", spec,
                    ctx->on_gpu ? "GPU" : "host", known);
  }
  return NG_SUCCESS;
}

static ng_status create_with(ng_context ctx, const ng_spmv_ops *t, const char *name, const char *opt,
                             const ng_csr *A, const void *dcsr, void **data)
{
  if (dcsr && t->create_dev) NG_CHECK(t->create_dev(ctx, A, dcsr, opt, data));
  else if (t->create_opt) NG_CHECK(t->create_opt(ctx, A, opt, data));
  else if (*opt) return NG_ERROR(NG_ERR_ARGUMENT, "SpMV format '%s' takes no options (given '%s')", name, opt);
  else NG_CHECK(t->create(ctx, A, data));
  return NG_SUCCESS;
}

ng_status ng_spmv_create_dev(ng_context ctx, const char *spec, const ng_csr *A, const void *dcsr,
                             const ng_spmv_ops **ops, void **data)
{
  char name[32];
  const char *opt;
  const ng_spmv_ops *t;
  NG_CHECK(spec_find(ctx, spec, name, sizeof(name), &opt, &t));
  NG_CHECK(create_with(ctx, t, name, opt, A, dcsr, data));
  *ops = t;
  return NG_SUCCESS;
}

ng_status ng_spmv_create_from(ng_context ctx, const char *spec, const ng_csr *A, const ng_spmv_ops *base_ops,
                              void **base_data, const ng_spmv_ops **ops, void **data)
{
  char name[32];
  const char *opt;
  const ng_spmv_ops *t;
  void *base = base_ops && base_data ? *base_data : NULL;
  NG_CHECK(spec_find(ctx, spec, name, sizeof(name), &opt, &t));
  if (!strcmp(name, "auto")) {
    int taken = 0;
    NG_CHECK(ng_spmv_auto_create_from(ctx, A, base ? base_ops : NULL, base, opt, data, &taken));
    if (taken) *base_data = NULL;
  } else if (base && t == base_ops && !strcmp(name, "csr") && !*opt) {
    *data = base; /* A is in CSR already: the instance moves over */
    *base_data = NULL;
  } else {
    void *dcsr = NULL;
#ifdef NG_HAVE_CUDA
    if (base && ctx->on_gpu && t->create_dev) {
      ng_status v = ng_dcsr_view(ctx, base_ops, base, A, &dcsr); /* NG_ERR_ARGUMENT: base is not a GPU csr */
      if (v != NG_SUCCESS && v != NG_ERR_ARGUMENT) return ng_error_trace(v, __FILE__, __LINE__);
    }
#endif
    ng_status st = create_with(ctx, t, name, opt, A, dcsr, data);
#ifdef NG_HAVE_CUDA
    if (dcsr) ng_dcsr_destroy(dcsr);
#endif
    NG_CHECK(st);
  }
  *ops = t;
  return NG_SUCCESS;
}
