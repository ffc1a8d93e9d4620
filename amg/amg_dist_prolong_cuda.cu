/* amg/amg_dist_prolong_cuda.cu: the distributed smoothed prolongator
 * (amg_dist_prolong.c's P = (I - omega D^-1 A_F) P_tent) on each rank's
 * GPU, over the level's device rows X (amg_dist_dx.cuh) with the one-rank
 * kernels k_ppattern and k_pvalues (amg_kernels_cuda.cuh): the columns are
 * the compact coarse columns (cagg of own rows and halo columns), so the
 * pattern is the host's; X's rows are in global column order, so the values
 * are summed in the one-rank host's order. P is downloaded into the host CSR
 * that the distributed matrix and R are made from; an update recomputes the
 * values only. A zero diagonal, or a P past 2^31 - 1 entries, leaves the
 * work to the host code (*done = 0), which names the row. */
#include "cuda_internal.h"
#include "amg.h"
#include <cub/cub.cuh>
#include <math.h>
#include "amg_kernels_cuda.cuh"
#include "amg_dist_dx.cuh"

/* P's pattern on the device (x->Prp, x->Pcol); *fits = 0 past 2^31 - 1 entries. */
static ng_status pattern(ng_amg_dx *x, int *fits)
{
  cudaStream_t s = x->ctx->cuda->stream;
  int32_t n = x->n, *scratch = NULL;
  int64_t *cnt = NULL, *pos = NULL, total = 0;
  void *tmp = NULL;
  size_t tb = 0;
  ng_status st = NG_CUDA_MALLOC(scratch, x->nnzX ? x->nnzX : 1);
  if (!st) st = NG_CUDA_MALLOC(cnt, (size_t)n + 1);
  if (!st) st = NG_CUDA_MALLOC(pos, (size_t)n + 1);
  if (!st && cub::DeviceScan::ExclusiveSum(NULL, tb, cnt, pos, n + 1, s) != cudaSuccess)
    st = NG_ERROR(NG_ERR_CUDA, "AMG GPU P: sizing the scan failed");
  if (!st) st = ng_cuda_malloc(&tmp, tb ? tb : 1, "AMG GPU P scan buffer");
  if (!st) {
    k_ppattern<<<blocks(n), TPB, 0, s>>>(n, x->Xrp, x->Xcol, x->cagg, scratch, cnt, NULL, NULL);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaMemsetAsync(cnt + n, 0, sizeof(int64_t), s);
    if (e == cudaSuccess) e = cub::DeviceScan::ExclusiveSum(tmp, tb, cnt, pos, n + 1, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(&total, pos + n, sizeof(int64_t), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU P: counting the pattern failed: %s", cudaGetErrorString(e));
  }
  *fits = total <= INT32_MAX;
  if (!st && *fits) {
    x->nnzP = total;
    st = NG_CUDA_MALLOC(x->Prp, (size_t)n + 1);
    if (!st) st = NG_CUDA_MALLOC(x->Pcol, total ? total : 1);
    if (!st) st = NG_CUDA_MALLOC(x->Pval, total ? total : 1);
    if (!st) {
      k_narrow<<<blocks((int64_t)n + 1), TPB, 0, s>>>(n, pos, x->Prp);
      k_ppattern<<<blocks(n), TPB, 0, s>>>(n, x->Xrp, x->Xcol, x->cagg, scratch, NULL, x->Prp, x->Pcol);
      if (cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(s) != cudaSuccess)
        st = NG_ERROR(NG_ERR_CUDA, "AMG GPU P: filling the pattern failed");
    }
  }
  ng_cuda_free(scratch);
  ng_cuda_free(cnt);
  ng_cuda_free(pos);
  ng_cuda_free(tmp);
  return st;
}

/* P's values on the device; *bad = 1 on a zero diagonal. */
static ng_status values(ng_amg_dx *x, double omega, double filter, int sgn, int *bad)
{
  cudaStream_t s = x->ctx->cuda->stream;
  NG_CUDA_CHECK(cudaMemsetAsync(x->flag, 0, sizeof(int), s));
  k_pvalues<<<blocks(x->n), TPB, 0, s>>>(x->n, x->Xrp, x->Xcol, x->Xval, x->cagg, x->ptent, omega,
                                          filter > 0 ? x->sd : NULL, filter, sgn, NULL, x->Prp, x->Pcol, x->Pval, x->flag);
  NG_CUDA_LAUNCH_CHECK();
  NG_CUDA_CHECK(cudaMemcpyAsync(bad, x->flag, sizeof(int), cudaMemcpyDeviceToHost, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

/* P to the host CSR Pc (setup: allocated here, pattern and values; update: values). */
static ng_status download(ng_amg_dx *x, int32_t pm, int refresh, ng_csr *Pc)
{
  cudaStream_t s = x->ctx->cuda->stream;
  int32_t n = x->n, *rp = NULL;
  if (!refresh) {
    NG_CHECK(ng_csr_alloc(Pc, n, pm, x->nnzP));
    NG_CHECK(NG_MALLOC(rp, (size_t)n + 1));
    ng_host_prefault(Pc->col, (size_t)x->nnzP * sizeof(int32_t));
    cudaError_t e = cudaMemcpyAsync(rp, x->Prp, ((size_t)n + 1) * sizeof(int32_t), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess && x->nnzP)
      e = cudaMemcpyAsync(Pc->col, x->Pcol, (size_t)x->nnzP * sizeof(int32_t), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e == cudaSuccess) {
#pragma omp parallel for schedule(static) if (n > 20000)
      for (int32_t i = 0; i <= n; i++) Pc->rowptr[i] = rp[i];
    }
    ng_free(rp);
    if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG GPU P: downloading the pattern failed: %s", cudaGetErrorString(e));
    ng_host_prefault(Pc->val, (size_t)x->nnzP * sizeof(double));
  }
  if (x->nnzP) NG_CUDA_CHECK(cudaMemcpyAsync(Pc->val, x->Pval, (size_t)x->nnzP * sizeof(double), cudaMemcpyDeviceToHost, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_dx_sd(void *dx, const double *sd)
{
  ng_amg_dx *x = (ng_amg_dx *)dx;
  size_t ne = (size_t)x->n + x->nh;
  if (ne) NG_CUDA_CHECK(cudaMemcpyAsync(x->sd, sd, ne * sizeof(double), cudaMemcpyHostToDevice, x->ctx->cuda->stream));
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_dx_smooth(void *dx, const int32_t *cagg, int32_t pm, const double *ptent, double omega,
                                      double filter, int sgn, int refresh, ng_csr *Pc, int *done)
{
  ng_amg_dx *x = (ng_amg_dx *)dx;
  cudaStream_t s = x->ctx->cuda->stream;
  size_t ne = (size_t)x->n + x->nh;
  int bad = 0, fits = 1;
  *done = 0;
  if (!refresh) {
    NG_CHECK(NG_CUDA_MALLOC(x->cagg, ne ? ne : 1));
    NG_CHECK(NG_CUDA_MALLOC(x->ptent, ne ? ne : 1));
    if (ne) {
      NG_CUDA_CHECK(cudaMemcpyAsync(x->cagg, cagg, ne * sizeof(int32_t), cudaMemcpyHostToDevice, s));
      NG_CUDA_CHECK(cudaMemcpyAsync(x->ptent, ptent, ne * sizeof(double), cudaMemcpyHostToDevice, s));
    }
    NG_CHECK(pattern(x, &fits));
    if (!fits) return NG_SUCCESS;
  } else if (!x->Prp) return NG_SUCCESS; /* the setup's P was the host's */
  NG_CHECK(values(x, omega, filter, sgn, &bad));
  if (bad) return NG_SUCCESS;
  NG_CHECK(download(x, pm, refresh, Pc));
  *done = 1;
  return NG_SUCCESS;
}
