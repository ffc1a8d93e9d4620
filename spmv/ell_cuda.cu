/* spmv/ell_cuda.cu: CUDA tables "ell" and "ellr" (seed 002). The host
 * column-major arrays of ell.c are built and refilled on the GPU
 * (spmv/convert_cuda.cu). One thread per row: ELL runs every row to the common width
 * (padding is a valid column with value 0, so there is no branch), ELLR
 * stops at the row's own length. x goes through the read-only cache. */
#include "convert_cuda.h"

namespace {

struct ell_cuda {
  ng_context ctx;
  ng_ell h;        /* metadata (no arrays: they live on the device) */
  int32_t *d_col;  /* width * n */
  double *d_val;   /* width * n */
  int32_t *d_rl;   /* n, ellr only */
};

template <bool R>
__global__ void ell_kernel(int n, int w, const int32_t *__restrict__ col, const double *__restrict__ val,
                           const int32_t *__restrict__ rl, const double *__restrict__ x, double alpha, double beta,
                           double *__restrict__ y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int len = R ? rl[i] : w;
  double s = 0.0;
  for (int k = 0; k < len; k++) {
    size_t q = (size_t)k * n + i;
    s += val[q] * __ldg(x + col[q]);
  }
  y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
}

void ell_cuda_free(ell_cuda *E)
{
  if (!E) return;
  if (E->d_col) E->ctx->vops->free_raw(E->ctx, E->d_col);
  if (E->d_val) E->ctx->vops->free_raw(E->ctx, E->d_val);
  if (E->d_rl) E->ctx->vops->free_raw(E->ctx, E->d_rl);
  ng_ell_free(&E->h);
  ng_free(E);
}

ng_status ell_cuda_create(ng_context ctx, const ng_csr *A, const ng_dcsr *given, const char *opt, int ellr, void **data)
{
  ng_spmv_opts o;
  ell_cuda *E = NULL;
  ng_status st;
  NG_CHECK(ng_spmv_opts_parse(ellr ? "ellr" : "ell", opt, &o));
  NG_CHECK(NG_CALLOC(E, 1));
  E->ctx = ctx;
  {
    ng_dcsr d;
    if (!given) NG_CHECK_GOTO(st, ng_dcsr_upload(ctx, A, &d), fail);
    NG_CHECK_GOTO(st, ng_ell_convert_cuda(ctx, given ? given : &d, ellr, &o, &E->h, &E->d_col, &E->d_val, &E->d_rl), fail);
  }
  *data = E;
  return NG_SUCCESS;
fail:
  ell_cuda_free(E);
  return st;
}

ng_status ell_cuda_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  ell_cuda *E = (ell_cuda *)data;
  int n = E->h.n;
  if (n == 0) return NG_SUCCESS;
  if (E->h.ellr)
    ell_kernel<true><<<(unsigned)(((int64_t)n + 255) / 256), 256, 0, E->ctx->cuda->stream>>>(n, E->h.width, E->d_col, E->d_val, E->d_rl,
                                                                         x, alpha, beta, y);
  else
    ell_kernel<false><<<(unsigned)(((int64_t)n + 255) / 256), 256, 0, E->ctx->cuda->stream>>>(n, E->h.width, E->d_col, E->d_val, E->d_rl,
                                                                          x, alpha, beta, y);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

ng_status ell_cuda_update(void *data, const ng_csr *A)
{
  ell_cuda *E = (ell_cuda *)data;
  ng_dcsr d;
  NG_CHECK(ng_dcsr_upload(E->ctx, A, &d));
  NG_CHECK(ng_ell_fill_cuda(E->ctx, &d, &E->h, NULL, E->d_val, NULL));
  return NG_SUCCESS;
}

size_t ell_cuda_bytes(const void *data) { return ng_ell_bytes(&((const ell_cuda *)data)->h); }
void ell_cuda_destroy(void *data) { ell_cuda_free((ell_cuda *)data); }
ng_status ell_create_opt(ng_context c, const ng_csr *A, const char *opt, void **d) { return ell_cuda_create(c, A, NULL, opt, 0, d); }
ng_status ellr_create_opt(ng_context c, const ng_csr *A, const char *opt, void **d) { return ell_cuda_create(c, A, NULL, opt, 1, d); }
ng_status ell_create_dev(ng_context c, const ng_csr *A, const void *g, const char *opt, void **d)
{
  return ell_cuda_create(c, A, (const ng_dcsr *)g, opt, 0, d);
}
ng_status ellr_create_dev(ng_context c, const ng_csr *A, const void *g, const char *opt, void **d)
{
  return ell_cuda_create(c, A, (const ng_dcsr *)g, opt, 1, d);
}
ng_status ell_create(ng_context c, const ng_csr *A, void **d) { return ell_cuda_create(c, A, NULL, "", 0, d); }
ng_status ellr_create(ng_context c, const ng_csr *A, void **d) { return ell_cuda_create(c, A, NULL, "", 1, d); }

ng_spmv_ops make_ops(const char *name, ng_status (*create)(ng_context, const ng_csr *, void **),
                     ng_status (*create_opt)(ng_context, const ng_csr *, const char *, void **),
                     ng_status (*create_dev)(ng_context, const ng_csr *, const void *, const char *, void **))
{
  ng_spmv_ops t = {};
  t.name = name;
  t.on_gpu = 1;
  t.create = create;
  t.apply = ell_cuda_apply;
  t.update_values = ell_cuda_update;
  t.bytes = ell_cuda_bytes;
  t.destroy = ell_cuda_destroy;
  t.create_opt = create_opt;
  t.create_dev = create_dev;
  return t;
}

} // namespace

extern "C" const ng_spmv_ops ng_spmv_ell_cuda = make_ops("ell", ell_create, ell_create_opt, ell_create_dev);
extern "C" const ng_spmv_ops ng_spmv_ellr_cuda = make_ops("ellr", ellr_create, ellr_create_opt, ellr_create_dev);
