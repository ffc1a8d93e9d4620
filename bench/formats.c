/* bench/formats.c: SpMV format benchmark (issue 5). For each matrix (a
 * generator spec such as fem27:256, or a .mtx path) and each format spec,
 * converts on the host, uploads, then times y = A x: median of >= 20 runs
 * after warm-up (CUDA events on the GPU, wall clock on the host), cycling
 * through several x/y copies so that x is not sitting in the 50 MB L2
 * between runs. One JSON line per case:
 *   {"bench":"formats","matrix":..,"n":..,"nnz":..,"format":..,"ms":..,
 *    "GBs":..,"GFLOPS":..,"bytes":..,"setup_s":..}
 * GB/s counts the format's bytes() + x (8 n) + y written (8 n) once per SpMV;
 * GFLOPS = 2 nnz / time. A refusal prints "refused" with the reason.
 * Usage: formats [-reps N] [-device cpu|gpu] [-auto-only] [-profile] [MATRIX[=fmt,fmt,...]] ...
 * With no MATRIX, runs fem27:64/128/256 (seed 000's table: NODES per side),
 * lap27:256 and mps:43; give .mtx paths for real matrices. -copy also times
 * a plain 2 GB device copy, the bandwidth roof.
 *
 * CoD-SELL (issue 13): when a matrix's list holds "codsell", one more line
 * first compares its converters and footprints (seed 003, tables 4.x/5.2):
 *   {"bench":"codsell","matrix":..,"C":32,"csr_bytes":..,"sell_bytes":..,
 *    "seq_bytes":..,"par_bytes":..,"par_over_seq":..,"over_csr":..,
 *    "over_sell":..,"seq_s":..,"par_host_s":..,"gpu_s":..,"upload_s":..,
 *    "gpu_speedup":..}
 * seq_s: Algorithm 5 on one host thread; par_host_s: the matching-round
 * converter with OpenMP; gpu_s: the same converter on the GPU from the CSR
 * already on the device (upload_s: that upload; device context only);
 * gpu_speedup = seq_s / gpu_s. Bytes
 * are the parallel converter's unless named; over_* = par_bytes / that
 * format's bytes (csr: 12 nnz + 4 (n+1), sell: SELL-32-256).
 *
 * auto (issue 13 item 4): each "auto[:opts]" in a list also gives the choice
 * as `-format auto` makes it on a matrix, from the matrix's CSR already on
 * ctx's memory (its upload timed apart, as upload_ms), with the breakdown
 * measured inside (CUDA events on the GPU):
 *   {"bench":"auto","matrix":..,"n":..,"nnz":..,"spec":..,"upload_ms":..,
 *    "wall_ms":..,"total_ms":..,"from_device":1,"all":0,"slack":1.30,
 *    "csr_ms":0,"view_ms":..,"profile_ms":..,"candidates":[{"format":..,
 *    "state":"timed|pruned|refused|does-not-fit|..","lo_bytes":..,
 *    "bytes":..,"convert_ms":..,"spmv_ms":..},...],"chosen":..}
 * total_ms is the whole choice (the number the issue bounds by 1.5 s at
 * 256^3); the "formats" line of the same spec times the chosen format from
 * the host CSR (setup_s: upload included; left out with -auto-only).
 * "auto:all" times every format. -profile prints only auto's structural
 * profile and each format's refusal or lower bound over CSR's (no
 * conversion, no timing):
 *   {"bench":"auto_profile","matrix":..,"max_row":..,"ndiag":..,
 *    "formats":[{"format":..,"lo_over_csr":..|"refused":why},...]} */
#include "../solver/solver.h"
#include "../spmv/autotune.h"
#ifdef NG_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include <dirent.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *seed000 =
    "csr,dia,dia:noldg,dia:nounroll,dia:nounroll:noldg,dia_half,dia_half:noldg,dia_half:nounroll,"
    "dia_half:nounroll:noldg,ell,ellr,sell,sell:32:1,codsell,codsell:16,auto";
static const char *general = "csr,dia,dia_half,ell,ellr,sell,sell:32:1,codsell,codsell:16,auto";

static int reps = 30, auto_only = 0, profile_only = 0;

static void json_str(const char *key, const char *v) { printf("\"%s\":\"%s\"", key, v); }

static ng_status bench_one(ng_context ctx, const char *mname, const ng_csr *A, const char *spec)
{
  const ng_spmv_ops *ops = NULL;
  void *data = NULL;
  double t0 = ng_wtime();
  ng_status st = ng_spmv_create(ctx, spec, A, &ops, &data);
  double setup = ng_wtime() - t0;
  printf("{\"bench\":\"formats\",");
  json_str("matrix", mname);
  printf(",\"n\":%d,\"nnz\":%lld,", (int)A->nrows, (long long)A->nnz);
  if (st != NG_SUCCESS) {
    json_str("format", spec);
    printf(",\"refused\":\"");
    for (const char *c = ng_last_error(); *c; c++) putchar(*c == '"' || *c == '\\' ? '\'' : *c);
    printf("\",\"status\":\"%s\"}\n", ng_status_name(st));
    fflush(stdout);
    return st == NG_ERR_DOES_NOT_FIT || st == NG_ERR_DEVICE_MEMORY || st == NG_ERR_MEMORY ? NG_SUCCESS : st;
  }
  /* enough x/y copies to cover 4x the 50 MB L2, at least 2, at most 16 */
  size_t vec = ((size_t)A->nrows + A->ncols) * sizeof(double);
  int ncopies = vec ? (int)((200e6 + vec - 1) / vec) : 2;
  ncopies = ncopies < 2 ? 2 : ncopies > 16 ? 16 : ncopies;
  double *x[16] = {0}, *y[16] = {0}, ms = 0.0;
  for (int k = 0; k < ncopies && st == NG_SUCCESS; k++) {
    st = ctx->vops->alloc(ctx, &x[k], A->ncols);
    if (st == NG_SUCCESS) st = ctx->vops->alloc(ctx, &y[k], A->nrows);
    if (st == NG_SUCCESS) st = ctx->vops->fill(ctx, A->ncols, 1.0 + k, x[k]);
  }
  if (st == NG_SUCCESS) st = ng_spmv_time(ctx, ops, data, ncopies, x, y, 5, reps, &ms);
  if (st == NG_SUCCESS) {
    double bytes = (double)ops->bytes(data) + 8.0 * A->ncols + 8.0 * A->nrows;
    const char *name = ops->describe ? ops->describe(data) : spec;
    json_str("format", name);
    printf(",\"ms\":%.5f,\"GBs\":%.1f,\"GFLOPS\":%.2f,\"bytes\":%.0f,\"setup_s\":%.3f,\"copies\":%d,\"reps\":%d", ms,
           bytes / ms / 1e6, 2.0 * A->nnz / ms / 1e6, bytes, setup, ncopies, reps);
    if (*ng_spmv_auto_report(ops, data)) printf(",\"auto\":\"%s\"", ng_spmv_auto_report(ops, data));
    printf("}\n");
  }
  fflush(stdout);
  for (int k = 0; k < ncopies; k++) {
    if (x[k]) ctx->vops->free(ctx, x[k]);
    if (y[k]) ctx->vops->free(ctx, y[k]);
  }
  ops->destroy(data);
  NG_CHECK(st);
  return NG_SUCCESS;
}

/* "auto" from the CSR already on ctx's memory, with its breakdown (see the file comment). */
static ng_status bench_auto(ng_context ctx, const char *mname, const ng_csr *A, const char *spec)
{
  const ng_spmv_ops *csr = ng_spmv_find("csr", ctx->on_gpu), *ops = NULL;
  void *base = NULL, *data = NULL;
  static char json[8192];
  double t0 = ng_wtime();
  NG_CHECK(csr->create(ctx, A, &base)); /* synchronised: the upload is over */
  double t1 = ng_wtime();
  ng_status st = ng_spmv_create_from(ctx, spec, A, csr, &base, &ops, &data);
  double t2 = ng_wtime();
  if (st != NG_SUCCESS) {
    csr->destroy(base);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  const ng_auto_breakdown *bd = ng_spmv_auto_breakdown(ops, data);
  json[0] = 0;
  if (bd) ng_auto_breakdown_json(bd, json, sizeof(json));
  printf("{\"bench\":\"auto\",\"matrix\":\"%s\",\"n\":%d,\"nnz\":%lld,\"spec\":\"%s\",\"upload_ms\":%.3f,"
         "\"wall_ms\":%.3f,%s}\n",
         mname, (int)A->nrows, (long long)A->nnz, spec, (t1 - t0) * 1e3, (t2 - t1) * 1e3, json);
  fflush(stdout);
  ops->destroy(data);
  if (base) csr->destroy(base);
  return NG_SUCCESS;
}

/* -profile: auto's structural profile of A on the host and each format's
 * refusal or lower bound, nothing converted or timed (cheap at any size). */
static void bench_profile(const char *mname, const ng_csr *A)
{
  ng_spmv_profile p;
  double t0 = ng_wtime();
  if (ng_spmv_profile_host(A, &p) != NG_SUCCESS) {
    printf("{\"bench\":\"auto_profile\",\"matrix\":\"%s\",\"error\":\"profile failed\"}\n", mname);
    return;
  }
  double ms = (ng_wtime() - t0) * 1e3, csr = 0.0;
  char why[96];
  ng_spmv_predict(&p, "csr", &csr, why, sizeof(why));
  printf("{\"bench\":\"auto_profile\",\"matrix\":\"%s\",\"n\":%lld,\"nnz\":%lld,\"max_row\":%lld,"
         "\"ndiag\":%d,\"ndiag_lower\":%d,\"diag_symmetric\":%d,\"host_ms\":%.1f,\"formats\":[",
         mname, (long long)p.n, (long long)p.nnz, (long long)p.max_row, (int)p.ndiag, (int)p.ndiag_lower,
         (int)p.diag_symmetric, ms);
  const char *const *names = ng_spmv_names(0);
  for (int k = 0, first = 1; names[k]; k++) {
    double lo = 0.0;
    if (!strcmp(names[k], "auto")) continue;
    why[0] = 0;
    int refused = ng_spmv_predict(&p, names[k], &lo, why, sizeof(why));
    printf("%s{\"format\":\"%s\",", first ? "" : ",", names[k]);
    if (refused) printf("\"refused\":\"%s\"}", why);
    else printf("\"lo_over_csr\":%.3f}", csr > 0 ? lo / csr : 0.0);
    first = 0;
  }
  printf("]}\n");
  fflush(stdout);
}

/* Converters and footprints of CoD-SELL on A (see the file comment). */
static ng_status bench_codsell(ng_context ctx, const char *mname, const ng_csr *A)
{
  ng_spmv_opts o, so;
  ng_codsell S, P;
  ng_sell L;
  NG_CHECK(ng_spmv_opts_parse("codsell", "force", &o));
  NG_CHECK(ng_spmv_opts_parse("sell", NULL, &so));
  double t0 = ng_wtime();
#ifdef _OPENMP
  int nt = omp_get_max_threads();
  omp_set_num_threads(1); /* Algorithm 5 is sequential; its steps shared with the parallel one use OpenMP */
#endif
  NG_CHECK(ng_codsell_build(A, &o, 0, &S));
#ifdef _OPENMP
  omp_set_num_threads(nt);
#endif
  double t1 = ng_wtime();
  NG_CHECK(ng_codsell_build(A, &o, 1, &P));
  double t2 = ng_wtime(), tg = -1.0, tu = -1.0;
  NG_CHECK(ng_sell_build(A, &so, &L));
#ifdef NG_HAVE_CUDA
  if (ctx->on_gpu) { /* the converter from the CSR on the device; the upload timed apart */
    const ng_spmv_ops *ops;
    void *data, *dcsr;
    double g0 = ng_wtime();
    NG_CHECK(ng_dcsr_create(ctx, A, &dcsr));
    double g1 = ng_wtime();
    ng_status st = ng_spmv_create_dev(ctx, "codsell:force", A, dcsr, &ops, &data);
    tg = ng_wtime() - g1;
    tu = g1 - g0;
    ng_dcsr_destroy(dcsr);
    NG_CHECK(st);
    ops->destroy(data);
  }
#endif
  double csr = 12.0 * A->nnz + 4.0 * (A->nrows + 1), sb = (double)ng_codsell_bytes(&S), pb = (double)ng_codsell_bytes(&P);
  printf("{\"bench\":\"codsell\",\"matrix\":\"%s\",\"n\":%d,\"nnz\":%lld,\"C\":%d,\"csr_bytes\":%.0f,\"sell_bytes\":%zu,"
         "\"seq_bytes\":%.0f,\"par_bytes\":%.0f,\"par_over_seq\":%.4f,\"over_csr\":%.4f,\"over_sell\":%.4f,"
         "\"seq_s\":%.4f,\"par_host_s\":%.4f,\"gpu_s\":%.4f,\"upload_s\":%.4f,\"gpu_speedup\":%.1f}\n",
         mname, (int)A->nrows, (long long)A->nnz, o.sell_c, csr, ng_sell_bytes(&L), sb, pb, pb / sb, pb / csr,
         pb / (double)ng_sell_bytes(&L), t1 - t0, t2 - t1, tg, tu, tg > 0 ? (t1 - t0) / tg : 0.0);
  fflush(stdout);
  ng_codsell_free(&S);
  ng_codsell_free(&P);
  ng_sell_free(&L);
  return NG_SUCCESS;
}

static ng_status bench_matrix(ng_context ctx, const char *arg)
{
  char mname[512], list[1024];
  const char *eq = strchr(arg, '=');
  snprintf(mname, sizeof(mname), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
  snprintf(list, sizeof(list), "%s", eq ? eq + 1 : (!strncmp(arg, "fem27", 5) ? seed000 : general));
  ng_csr A;
  double *b = NULL, t0 = ng_wtime();
  size_t L = strlen(mname);
  if (L > 4 && !strcmp(mname + L - 4, ".mtx")) NG_CHECK(ng_mmio_read_csr(mname, &A));
  else NG_CHECK(ng_generate_csr(mname, &A, &b));
  fprintf(stderr, "# %s: n %d nnz %lld, built in %.1f s\n", mname, (int)A.nrows, (long long)A.nnz, ng_wtime() - t0);
  const char *base = strrchr(mname, '/') ? strrchr(mname, '/') + 1 : mname;
  ng_status st = NG_SUCCESS;
  if (profile_only) {
    bench_profile(base, &A);
    ng_csr_free(&A);
    ng_free(b);
    return NG_SUCCESS;
  }
  if (strstr(list, "codsell")) st = bench_codsell(ctx, base, &A);
  for (char *save = NULL, *f = strtok_r(list, ",", &save); f && st == NG_SUCCESS; f = strtok_r(NULL, ",", &save)) {
    if (!strncmp(f, "auto", 4)) st = bench_auto(ctx, base, &A, f);
    if (st == NG_SUCCESS && !(auto_only && !strncmp(f, "auto", 4))) st = bench_one(ctx, base, &A, f);
  }
  ng_csr_free(&A);
  ng_free(b);
  NG_CHECK(st);
  return NG_SUCCESS;
}

#ifdef NG_HAVE_CUDA
/* Device-to-device copy of 2 GB: the bandwidth roof (read + write bytes). */
static void bench_copy(void)
{
  size_t bytes = (size_t)1 << 31;
  void *a = NULL, *b = NULL;
  cudaEvent_t e0, e1;
  float t[20];
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
    printf("# copy: cudaMalloc failed\n");
    return;
  }
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
  for (int k = 0; k < 20; k++) {
    cudaEventRecord(e0, 0);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1, 0);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&t[k], e0, e1);
  }
  for (int i = 1; i < 20; i++)
    for (int j = i; j > 0 && t[j] < t[j - 1]; j--) { float s = t[j]; t[j] = t[j - 1]; t[j - 1] = s; }
  printf("{\"bench\":\"copy\",\"bytes\":%zu,\"ms\":%.4f,\"GBs\":%.1f}\n", 2 * bytes, t[10], 2.0 * bytes / t[10] / 1e6);
  cudaFree(a);
  cudaFree(b);
}
#endif

int main(int argc, char **argv)
{
  ng_context ctx;
  const char *device = "auto";
  int first = 1, copy = 0;
  while (first < argc && argv[first][0] == '-') {
    if (!strcmp(argv[first], "-reps") && first + 1 < argc) reps = atoi(argv[++first]);
    else if (!strcmp(argv[first], "-device") && first + 1 < argc) device = argv[++first];
    else if (!strcmp(argv[first], "-copy")) copy = 1;
    else if (!strcmp(argv[first], "-auto-only")) auto_only = 1;
    else if (!strcmp(argv[first], "-profile")) profile_only = 1;
    else { fprintf(stderr, "unknown option %s\n", argv[first]); return 2; }
    first++;
  }
  if (reps < 20) reps = 20;
  if (ng_context_create(device, &ctx) != NG_SUCCESS) {
    fprintf(stderr, "formats: %s\n", ng_last_error());
    return 1;
  }
  fprintf(stderr, "# %s\n", ng_context_describe(ctx));
#ifdef NG_HAVE_CUDA
  if (copy && ctx->on_gpu) bench_copy();
#else
  (void)copy; /* no device to copy on */
#endif
  int rc = 0;
  if (first < argc) {
    for (int k = first; k < argc && !rc; k++)
      if (bench_matrix(ctx, argv[k]) != NG_SUCCESS) { fprintf(stderr, "formats: %s\n", ng_last_error()); rc = 1; }
  } else {
    const char *dflt[] = {"fem27:64", "fem27:128", "fem27:256", "lap27:256", "mps:43", NULL};
    for (int k = 0; dflt[k] && !rc; k++)
      if (bench_matrix(ctx, dflt[k]) != NG_SUCCESS) { fprintf(stderr, "formats: %s\n", ng_last_error()); rc = 1; }
  }
  ng_context_destroy(ctx);
  return rc;
}
