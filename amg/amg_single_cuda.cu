/* amg/amg_single_cuda.cu: the CUDA kernels of the FP32 V-cycle
 * (-amg_precision single, amg_single.h; host reference in amg_single.c):
 * conversions, float vector updates, CSR (4 or 32 threads per row, a fixed
 * shuffle reduction: deterministic) and DIA / DIA half SpMV and the fused
 * Jacobi sweep / residual. All on the context's stream, no sync. */
#include "cuda_internal.h"
#include "amg_single.h"

#define TPB 256
static unsigned blocks(int64_t n) { return (unsigned)((n + TPB - 1) / TPB); }

__global__ void k_d2f(int64_t n, const double *x, float *y)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (float)x[i];
}
__global__ void k_f2d(int64_t n, const float *x, double *y)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
__global__ void k_pmult(int32_t n, const float *d, const float *x, float *y)
{
  int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = d[i] * x[i];
}

struct offs_t {
  int off[NG_DIA_MAXD];
};

/* (A x)_i for DIA (full or half) in float, the host's order of terms. */
__device__ __forceinline__ float dia_sum(int i, int n, int nd, int half, const offs_t &o, const float *val,
                                         const float *x)
{
  float s = 0.0f;
  for (int d = 0; d < nd; d++) {
    int j = i + o.off[d];
    if (j >= 0 && j < n) s += val[(size_t)d * n + i] * __ldg(x + j);
    if (half && o.off[d] < 0) {
      int r = i - o.off[d];
      if (r < n) s += val[(size_t)d * n + r] * __ldg(x + r);
    }
  }
  return s;
}

/* MODE 0: y = alpha A x + beta y; 1: y = b - A x; 2: y = x + dinv .* (b - A x) */
template <int MODE>
__global__ void k_dia(int n, int nd, int half, offs_t o, const float *val, float alpha, const float *x, float beta,
                      const float *b, const float *dinv, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = dia_sum(i, n, nd, half, o, val, x);
  if (MODE == 0) y[i] = beta == 0.0f ? alpha * s : alpha * s + beta * y[i];
  else if (MODE == 1) y[i] = b[i] - s;
  else y[i] = x[i] + dinv[i] * (b[i] - s);
}

/* LANES threads per row, partial sums combined by a fixed shuffle tree. */
template <int LANES, int MODE>
__global__ void k_csr(int n, const int32_t *rp, const int32_t *col, const float *val, float alpha, const float *x,
                      float beta, const float *b, const float *dinv, float *y)
{
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int row = (int)(t / LANES), lane = (int)(t % LANES);
  bool ok = row < n;
  float s = 0.0f;
  if (ok)
    for (int k = rp[row] + lane; k < rp[row + 1]; k += LANES) s += val[k] * __ldg(x + col[k]);
#pragma unroll
  for (int o = LANES / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o, LANES);
  if (!ok || lane) return;
  if (MODE == 0) y[row] = beta == 0.0f ? alpha * s : alpha * s + beta * y[row];
  else if (MODE == 1) y[row] = b[row] - s;
  else y[row] = x[row] + dinv[row] * (b[row] - s);
}

static ng_status launch(ng_context ctx, const ng_fmat *A, int mode, float alpha, const float *x, float beta,
                        const float *b, const float *dinv, float *y)
{
  cudaStream_t s = ctx->cuda->stream;
  int n = A->n;
  if (n == 0) return NG_SUCCESS;
  if (A->dia) {
    offs_t o;
    for (int d = 0; d < A->nd; d++) o.off[d] = A->off[d];
    if (mode == 0) k_dia<0><<<blocks(n), TPB, 0, s>>>(n, A->nd, A->half, o, A->val, alpha, x, beta, b, dinv, y);
    else if (mode == 1) k_dia<1><<<blocks(n), TPB, 0, s>>>(n, A->nd, A->half, o, A->val, alpha, x, beta, b, dinv, y);
    else k_dia<2><<<blocks(n), TPB, 0, s>>>(n, A->nd, A->half, o, A->val, alpha, x, beta, b, dinv, y);
  } else if (A->lanes == 32) {
    unsigned g = blocks((int64_t)n * 32);
    if (mode == 0) k_csr<32, 0><<<g, TPB, 0, s>>>(n, A->rp32, A->col, A->val, alpha, x, beta, b, dinv, y);
    else if (mode == 1) k_csr<32, 1><<<g, TPB, 0, s>>>(n, A->rp32, A->col, A->val, alpha, x, beta, b, dinv, y);
    else k_csr<32, 2><<<g, TPB, 0, s>>>(n, A->rp32, A->col, A->val, alpha, x, beta, b, dinv, y);
  } else {
    unsigned g = blocks((int64_t)n * 4);
    if (mode == 0) k_csr<4, 0><<<g, TPB, 0, s>>>(n, A->rp32, A->col, A->val, alpha, x, beta, b, dinv, y);
    else if (mode == 1) k_csr<4, 1><<<g, TPB, 0, s>>>(n, A->rp32, A->col, A->val, alpha, x, beta, b, dinv, y);
    else k_csr<4, 2><<<g, TPB, 0, s>>>(n, A->rp32, A->col, A->val, alpha, x, beta, b, dinv, y);
  }
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

static ng_status c_spmv(ng_context ctx, const ng_fmat *A, float alpha, const float *x, float beta, float *y)
{
  return launch(ctx, A, 0, alpha, x, beta, NULL, NULL, y);
}
static ng_status c_fused(ng_context ctx, const ng_fmat *A, const float *b, const float *x, const float *dinv, float *y)
{
  return launch(ctx, A, dinv ? 2 : 1, 1.0f, x, 0.0f, b, dinv, y);
}
static ng_status c_d2f(ng_context ctx, int64_t n, const double *x, float *y)
{
  if (n == 0) return NG_SUCCESS;
  k_d2f<<<blocks(n), TPB, 0, ctx->cuda->stream>>>(n, x, y);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}
static ng_status c_f2d(ng_context ctx, int64_t n, const float *x, double *y)
{
  if (n == 0) return NG_SUCCESS;
  k_f2d<<<blocks(n), TPB, 0, ctx->cuda->stream>>>(n, x, y);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}
static ng_status c_pmult(ng_context ctx, int32_t n, const float *d, const float *x, float *y)
{
  if (n == 0) return NG_SUCCESS;
  k_pmult<<<blocks(n), TPB, 0, ctx->cuda->stream>>>(n, d, x, y);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}
static ng_status c_copy(ng_context ctx, int32_t n, const float *x, float *y)
{
  if (n) NG_CUDA_CHECK(cudaMemcpyAsync(y, x, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, ctx->cuda->stream));
  return NG_SUCCESS;
}
static ng_status c_zero(ng_context ctx, int32_t n, float *x)
{
  if (n) NG_CUDA_CHECK(cudaMemsetAsync(x, 0, (size_t)n * sizeof(float), ctx->cuda->stream));
  return NG_SUCCESS;
}

static ng_amg_fops make_fops()
{
  ng_amg_fops f = {};
  f.d2f = c_d2f;
  f.f2d = c_f2d;
  f.pmult = c_pmult;
  f.copy = c_copy;
  f.zero = c_zero;
  f.spmv = c_spmv;
  f.fused = c_fused;
  return f;
}
extern "C" const ng_amg_fops ng_amg_fops_cuda = make_fops();
