/* core/vec_cuda.cu: the CUDA vector ops table. Everything is queued on the
 * context's stream; only reductions (dot_local and the fused Krylov
 * updates) wait, for their few result scalars.
 *
 * Reductions are one kernel each and deterministic: a grid fixed by n and
 * the device, per-thread sums in grid-stride order, a fixed-shape block tree,
 * per-block partials in cu->scratch, and the last block to finish (found by
 * an integer atomic counter) adds the partials in block order. No atomics
 * on doubles, so a solve repeats bit for bit and iteration counts too. */
#include "cuda_internal.h"
#include "trace.h"

#define NG_THREADS 256
#define NG_WARPS (NG_THREADS / 32)
/* scratch layout: [0, 8) results, [4] (p, q) of cg_step, [8] block counter,
 * [16, ...) partials */
#define NG_RED_RESULTS 0
#define NG_RED_PQ 4
#define NG_RED_COUNTER 8
#define NG_RED_PARTIALS 16

/* Elementwise kernels: one thread per entry. */
/* (64-bit: n + NG_THREADS - 1 would overflow int32 near 2^31; the index in
 * the kernels is 64-bit for the same reason) */
static unsigned ng_grid(int32_t n) { return n > 0 ? (unsigned)(((int64_t)n + NG_THREADS - 1) / NG_THREADS) : 1u; }

/* Blocks of a reduction: enough to fill the device, bounded by scratch. */
static unsigned ng_red_grid(const struct ng_cuda *cu, int32_t n, int count)
{
  long want = ((long)n + NG_THREADS * 4 - 1) / (NG_THREADS * 4);
  long cap = 8L * cu->prop.multiProcessorCount;
  long room = (NG_CUDA_SCRATCH - NG_RED_PARTIALS) / count;
  if (cap > room) cap = room;
  if (want > cap) want = cap;
  return want < 1 ? 1u : (unsigned)want;
}

__device__ __forceinline__ double ng_warp_sum(double v)
{
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

/* Block sum of v (every thread gets nothing back; thread 0 gets the sum). */
__device__ __forceinline__ double ng_block_sum(double v, double *sh)
{
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = ng_warp_sum(v);
  __syncthreads(); /* sh may still be read by a previous call */
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  v = threadIdx.x < NG_WARPS ? sh[threadIdx.x] : 0.0;
  if (warp == 0) v = ng_warp_sum(v);
  return v;
}

/* Finishes a C-way reduction: partials per block, then the last block adds
 * them in block order into out[k] (the mapped host scratch, or device
 * scratch when the device cannot map it; see ng_red_out). True in the last
 * block. */
template <int C>
__device__ bool ng_reduce_finish(const double (&v)[C], double *scratch, double *out)
{
  __shared__ double sh[NG_WARPS];
  __shared__ bool last;
  double *part = scratch + NG_RED_PARTIALS;
  unsigned int *counter = reinterpret_cast<unsigned int *>(scratch + NG_RED_COUNTER);
  for (int k = 0; k < C; k++) {
    double s = ng_block_sum(v[k], sh);
    if (threadIdx.x == 0) part[k * gridDim.x + blockIdx.x] = s;
  }
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();
  for (int k = 0; k < C; k++) {
    double s = 0.0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) s += __ldcg(part + k * gridDim.x + b);
    s = ng_block_sum(s, sh);
    if (threadIdx.x == 0) out[k] = s;
  }
  if (threadIdx.x == 0) *counter = 0u;
  return true;
}

/* Where a reduction's results go: straight into pinned host memory when it
 * is mapped (no copy afterwards), else into device scratch. */
static double *ng_red_out(struct ng_cuda *cu)
{
  return cu->host_scratch_dev ? cu->host_scratch_dev : cu->scratch + NG_RED_RESULTS;
}

/* Waits for the reduction and reads its `count` results. */
static ng_status ng_red_fetch(struct ng_cuda *cu, int count, double *result)
{
  NG_CUDA_LAUNCH_CHECK();
  if (!cu->host_scratch_dev)
    NG_CUDA_CHECK(cudaMemcpyAsync(cu->host_scratch, cu->scratch + NG_RED_RESULTS, count * sizeof(double),
                                  cudaMemcpyDeviceToHost, cu->stream));
  double t0 = ng_trace_t0();
  NG_CUDA_CHECK(cudaStreamSynchronize(cu->stream));
  ng_trace_span(NG_TR_RED_WAIT, t0);
  for (int k = 0; k < count; k++) result[k] = ((volatile double *)cu->host_scratch)[k];
  return NG_SUCCESS;
}

/* ---- kernels ---------------------------------------------------------------- */

__global__ void k_fill(int32_t n, double v, double *x)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}
__global__ void k_axpy(int32_t n, double a, const double *__restrict__ x, double *__restrict__ y)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
__global__ void k_xpay(int32_t n, const double *__restrict__ x, double b, double *__restrict__ y)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + b * y[i];
}
/* x and y may alias each other (not z). */
__global__ void k_axpbypcz(int32_t n, double a, const double *x, double b, const double *y, double c,
                           double *__restrict__ z)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = c == 0.0 ? a * x[i] + b * y[i] : a * x[i] + b * y[i] + c * z[i];
}
__global__ void k_scale(int32_t n, double a, double *__restrict__ x)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
/* x and z may be the same array. */
__global__ void k_pmult(int32_t n, const double *__restrict__ d, const double *x, double *z)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = d[i] * x[i];
}
__global__ void k_gather(int32_t n, const int32_t *__restrict__ idx, const double *__restrict__ x,
                         double *__restrict__ buf)
{
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) buf[k] = x[idx[k]];
}
__global__ void k_scatter_add(int32_t n, const int32_t *__restrict__ idx, const double *__restrict__ buf, double *y)
{
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) y[idx[k]] += buf[k]; /* idx does not repeat within one call */
}
__global__ void k_cg_update_xp(int32_t n, double alpha, double beta, const double *__restrict__ z,
                               double *__restrict__ x, double *__restrict__ p)
{
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double pi = p[i];
    x[i] += alpha * pi;
    p[i] = z[i] + beta * pi;
  }
}

/* Grid-stride loop shared by the reductions (unrolled: more loads in flight). */
#define NG_FOR_GRID(i, n) \
  _Pragma("unroll 4") for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (int64_t)gridDim.x * blockDim.x)

__global__ void k_dot1(int32_t n, const double *__restrict__ x, const double *__restrict__ y, double *scratch, double *out)
{
  double v[1] = {0.0};
  NG_FOR_GRID(i, n) v[0] += x[i] * y[i];
  ng_reduce_finish<1>(v, scratch, out);
}
__global__ void k_dot2(int32_t n, const double *__restrict__ x1, const double *__restrict__ y1,
                       const double *__restrict__ x2, const double *__restrict__ y2, double *scratch, double *out)
{
  double v[2] = {0.0, 0.0};
  NG_FOR_GRID(i, n)
  {
    v[0] += x1[i] * y1[i];
    v[1] += x2[i] * y2[i];
  }
  ng_reduce_finish<2>(v, scratch, out);
}
__global__ void k_cg_update_r(int32_t n, double alpha, const double *__restrict__ q, double *__restrict__ r,
                              double *scratch, double *out)
{
  double v[1] = {0.0};
  NG_FOR_GRID(i, n)
  {
    double ri = r[i] - alpha * q[i];
    r[i] = ri;
    v[0] += ri * ri;
  }
  ng_reduce_finish<1>(v, scratch, out);
}
__global__ void k_cg_update_rz(int32_t n, double alpha, const double *__restrict__ q, double *__restrict__ r,
                               const double *__restrict__ d, double *__restrict__ z, double *scratch, double *out)
{
  double v[2] = {0.0, 0.0};
  NG_FOR_GRID(i, n)
  {
    double ri = r[i] - alpha * q[i];
    double zi = d[i] * ri;
    r[i] = ri;
    z[i] = zi;
    v[0] += ri * zi;
    v[1] += ri * ri;
  }
  ng_reduce_finish<2>(v, scratch, out);
}
/* cg_step, second half: alpha = rho / (p, q) from device scratch (left by
 * k_dot1), r -= alpha q, z = d .* r when D; out = {(r, z), (r, r), (p, q)}
 * ((r, z) is (r, r) without D). */
template <bool D>
__global__ void k_cg_step_r(int32_t n, double rho, const double *__restrict__ q, double *__restrict__ r,
                            const double *__restrict__ d, double *__restrict__ z, double *scratch, double *out)
{
  double pq = scratch[NG_RED_PQ];
  double alpha = pq > 0.0 ? rho / pq : 0.0; /* the caller reports the breakdown */
  double v[2] = {0.0, 0.0};
  NG_FOR_GRID(i, n)
  {
    double ri = r[i] - alpha * q[i];
    r[i] = ri;
    if (D) {
      double zi = d[i] * ri;
      z[i] = zi;
      v[0] += ri * zi;
    }
    v[1] += ri * ri;
  }
  if (!D) v[0] = v[1];
  if (ng_reduce_finish<2>(v, scratch, out) && threadIdx.x == 0) out[2] = pq;
}

/* cg1_update (core/core.h): its two sums land at out[1], out[2], beside
 * the (w, u) that cg1_dot's k_dot1 writes to out[0], so that one fetch of
 * three reads them all. Without D, u is r (read before r is written). */
template <bool D>
__global__ void k_cg1_update(int32_t n, double alpha, double beta, const double *__restrict__ d, double *u,
                             const double *__restrict__ w, double *__restrict__ p, double *__restrict__ s,
                             double *__restrict__ x, double *r, double *scratch, double *out)
{
  double v[2] = {0.0, 0.0};
  NG_FOR_GRID(i, n)
  {
    double pi = beta == 0.0 ? u[i] : u[i] + beta * p[i];
    double si = beta == 0.0 ? w[i] : w[i] + beta * s[i];
    p[i] = pi;
    s[i] = si;
    x[i] += alpha * pi;
    double ri = r[i] - alpha * si;
    r[i] = ri;
    double ui = D ? d[i] * ri : ri;
    if (D) u[i] = ui;
    v[0] += ri * ui;
    v[1] += ri * ri;
  }
  ng_reduce_finish<2>(v, scratch, out + 1);
}

/* shat may be r itself (no preconditioner): it is read before r is written. */
__global__ void k_bicgstab_update(int32_t n, double alpha, const double *__restrict__ phat, double omega,
                                  const double *shat, const double *__restrict__ t, double *__restrict__ x,
                                  double *r, const double *__restrict__ r0hat, double *scratch, double *out)
{
  double v[2] = {0.0, 0.0};
  NG_FOR_GRID(i, n)
  {
    x[i] += alpha * phat[i] + omega * shat[i];
    double ri = r[i] - omega * t[i];
    r[i] = ri;
    v[0] += r0hat[i] * ri;
    v[1] += ri * ri;
  }
  ng_reduce_finish<2>(v, scratch, out);
}

/* ---- the table's functions -------------------------------------------------- */

#define CU (ctx->cuda)
#define LAUNCH(kernel, n, ...)                                                \
  do {                                                                        \
    if ((n) > 0) {                                                            \
      kernel<<<ng_grid(n), NG_THREADS, 0, CU->stream>>>((n), __VA_ARGS__);     \
      NG_CUDA_LAUNCH_CHECK();                                                 \
    }                                                                         \
  } while (0)

static ng_status c_alloc(ng_context ctx, double **p, int32_t n)
{
  NG_ASSERT_ARG(n >= 0, "vector length %d is negative", (int)n);
  NG_CHECK(ng_cuda_malloc((void **)p, (size_t)n * sizeof(double), "vector"));
  return NG_SUCCESS;
}
static void c_free(ng_context ctx, double *p)
{
  if (p) ng_cuda_free(p);
}
static ng_status c_upload(ng_context ctx, double *dst, const double *host, int32_t n)
{
  if (n <= 0) return NG_SUCCESS;
  NG_CUDA_CHECK(cudaMemcpyAsync(dst, host, (size_t)n * sizeof(double), cudaMemcpyHostToDevice, CU->stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(CU->stream));
  return NG_SUCCESS;
}
static ng_status c_download(ng_context ctx, double *host, const double *src, int32_t n)
{
  if (n <= 0) return NG_SUCCESS;
  NG_CUDA_CHECK(cudaMemcpyAsync(host, src, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, CU->stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(CU->stream));
  return NG_SUCCESS;
}
static ng_status c_fill(ng_context ctx, int32_t n, double v, double *x)
{
  LAUNCH(k_fill, n, v, x);
  return NG_SUCCESS;
}
/* cudaMemcpyAsync: 2795 GB/s on H100 against 2755 for a copy kernel. */
static ng_status c_copy(ng_context ctx, int32_t n, const double *src, double *dst)
{
  if (n <= 0 || src == dst) return NG_SUCCESS;
  NG_CUDA_CHECK(cudaMemcpyAsync(dst, src, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, CU->stream));
  return NG_SUCCESS;
}
static ng_status c_axpy(ng_context ctx, int32_t n, double a, const double *x, double *y)
{
  LAUNCH(k_axpy, n, a, x, y);
  return NG_SUCCESS;
}
static ng_status c_xpay(ng_context ctx, int32_t n, const double *x, double b, double *y)
{
  LAUNCH(k_xpay, n, x, b, y);
  return NG_SUCCESS;
}
static ng_status c_axpbypcz(ng_context ctx, int32_t n, double a, const double *x, double b, const double *y,
                            double c, double *z)
{
  LAUNCH(k_axpbypcz, n, a, x, b, y, c, z);
  return NG_SUCCESS;
}
static ng_status c_scale(ng_context ctx, int32_t n, double a, double *x)
{
  LAUNCH(k_scale, n, a, x);
  return NG_SUCCESS;
}
static ng_status c_pmult(ng_context ctx, int32_t n, const double *d, const double *x, double *z)
{
  LAUNCH(k_pmult, n, d, x, z);
  return NG_SUCCESS;
}
static ng_status c_dot(ng_context ctx, int32_t n, int count, const double *const *x, const double *const *y,
                       double *result)
{
  NG_ASSERT_ARG(count >= 0, "dot_local: negative count %d", count);
  for (int k = 0; k < count; k += 2) {
    int c = count - k >= 2 ? 2 : 1;
    unsigned g = ng_red_grid(CU, n, c);
    if (c == 2)
      k_dot2<<<g, NG_THREADS, 0, CU->stream>>>(n, x[k], y[k], x[k + 1], y[k + 1], CU->scratch, ng_red_out(CU));
    else
      k_dot1<<<g, NG_THREADS, 0, CU->stream>>>(n, x[k], y[k], CU->scratch, ng_red_out(CU));
    NG_CHECK(ng_red_fetch(CU, c, result + k));
  }
  return NG_SUCCESS;
}
static ng_status c_alloc_raw(ng_context ctx, void **p, size_t bytes, const char *what)
{
  NG_CHECK(ng_cuda_malloc(p, bytes, what));
  return NG_SUCCESS;
}
static void c_free_raw(ng_context ctx, void *p)
{
  if (p) ng_cuda_free(p);
}
static ng_status c_upload_raw(ng_context ctx, void *dst, const void *host, size_t bytes)
{
  if (!bytes) return NG_SUCCESS;
  NG_CUDA_CHECK(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, CU->stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(CU->stream));
  return NG_SUCCESS;
}
static ng_status c_download_raw(ng_context ctx, void *host, const void *src, size_t bytes)
{
  if (!bytes) return NG_SUCCESS;
  NG_CUDA_CHECK(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, CU->stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(CU->stream));
  return NG_SUCCESS;
}
static ng_status c_gather(ng_context ctx, int32_t n, const int32_t *idx, const double *x, double *buf)
{
  LAUNCH(k_gather, n, idx, x, buf);
  return NG_SUCCESS;
}
static ng_status c_scatter_add(ng_context ctx, int32_t n, const int32_t *idx, const double *buf, double *y)
{
  LAUNCH(k_scatter_add, n, idx, buf, y);
  return NG_SUCCESS;
}
static ng_status c_sync(ng_context ctx)
{
  NG_CUDA_CHECK(cudaStreamSynchronize(CU->stream));
  return NG_SUCCESS;
}
static ng_status c_cg_update_r(ng_context ctx, int32_t n, double alpha, const double *q, double *r, const double *d,
                               double *z, double *result)
{
  int c = d ? 2 : 1;
  unsigned g = ng_red_grid(CU, n, c);
  if (d)
    k_cg_update_rz<<<g, NG_THREADS, 0, CU->stream>>>(n, alpha, q, r, d, z, CU->scratch, ng_red_out(CU));
  else
    k_cg_update_r<<<g, NG_THREADS, 0, CU->stream>>>(n, alpha, q, r, CU->scratch, ng_red_out(CU));
  NG_CHECK(ng_red_fetch(CU, c, result));
  return NG_SUCCESS;
}
static ng_status c_cg_step(ng_context ctx, int32_t n, double rho, const double *p, const double *q, double *r,
                           const double *d, double *z, double result[3])
{
  k_dot1<<<ng_red_grid(CU, n, 1), NG_THREADS, 0, CU->stream>>>(n, p, q, CU->scratch, CU->scratch + NG_RED_PQ);
  NG_CUDA_LAUNCH_CHECK();
  unsigned g = ng_red_grid(CU, n, 2);
  if (d)
    k_cg_step_r<true><<<g, NG_THREADS, 0, CU->stream>>>(n, rho, q, r, d, z, CU->scratch, ng_red_out(CU));
  else
    k_cg_step_r<false><<<g, NG_THREADS, 0, CU->stream>>>(n, rho, q, r, NULL, NULL, CU->scratch, ng_red_out(CU));
  NG_CHECK(ng_red_fetch(CU, 3, result));
  return NG_SUCCESS;
}
static ng_status c_cg_update_xp(ng_context ctx, int32_t n, double alpha, double beta, const double *z, double *x,
                                double *p)
{
  LAUNCH(k_cg_update_xp, n, alpha, beta, z, x, p);
  return NG_SUCCESS;
}
static ng_status c_bicgstab_update(ng_context ctx, int32_t n, double alpha, const double *phat, double omega,
                                   const double *shat, const double *t, double *x, double *r, const double *r0hat,
                                   double result[2])
{
  unsigned g = ng_red_grid(CU, n, 2);
  k_bicgstab_update<<<g, NG_THREADS, 0, CU->stream>>>(n, alpha, phat, omega, shat, t, x, r, r0hat, CU->scratch, ng_red_out(CU));
  NG_CHECK(ng_red_fetch(CU, 2, result));
  return NG_SUCCESS;
}

static ng_status c_cg1_update(ng_context ctx, int32_t n, double alpha, double beta, const double *d, double *u,
                              const double *w, double *p, double *s, double *x, double *r, double stash[2])
{
  (void)stash; /* the sums stay on the device until c_cg1_dot */
  unsigned g = ng_red_grid(CU, n, 2);
  if (d)
    k_cg1_update<true><<<g, NG_THREADS, 0, CU->stream>>>(n, alpha, beta, d, u, w, p, s, x, r, CU->scratch, ng_red_out(CU));
  else
    k_cg1_update<false><<<g, NG_THREADS, 0, CU->stream>>>(n, alpha, beta, NULL, u, w, p, s, x, r, CU->scratch,
                                                          ng_red_out(CU));
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}
static ng_status c_cg1_dot(ng_context ctx, int32_t n, const double *w, const double *u, const double stash[2],
                           double result[3])
{
  (void)stash;
  k_dot1<<<ng_red_grid(CU, n, 1), NG_THREADS, 0, CU->stream>>>(n, w, u, CU->scratch, ng_red_out(CU));
  NG_CHECK(ng_red_fetch(CU, 3, result));
  return NG_SUCCESS;
}

/* Krylov basis products by cuBLAS dgemv on the contiguous basis (column j
 * of the n x k matrix V, leading dimension ldv). The k coefficients pass
 * through the scratch's partials area (free between reductions, which the
 * stream orders): h is read back after a wait; y is copied in from pageable
 * host memory, which cudaMemcpyAsync stages before it returns, so the
 * caller may reuse y at once. */
static ng_status c_basis_args(ng_context ctx, int32_t n, int k, int64_t ldv, const char *what)
{
  NG_ASSERT_ARG(k >= 0 && k <= NG_CUDA_SCRATCH - NG_RED_PARTIALS,
                "%s: %d basis vectors (at most %d on a GPU context)", what, k, NG_CUDA_SCRATCH - NG_RED_PARTIALS);
  NG_ASSERT_ARG(ldv >= n && ldv <= 2147483647, "%s: leading dimension %lld for n = %d", what, (long long)ldv,
                (int)n);
  return NG_SUCCESS;
}
static ng_status c_basis_dot(ng_context ctx, int32_t n, int k, const double *V, int64_t ldv, const double *w,
                             double *h)
{
  const double one = 1.0, zero = 0.0;
  double *dh = CU->scratch + NG_RED_PARTIALS;
  NG_CHECK(c_basis_args(ctx, n, k, ldv, "basis_dot"));
  if (k == 0) return NG_SUCCESS;
  if (n == 0) { /* a rank without rows: its share is 0 */
    for (int j = 0; j < k; j++) h[j] = 0.0;
    return NG_SUCCESS;
  }
  NG_CUBLAS_CHECK(cublasDgemv(CU->cublas, CUBLAS_OP_T, n, k, &one, V, (int)ldv, w, 1, &zero, dh, 1));
  NG_CUDA_CHECK(cudaMemcpyAsync(h, dh, (size_t)k * sizeof(double), cudaMemcpyDeviceToHost, CU->stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(CU->stream));
  return NG_SUCCESS;
}
static ng_status c_basis_update(ng_context ctx, int32_t n, int k, const double *V, int64_t ldv, double alpha,
                                const double *y, double beta, double *w)
{
  double *dy = CU->scratch + NG_RED_PARTIALS;
  NG_CHECK(c_basis_args(ctx, n, k, ldv, "basis_update"));
  if (n == 0) return NG_SUCCESS;
  if (k == 0) { /* w = beta w */
    if (beta == 0.0) LAUNCH(k_fill, n, 0.0, w);
    else if (beta != 1.0) LAUNCH(k_scale, n, beta, w);
    return NG_SUCCESS;
  }
  NG_CUDA_CHECK(cudaMemcpyAsync(dy, y, (size_t)k * sizeof(double), cudaMemcpyHostToDevice, CU->stream));
  NG_CUBLAS_CHECK(cublasDgemv(CU->cublas, CUBLAS_OP_N, n, k, &alpha, V, (int)ldv, dy, 1, &beta, w, 1));
  return NG_SUCCESS;
}

extern "C" const ng_vec_ops ng_vec_ops_cuda = {
  .name = "cuda",
  .alloc = c_alloc,
  .free = c_free,
  .upload = c_upload,
  .download = c_download,
  .fill = c_fill,
  .copy = c_copy,
  .axpy = c_axpy,
  .xpay = c_xpay,
  .axpbypcz = c_axpbypcz,
  .scale = c_scale,
  .pointwise_mult = c_pmult,
  .dot_local = c_dot,
  .alloc_raw = c_alloc_raw,
  .free_raw = c_free_raw,
  .upload_raw = c_upload_raw,
  .download_raw = c_download_raw,
  .gather = c_gather,
  .scatter_add = c_scatter_add,
  .sync = c_sync,
  .cg_update_r = c_cg_update_r,
  .cg_update_xp = c_cg_update_xp,
  .bicgstab_update = c_bicgstab_update,
  .cg_step = c_cg_step,
  .cg1_update = c_cg1_update,
  .cg1_dot = c_cg1_dot,
  .basis_dot = c_basis_dot,
  .basis_update = c_basis_update,
};
