/* spmv/sell_cuda.cu: CUDA table "sell" (SELL-C-sigma, seed 003). The host
 * converter of sell.c builds the slices; they are uploaded as they are. One
 * thread per sorted row position t (slice t/C, lane t%C): with C = 32 a warp
 * is a slice, its loads of each column k are one contiguous run, and the
 * result goes to the original row perm[t], so callers never see the sorting. */
#include "cuda_internal.h"
#include "formats.h"

namespace {

struct sell_cuda {
  ng_context ctx;
  ng_sell h;       /* host copy: pattern for update_values */
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

/* Allocates a device array and copies the host one into it. */
ng_status put(ng_context c, void **dst, const void *src, size_t bytes, const char *what)
{
  NG_CHECK(c->vops->alloc_raw(c, dst, bytes, what));
  if (bytes) NG_CHECK(c->vops->upload_raw(c, *dst, src, bytes));
  return NG_SUCCESS;
}

ng_status sell_cuda_create_opt(ng_context ctx, const ng_csr *A, const char *opt, void **data)
{
  ng_spmv_opts o;
  sell_cuda *S = NULL;
  ng_status st;
  NG_CHECK(ng_spmv_opts_parse("sell", opt, &o));
  NG_CHECK(NG_CALLOC(S, 1));
  S->ctx = ctx;
  NG_CHECK_GOTO(st, ng_sell_build(A, &o, &S->h), fail);
  {
    size_t total = (size_t)S->h.sptr[S->h.nslices];
    NG_CHECK_GOTO(st, put(ctx, (void **)&S->d_sptr, S->h.sptr, ((size_t)S->h.nslices + 1) * sizeof(int64_t), "SELL slice offsets"), fail);
    NG_CHECK_GOTO(st, put(ctx, (void **)&S->d_col, S->h.col, total * sizeof(int32_t), "SELL columns"), fail);
    NG_CHECK_GOTO(st, put(ctx, (void **)&S->d_val, S->h.val, total * sizeof(double), "SELL values"), fail);
    NG_CHECK_GOTO(st, put(ctx, (void **)&S->d_perm, S->h.perm, (size_t)S->h.n * sizeof(int32_t), "SELL permutation"), fail);
  }
  *data = S;
  return NG_SUCCESS;
fail:
  sell_cuda_free(S);
  return st;
}
ng_status sell_cuda_create(ng_context c, const ng_csr *A, void **d) { return sell_cuda_create_opt(c, A, "", d); }

ng_status sell_cuda_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  sell_cuda *S = (sell_cuda *)data;
  int n = S->h.n;
  if (n == 0) return NG_SUCCESS;
  const int32_t *perm = S->h.sigma > 1 ? S->d_perm : NULL; /* sigma 1: identity */
  if (S->h.C == 32)
    sell_kernel<32><<<(n + 255) / 256, 256, 0, S->ctx->cuda->stream>>>(n, 32, S->d_sptr, S->d_col, S->d_val, perm, x,
                                                                        alpha, beta, y);
  else
    sell_kernel<0><<<(n + 255) / 256, 256, 0, S->ctx->cuda->stream>>>(n, S->h.C, S->d_sptr, S->d_col, S->d_val, perm,
                                                                       x, alpha, beta, y);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

ng_status sell_cuda_update(void *data, const ng_csr *A)
{
  sell_cuda *S = (sell_cuda *)data;
  NG_CHECK(ng_sell_fill(&S->h, A));
  size_t total = (size_t)S->h.sptr[S->h.nslices];
  if (total) NG_CHECK(S->ctx->vops->upload_raw(S->ctx, S->d_val, S->h.val, total * sizeof(double)));
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
  return t;
}

} // namespace

extern "C" const ng_spmv_ops ng_spmv_sell_cuda = make_ops();
