/* spmv/sell_cuda.cu: CUDA table "sell" (SELL-C-sigma, seed 003). The host
 * slices of sell.c are built and refilled on the GPU (spmv/convert_cuda.cu). One
 * thread per sorted row position t (slice t/C, lane t%C): with C = 32 a warp
 * is a slice, its loads of each column k are one contiguous run, and the
 * result goes to the original row perm[t], so callers never see the sorting. */
#include "convert_cuda.h"

namespace {

struct sell_cuda {
  ng_context ctx;
  ng_sell h;       /* metadata and slice offsets (no other arrays: they live on the device) */
  int64_t *d_sptr; /* nslices + 1 */
  int32_t *d_col, *d_perm;
  double *d_val;
};

/* CT > 0: slice height known at compile time (32: shifts, not divisions).
 * perm == NULL when sigma is 1 (no sorting, the identity). */
template <int CT>
__global__ void sell_kernel(int n, int C_rt, const int64_t *__restrict__ sptr, const int32_t *__restrict__ col,
                            const double *__restrict__ val, const int32_t *__restrict__ perm,
                            const double *__restrict__ x, double alpha, double beta, double *__restrict__ y)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const int C = CT > 0 ? CT : C_rt;
  int s = t / C, r = t - s * C;
  int64_t b0 = sptr[s];
  int w = (int)((sptr[s + 1] - b0) / C);
  const double *v = val + b0 + r;
  const int32_t *c = col + b0 + r;
  double sum = 0.0;
#pragma unroll 4
  for (int k = 0; k < w; k++) sum += v[(size_t)k * C] * __ldg(x + c[(size_t)k * C]);
  int i = perm ? perm[t] : t;
  y[i] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[i];
}

void sell_cuda_free(sell_cuda *S)
{
  if (!S) return;
  ng_context c = S->ctx;
  if (S->d_sptr) c->vops->free_raw(c, S->d_sptr);
  if (S->d_col) c->vops->free_raw(c, S->d_col);
  if (S->d_perm) c->vops->free_raw(c, S->d_perm);
  if (S->d_val) c->vops->free_raw(c, S->d_val);
  ng_sell_free(&S->h);
  ng_free(S);
}

ng_status sell_cuda_create_from(ng_context ctx, const ng_csr *A, const ng_dcsr *given, const char *opt, void **data)
{
  ng_spmv_opts o;
  sell_cuda *S = NULL;
  ng_status st;
  NG_CHECK(ng_spmv_opts_parse("sell", opt, &o));
  NG_CHECK(NG_CALLOC(S, 1));
  S->ctx = ctx;
  {
    ng_dcsr d;
    if (!given) NG_CHECK_GOTO(st, ng_dcsr_upload(ctx, A, &d), fail);
    NG_CHECK_GOTO(st, ng_sell_convert_cuda(ctx, given ? given : &d, &o, &S->h, &S->d_sptr, &S->d_col, &S->d_val, &S->d_perm), fail);
  }
  *data = S;
  return NG_SUCCESS;
fail:
  sell_cuda_free(S);
  return st;
}
ng_status sell_cuda_create_opt(ng_context c, const ng_csr *A, const char *opt, void **d)
{
  return sell_cuda_create_from(c, A, NULL, opt, d);
}
ng_status sell_cuda_create_dev(ng_context c, const ng_csr *A, const void *g, const char *opt, void **d)
{
  return sell_cuda_create_from(c, A, (const ng_dcsr *)g, opt, d);
}
ng_status sell_cuda_create(ng_context c, const ng_csr *A, void **d) { return sell_cuda_create_opt(c, A, "", d); }

ng_status sell_cuda_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  sell_cuda *S = (sell_cuda *)data;
  int n = S->h.n;
  if (n == 0) return NG_SUCCESS;
  const int32_t *perm = S->h.sigma > 1 ? S->d_perm : NULL; /* sigma 1: identity */
  if (S->h.C == 32)
    sell_kernel<32><<<(unsigned)(((int64_t)n + 255) / 256), 256, 0, S->ctx->cuda->stream>>>(n, 32, S->d_sptr, S->d_col, S->d_val, perm, x,
                                                                        alpha, beta, y);
  else
    sell_kernel<0><<<(unsigned)(((int64_t)n + 255) / 256), 256, 0, S->ctx->cuda->stream>>>(n, S->h.C, S->d_sptr, S->d_col, S->d_val, perm,
                                                                       x, alpha, beta, y);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

ng_status sell_cuda_update(void *data, const ng_csr *A)
{
  sell_cuda *S = (sell_cuda *)data;
  ng_dcsr d;
  NG_CHECK(ng_dcsr_upload(S->ctx, A, &d));
  NG_CHECK(ng_sell_fill_cuda(S->ctx, &d, &S->h, S->d_sptr, S->d_perm, NULL, S->d_val));
  return NG_SUCCESS;
}

size_t sell_cuda_bytes(const void *data) { return ng_sell_bytes(&((const sell_cuda *)data)->h); }
void sell_cuda_destroy(void *data) { sell_cuda_free((sell_cuda *)data); }

ng_spmv_ops make_ops()
{
  ng_spmv_ops t = {};
  t.name = "sell";
  t.on_gpu = 1;
  t.create = sell_cuda_create;
  t.apply = sell_cuda_apply;
  t.update_values = sell_cuda_update;
  t.bytes = sell_cuda_bytes;
  t.destroy = sell_cuda_destroy;
  t.create_opt = sell_cuda_create_opt;
  t.create_dev = sell_cuda_create_dev;
  return t;
}

} // namespace

extern "C" const ng_spmv_ops ng_spmv_sell_cuda = make_ops();
