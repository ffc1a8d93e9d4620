/* amg/amg_rho_cuda.cu: rho(D^-1 A) on the device by power iterations from
 * the host's start vector (amg_prolong.c), on the finest level's own
 * dia_half copy when there is one, and the smoother's diagonal. */
#include "amg_setup_cuda.cuh"
#include <cub/cub.cuh>
#include <limits.h>
#include <math.h>
#include "amg_kernels_cuda.cuh"

/* amg_prolong.c's start_value: keep them equal */
__device__ static double start_value(int32_t i)
{
  uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + 12345;
  x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return 0.5 + (double)(x & 0xffff) / 65536.0;
}

/* s = |a_ii|^-1/2 (the diagonal entries added in row order, GL lanes a row
 * reading it side by side); *bad = the first row with a zero diagonal */
template <typename OA> /* 32-bit row offsets, or the 64-bit layout past 2^31 - 1 entries */
__global__ void k_rho_init_g(int32_t n, const OA *rp, const int32_t *col, const double *val, double *s, int *bad)
{
  GROUP_LOOP(n) {
    int gl = group_lane();
    double d = group_diagonal(i, rp, col, val);
    if (gl == 0) {
      if (d == 0.0) atomicMin(bad, i);
      s[i] = 1.0 / sqrt(fabs(d));
    }
  }
}
/* the start vector (row i's value by its global row off + i, as the
 * host's), times s when s != NULL */
__global__ void k_rho_start(int32_t n, int32_t off, const double *s, double *t)
{
  ROW_LOOP(n) t[i] = s ? start_value(off + i) * s[i] : start_value(off + i);
}

/* Power iteration for rho(D^-1 A) on the device (amg_prolong.c's
 * ng_amg_spectral_radius with B = D^-1/2 A D^-1/2, s = |a_ii|^-1/2) without
 * host round trips. The iterate is kept as t = s .* v; y = A t comes from
 * k_rho_apply (the level's device CSR, G lanes per row); k_rho_post makes w = s .* y in place and
 * per-block sums of v.v, v.w, w.w over a fixed grid; k_rho_sum adds them in
 * a fixed order (deterministic) and keeps est = |v.w / v.v| and 1/||w||;
 * k_rho_scale sets t = s .* w / ||w||. A zero sum stops the iteration
 * (red[RHO_STOP]) as the host's loop breaks. */
#define RHO_BLOCKS 1024
#define RHO_EST (3 * RHO_BLOCKS)
#define RHO_SCALE (RHO_EST + 1)
#define RHO_STOP (RHO_EST + 2)
#define RHO_RED (RHO_EST + 3)
template <int G>
__global__ void __launch_bounds__(TPB) k_rho_apply(int32_t n, const int32_t *rp, const int32_t *col, const double *val,
                                                   const double *t, double *y, const double *red)
{
  const int per_warp = 32 / G, lane = threadIdx.x % 32;
  const int64_t warp = ((int64_t)blockIdx.x * TPB + threadIdx.x) / 32, nwarps = (int64_t)gridDim.x * TPB / 32;
  if (red[RHO_STOP] != 0.0) return;
  for (int64_t r0 = warp * per_warp; r0 < n; r0 += nwarps * per_warp) { /* uniform per warp */
    int32_t i = (int32_t)(r0 + lane / G);
    double sum = 0;
    if (i < n)
      for (int32_t k = rp[i] + lane % G; k < rp[i + 1]; k += G) sum += val[k] * t[col[k]];
    for (int o = G / 2; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (i < n && lane % G == 0) y[i] = sum;
  }
}
__global__ void __launch_bounds__(TPB) k_rho_post(int32_t n, const double *s, const double *t, double *w, double *red)
{
  typedef cub::BlockReduce<double, TPB> BR;
  __shared__ typename BR::TempStorage tmp;
  double vv = 0, vw = 0, ww = 0;
  if (red[RHO_STOP] == 0.0)
    for (int32_t i = blockIdx.x * TPB + threadIdx.x; i < n; i += RHO_BLOCKS * TPB) {
      double si = s[i], vi = t[i] / si, wi = si * w[i];
      w[i] = wi;
      vv += vi * vi;
      vw += vi * wi;
      ww += wi * wi;
    }
  double a = BR(tmp).Sum(vv);
  __syncthreads();
  double b = BR(tmp).Sum(vw);
  __syncthreads();
  double c = BR(tmp).Sum(ww);
  if (threadIdx.x == 0) {
    red[3 * blockIdx.x] = a;
    red[3 * blockIdx.x + 1] = b;
    red[3 * blockIdx.x + 2] = c;
  }
}
__global__ void __launch_bounds__(TPB) k_rho_sum(double *red)
{
  typedef cub::BlockReduce<double, TPB> BR;
  __shared__ typename BR::TempStorage tmp;
  double x[3] = {0, 0, 0};
  for (int b = threadIdx.x; b < RHO_BLOCKS; b += TPB)
    for (int q = 0; q < 3; q++) x[q] += red[3 * b + q];
  for (int q = 0; q < 3; q++) {
    double t = BR(tmp).Sum(x[q]);
    __syncthreads();
    if (threadIdx.x == 0) x[q] = t;
  }
  if (threadIdx.x == 0 && red[RHO_STOP] == 0.0) {
    if (!(x[2] > 0) || !(x[0] > 0)) red[RHO_STOP] = 1.0;
    else {
      red[RHO_EST] = fabs(x[1] / x[0]);
      red[RHO_SCALE] = 1.0 / sqrt(x[2]);
    }
  }
}
__global__ void k_rho_scale(int32_t n, const double *s, const double *w, double *t, const double *red)
{
  if (red[RHO_STOP] != 0.0) return;
  double c = red[RHO_SCALE];
  ROW_LOOP(n) t[i] = s[i] * (w[i] * c);
}

/* dinv = omega / a_ii (the host's summation order): the smoother's diagonal */
__global__ void k_dinv(int32_t n, const int64_t *rp, const int32_t *col, const double *val, double omega, double *dinv,
                       int *flag)
{
  ROW_LOOP(n) {
    double d = 0.0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      if (col[k] == i) d += val[k];
    if (d == 0.0) atomicExch(flag, 1);
    dinv[i] = omega / d;
  }
}

extern "C" ng_status ng_amg_gpu_dinv(ng_amg *M, int l, double omega, double *dinv)
{
  amg_gpu *g = M->gpu ? ng_amg_gpu_levels(M)[l] : NULL;
  int bad = 0;
  if (!g) return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: level %d's operator is not on the device", l);
  k_dinv<<<blocks(g->n), TPB, 0, g->ctx->cuda->stream>>>(g->n, g->Arp, g->Acol, g->Aval, omega, dinv, g->flag);
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(ng_amg_gpu_read_flag(g, &bad));
  if (bad) return NG_ERROR(NG_ERR_NUMERIC, "AMG: level %d has a zero or missing diagonal entry", l);
  return NG_SUCCESS;
}

/* rho(D^-1 A) by `iters` power iterations from the fixed start vector (the
 * same values at every call: an update with unchanged values reproduces
 * the setup's estimate exactly) of the device CSR rp/col/val (the finest
 * level's too: k_rho_apply, not cuSPARSE, whose first call in a process
 * cost 3.5 ms and every call a partition kernel). *bad: the first row
 * with a zero diagonal, n when none. The work vectors live in M->rho_work
 * (made at the setup, reused by every update, freed with the hierarchy). */
static ng_status device_rho(ng_amg *M, ng_context ctx, int32_t n, int64_t nnz, const int32_t *rp,
                            const int64_t *rp64, const int32_t *col, const double *val, const ng_spmv_ops *ops,
                            void *data, int iters, double *rho, int32_t *bad)
{
  cudaStream_t st = ctx->cuda->stream;
  double *s, *t, *w, *red, est = 0;
  int *dbad, hbad = INT_MAX;
  cudaError_t e = cudaSuccess;
  double mean = n ? (double)nnz / n : 0;
  /* s, t, w (n each), the reduction slots and the flag: one buffer kept
   * from call to call (the finest level, the largest, sizes it first), so
   * that an update allocates nothing here */
  int64_t need = 3 * (int64_t)n + RHO_RED + 1;
  if (M->rho_work_n < need) {
    ng_cuda_free(M->rho_work); /* after the stream's work on it: cudaFree waits */
    M->rho_work = NULL;
    M->rho_work_n = 0;
    NG_CHECK(NG_CUDA_MALLOC(M->rho_work, need));
    M->rho_work_n = need;
  }
  s = M->rho_work, t = s + n, w = t + n, red = w + n, dbad = (int *)(red + RHO_RED);
  /* est, scale, stop = 0; first zero-diagonal row = 0x7f7f7f7f (none) */
  e = cudaMemsetAsync(red + RHO_EST, 0, 3 * sizeof(double), st);
  if (e == cudaSuccess) e = cudaMemsetAsync(dbad, 0x7f, sizeof(int), st);
  if (e == cudaSuccess) {
    if (rp64) k_rho_init_g<<<blocks((int64_t)n * GL), TPB, 0, st>>>(n, rp64, col, val, s, dbad);
    else k_rho_init_g<<<blocks((int64_t)n * GL), TPB, 0, st>>>(n, rp, col, val, s, dbad);
    k_rho_start<<<blocks(n), TPB, 0, st>>>(n, 0, s, t);
    e = cudaGetLastError();
  }
  for (int it = 0; it < iters && e == cudaSuccess; it++) {
    if (ops) { /* the finest level's V-cycle table (dia_half: 0.76 against 2.4 ms a product at lap27:256) */
      ng_status as = ops->apply(data, 1.0, t, 0.0, w);
      if (as != NG_SUCCESS) return ng_error_trace(as, __FILE__, __LINE__);
    } else if (mean <= 16) /* about four entries per lane */ k_rho_apply<4><<<RHO_BLOCKS, TPB, 0, st>>>(n, rp, col, val, t, w, red);
    else if (mean <= 32) k_rho_apply<8><<<RHO_BLOCKS, TPB, 0, st>>>(n, rp, col, val, t, w, red);
    else if (mean <= 64) k_rho_apply<16><<<RHO_BLOCKS, TPB, 0, st>>>(n, rp, col, val, t, w, red);
    else k_rho_apply<32><<<RHO_BLOCKS, TPB, 0, st>>>(n, rp, col, val, t, w, red);
    k_rho_post<<<RHO_BLOCKS, TPB, 0, st>>>(n, s, t, w, red);
    k_rho_sum<<<1, TPB, 0, st>>>(red);
    k_rho_scale<<<blocks(n), TPB, 0, st>>>(n, s, w, t, red);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&est, red + RHO_EST, sizeof(double), cudaMemcpyDeviceToHost, st);
  if (e == cudaSuccess) e = cudaMemcpyAsync(&hbad, dbad, sizeof(int), cudaMemcpyDeviceToHost, st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(st);
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG rho estimate on the device failed: %s", cudaGetErrorString(e));
  *rho = est;
  *bad = hbad < n ? hbad : n;
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_rho(ng_amg *M, ng_matrix A, int l, int iters, double *rho, int *done)
{
  const int32_t *rp = NULL, *col;
  const int64_t *rp64 = NULL;
  const double *val;
  int32_t n = 0, bad = INT32_MAX;
  int64_t nnz;
  double est = 0;
  const ng_spmv_ops *ops = NULL;
  void *data = NULL;
  *done = 0;
  if (l == 0) { /* the user's matrix when it is one rank's device CSR (its diagonal read from there) */
    int32_t *r, *c;
    int64_t *r64;
    double *x;
    if (!A->ctx->on_gpu || A->n_local != A->n_global) return NG_SUCCESS;
    /* the products on the cycle's own copy of A when there is one (made first, amg_setup.c) */
    if (M->L[0].s.Aops && M->L[0].s.Aops->on_gpu) ops = M->L[0].s.Aops, data = M->L[0].s.Adata;
    if (ng_csr_cuda_arrays(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &r, &c, &x) == NG_SUCCESS) rp = r;
    /* the 64-bit layout (past 2^31 - 1 entries): only with the cycle's copy for the products
     * (lap27:432: 1.49 s through the context's SpMV and the host's loop) */
    else if (ops && ng_csr_cuda_arrays64(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &r64, &c, &x) == NG_SUCCESS) rp64 = r64;
    else return NG_SUCCESS;
    col = c, val = x, n = A->n_local, nnz = A->local.nnz;
  } else { /* level l - 1's device product */
    amg_gpu *f = M->gpu ? ng_amg_gpu_levels(M)[l - 1] : NULL;
    if (!f || !f->Crp) return NG_SUCCESS;
    rp = f->Crp, col = f->Ccol, val = f->Cval, n = f->nagg, nnz = f->nnzC;
  }
  NG_CHECK(device_rho(M, A->ctx, n, nnz, rp, rp64, col, val, ops, data, iters, &est, &bad));
  if (bad < n) return NG_ERROR(NG_ERR_NUMERIC, "AMG: %s %d (0-based %d) has a zero or missing diagonal entry",
                                    l ? "a coarse level's row" : "row", (int)bad + 1, (int)bad);
  if (!(est > 0) || !isfinite(est))
    return NG_ERROR(NG_ERR_NUMERIC, "AMG: the spectral radius estimate of D^-1 A is %g on a level of %d rows", est, (int)n);
  *rho = est;
  *done = 1;
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_rho_init(ng_matrix A, double *s, double *v, int *done)
{
  int32_t *rp, *col, *dbad = NULL, n = A->n_local, bad = INT32_MAX;
  double *val;
  cudaStream_t stream = A->ctx->cuda->stream;
  *done = 0;
  if (ng_csr_cuda_arrays(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp, &col, &val) != NG_SUCCESS) return NG_SUCCESS;
  NG_CHECK(NG_CUDA_MALLOC(dbad, 1));
  cudaError_t e = cudaMemcpyAsync(dbad, &bad, sizeof(int32_t), cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) {
    k_rho_init_g<<<blocks((int64_t)n * GL), TPB, 0, stream>>>(n, rp, col, val, s, dbad);
    if (v) k_rho_start<<<blocks(n), TPB, 0, stream>>>(n, (int32_t)A->row_begin, NULL, v);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&bad, dbad, sizeof(int32_t), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  ng_cuda_free(dbad);
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG rho estimate: the device diagonal failed: %s", cudaGetErrorString(e));
  if (bad < n)
    return NG_ERROR(NG_ERR_NUMERIC, "AMG: row %lld (0-based %lld) has a zero or missing diagonal entry",
                    (long long)(A->row_begin + bad + 1), (long long)(A->row_begin + bad));
  *done = 1;
  return NG_SUCCESS;
}
