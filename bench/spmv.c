/* bench/spmv.c: GPU SpMV per format, the vector kernels the solvers use, and
 * the device copy bandwidth; one JSON line per case (bench_util.h).
 *
 *   bench/spmv [-matrix SPEC[,SPEC...]] [-format NAME[,NAME...]] [-no-vec]
 *
 * Formats are the library's GPU SpMV formats by name (ng_spmv_find) plus
 * "cusparse-direct": cusparseSpMV called here on the same CSR arrays, the
 * baseline "csr" must stay within 5% of. y = A x with x rotated over copies
 * (and the matrix too when it is small) so the L2 cache does not serve the
 * next run. GB/s counts the format's bytes() plus x read and y written
 * once; GFLOPS is 2 nnz / time. Vector cases run on 256^3 entries. */
#include "bench_util.h"
#include <string.h>

static const char *default_matrices = "lap27:128,lap27:256,fem27:128,fem27:256,mps:43";
static const char *default_formats = "csr,cusparse-direct";

/* ---- cuSPARSE called directly ---------------------------------------------------- */
typedef struct {
  cusparseHandle_t h;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t *x, y;
  int32_t *rp, *col;
  double *val;
  void *buf;
  size_t bytes;
} direct;

static void direct_create(ng_context ctx, const ng_csr *W, double **x, int kx, double *y, direct *D)
{
  /* as spmv/csr_cuda.cu: 64-bit row offsets past 2^31 - 1 entries (lap27:432) */
  int wide = W->nnz > INT32_MAX;
  size_t ob = wide ? sizeof(int64_t) : sizeof(int32_t);
  int32_t *rp = malloc(((size_t)W->nrows + 1) * sizeof(int32_t));
  for (int32_t i = 0; !wide && i <= W->nrows; i++) rp[i] = (int32_t)W->rowptr[i];
  D->h = ctx->cuda->cusparse;
  BENCH_CUDA(cudaMalloc((void **)&D->rp, ((size_t)W->nrows + 1) * ob));
  BENCH_CUDA(cudaMalloc((void **)&D->col, (size_t)W->nnz * sizeof(int32_t)));
  BENCH_CUDA(cudaMalloc((void **)&D->val, (size_t)W->nnz * sizeof(double)));
  BENCH_CUDA(cudaMemcpy(D->rp, wide ? (const void *)W->rowptr : (const void *)rp, ((size_t)W->nrows + 1) * ob,
                        cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(D->col, W->col, (size_t)W->nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(D->val, W->val, (size_t)W->nnz * sizeof(double), cudaMemcpyHostToDevice));
  free(rp);
  cusparseStatus_t cs = cusparseCreateCsr(&D->A, W->nrows, W->ncols, W->nnz, D->rp, D->col, D->val,
                                          wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  if (cs != CUSPARSE_STATUS_SUCCESS) {
    fprintf(stderr, "cusparse-direct: cusparseCreateCsr (%s offsets, 32-bit columns): %s\n", wide ? "64-bit" : "32-bit",
            cusparseGetErrorString(cs));
    exit(1);
  }
  D->x = malloc(kx * sizeof(*D->x));
  for (int k = 0; k < kx; k++)
    if (cusparseCreateDnVec(&D->x[k], W->ncols, x[k], CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS) exit(1);
  if (cusparseCreateDnVec(&D->y, W->nrows, y, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS) exit(1);
  double one = 1.0, zero = 0.0;
  size_t sz = 0;
  if (cusparseSpMV_bufferSize(D->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, D->A, D->x[0], &zero, D->y, CUDA_R_64F,
                              CUSPARSE_SPMV_CSR_ALG1, &sz) != CUSPARSE_STATUS_SUCCESS)
    exit(1);
  BENCH_CUDA(cudaMalloc(&D->buf, sz ? sz : 8));
  D->bytes = ((size_t)W->nrows + 1) * ob + (size_t)W->nnz * 12 + sz;
}
static void direct_destroy(direct *D, int kx)
{
  cusparseDestroySpMat(D->A);
  for (int k = 0; k < kx; k++) cusparseDestroyDnVec(D->x[k]);
  cusparseDestroyDnVec(D->y);
  cudaFree(D->rp); cudaFree(D->col); cudaFree(D->val); cudaFree(D->buf);
  free(D->x);
}

/* ---- timed operations ------------------------------------------------------------ */
typedef struct {
  const ng_spmv_ops *ops;
  void **data;
  int km, kx;
  double **x, *y;
  direct *D;
} spmv_arg;

static ng_status run_spmv(void *a, int run)
{
  spmv_arg *s = a;
  return s->ops->apply(s->data[run % s->km], 1.0, s->x[run % s->kx], 0.0, s->y);
}
static ng_status run_direct(void *a, int run)
{
  spmv_arg *s = a;
  double one = 1.0, zero = 0.0;
  if (cusparseSpMV(s->D->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->D->A, s->D->x[run % s->kx], &zero, s->D->y,
                   CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, s->D->buf) != CUSPARSE_STATUS_SUCCESS)
    return NG_ERROR(NG_ERR_CUDA, "cusparseSpMV failed");
  return NG_SUCCESS;
}

static void bench_matrix(ng_context ctx, const char *spec, const char *formats)
{
  ng_csr W;
  double *b, t0 = ng_wtime();
  BENCH_OK(ng_generate_csr(spec, &W, &b));
  fprintf(stderr, "# %s: %d rows, %lld entries, generated in %.1f s\n", spec, (int)W.nrows, (long long)W.nnz,
          ng_wtime() - t0);
  free(b);
  size_t xbytes = (size_t)W.ncols * sizeof(double), abytes = ((size_t)W.nrows + 1) * 4 + (size_t)W.nnz * 12;
  spmv_arg s = {0};
  s.kx = bench_copies(ctx, xbytes);
  s.x = malloc(s.kx * sizeof(double *));
  double *hx = malloc(xbytes + 8);
  for (int32_t i = 0; i < W.ncols; i++) hx[i] = 1.0 + 1e-3 * (i % 97);
  for (int k = 0; k < s.kx; k++) {
    BENCH_OK(ctx->vops->alloc(ctx, &s.x[k], W.ncols));
    BENCH_OK(ctx->vops->upload(ctx, s.x[k], hx, W.ncols));
  }
  BENCH_OK(ctx->vops->alloc(ctx, &s.y, W.nrows));
  free(hx);
  char *list = strdup(formats), *save = NULL;
  for (char *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
    bench_line L = bench_line_init("spmv");
    L.matrix = spec;
    L.format = f;
    L.n = W.nrows;
    L.nnz = W.nnz;
    size_t bytes;
    if (!strcmp(f, "cusparse-direct")) {
      direct D;
      direct_create(ctx, &W, s.x, s.kx, s.y, &D);
      s.D = &D;
      L.ms = bench_time(ctx, run_direct, &s);
      bytes = D.bytes;
      direct_destroy(&D, s.kx);
    } else {
      s.ops = ng_spmv_find(f, 1);
      if (!s.ops) {
        fprintf(stderr, "unknown GPU format '%s'\n", f);
        exit(1);
      }
      s.km = abytes < 4 * (size_t)ctx->cuda->prop.l2CacheSize ? bench_copies(ctx, abytes) : 1;
      s.data = calloc(s.km, sizeof(void *));
      t0 = ng_wtime();
      ng_status st = NG_SUCCESS;
      for (int k = 0; k < s.km && st == NG_SUCCESS; k++) st = s.ops->create(ctx, &W, &s.data[k]);
      L.setup_ms = (ng_wtime() - t0) * 1e3 / s.km;
      if (st != NG_SUCCESS) {
        printf("{\"bench\":\"spmv\",\"matrix\":\"%s\",\"format\":\"%s\",\"refused\":\"%s\"}\n", spec, f, ng_last_error());
        free(s.data);
        continue;
      }
      L.ms = bench_time(ctx, run_spmv, &s);
      bytes = s.ops->bytes(s.data[0]);
      for (int k = 0; k < s.km; k++) s.ops->destroy(s.data[k]);
      free(s.data);
    }
    bytes += (size_t)W.ncols * 8 + (size_t)W.nrows * 8;
    L.GBs = bytes / (L.ms * 1e-3) / 1e9;
    L.GFLOPS = 2.0 * W.nnz / (L.ms * 1e-3) / 1e9;
    bench_print(&L);
  }
  free(list);
  for (int k = 0; k < s.kx; k++) ctx->vops->free(ctx, s.x[k]);
  ctx->vops->free(ctx, s.y);
  free(s.x);
  ng_csr_free(&W);
}

/* ---- vector kernels and copy ------------------------------------------------------ */
#define NPOOL 8
typedef struct {
  ng_context ctx;
  int32_t n;
  double *v[NPOOL];
  int which;
} vec_arg;

static ng_status run_vec(void *a, int run)
{
  vec_arg *s = a;
  ng_context c = s->ctx;
  const ng_vec_ops *o = c->vops;
  double *v0 = s->v[(3 * run) % NPOOL], *v1 = s->v[(3 * run + 1) % NPOOL], *v2 = s->v[(3 * run + 2) % NPOOL];
  double r[2], r3[3];
  const double *xs[1] = {v0}, *ys[1] = {v1};
  switch (s->which) {
  case 0: return o->copy(c, s->n, v0, v1);
  case 1: return o->axpy(c, s->n, 1e-3, v0, v1);
  case 2: return o->dot_local(c, s->n, 1, xs, ys, r);
  case 3: return o->cg_update_r(c, s->n, 1e-3, v0, v1, NULL, NULL, r);
  case 4: return o->cg_update_r(c, s->n, 1e-3, v0, v1, v2, s->v[(3 * run + 3) % NPOOL], r);
  case 5: return o->cg_update_xp(c, s->n, 1e-3, 0.5, v0, v1, v2);
  case 6: return o->cg_step(c, s->n, 1.0, v0, v1, v2, NULL, NULL, r3);
  case 7: return cudaMemcpyAsync(v1, v0, (size_t)s->n * sizeof(double), cudaMemcpyDeviceToDevice, c->cuda->stream)
                     == cudaSuccess ? NG_SUCCESS : NG_ERR_CUDA;
  default: return NG_ERR_INTERNAL;
  }
}

static void bench_vectors(ng_context ctx)
{
  static const char *names[] = {"vops-copy", "axpy", "dot", "cg_update_r", "cg_update_r+jacobi", "cg_update_xp",
                                "cg_step", "cudaMemcpy"};
  /* vectors read or written once each (cg_step: (p, q), then r -= alpha q) */
  static const int passes[] = {2, 3, 2, 3, 5, 5, 5, 2};
  vec_arg s = {ctx, 256 * 256 * 256, {0}, 0};
  for (int k = 0; k < NPOOL; k++) {
    BENCH_OK(ctx->vops->alloc(ctx, &s.v[k], s.n));
    BENCH_OK(ctx->vops->fill(ctx, s.n, 1.0 / (k + 1), s.v[k]));
  }
  for (s.which = 0; s.which < 8; s.which++) {
    bench_line L = bench_line_init(s.which == 0 || s.which == 7 ? "copy" : "vec");
    L.format = names[s.which];
    L.n = s.n;
    L.ms = bench_time(ctx, run_vec, &s);
    L.GBs = passes[s.which] * 8.0 * s.n / (L.ms * 1e-3) / 1e9;
    bench_print(&L);
  }
  for (int k = 0; k < NPOOL; k++) ctx->vops->free(ctx, s.v[k]);
}

int main(int argc, char **argv)
{
  const char *matrices = default_matrices, *formats = default_formats;
  int vec = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-matrix") && i + 1 < argc) matrices = argv[++i];
    else if (!strcmp(argv[i], "-format") && i + 1 < argc) formats = argv[++i];
    else if (!strcmp(argv[i], "-no-vec")) vec = 0;
    else {
      fprintf(stderr, "usage: %s [-matrix SPEC[,SPEC...]] [-format NAME[,NAME...]] [-no-vec]\n", argv[0]);
      return 2;
    }
  }
  ng_context ctx;
  if (ng_context_create("gpu", &ctx) != NG_SUCCESS) {
    fprintf(stderr, "bench/spmv: %s\n", ng_last_error());
    return 77;
  }
  fprintf(stderr, "# %s\n", ng_context_describe(ctx));
  if (vec) bench_vectors(ctx);
  char *list = strdup(matrices), *save = NULL;
  for (char *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) bench_matrix(ctx, m, formats);
  free(list);
  ng_context_destroy(ctx);
  return 0;
}
