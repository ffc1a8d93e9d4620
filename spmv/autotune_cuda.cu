/* spmv/autotune_cuda.cu: timing SpMVs on the GPU with CUDA events on the
 * context's stream (for "auto" and bench/formats): one event pair per run,
 * the median of the runs, cycling through several x/y copies; and the
 * clocks of the "auto" breakdown (a pair of events per clock). */
#include "cuda_internal.h"
#include "spmv.h"
#include "autotune.h"
#include <algorithm>
#include <vector>

extern "C" ng_status ng_spmv_time_cuda(ng_context ctx, const ng_spmv_ops *ops, void *data, int ncopies,
                                       double *const *x, double *const *y, int warmup, int reps, double *median_ms)
{
  cudaStream_t s = ctx->cuda->stream;
  std::vector<cudaEvent_t> ev(2 * (size_t)reps, nullptr);
  std::vector<double> t((size_t)reps);
  ng_status st = NG_SUCCESS;
  for (auto &e : ev) {
    cudaError_t ce = cudaEventCreate(&e);
    if (ce != cudaSuccess) {
      e = nullptr;
      st = NG_ERROR(NG_ERR_CUDA, "cudaEventCreate failed: %s", cudaGetErrorString(ce));
      goto done;
    }
  }
  for (int k = 0; k < warmup; k++) NG_CHECK_GOTO(st, ops->apply(data, 1.0, x[k % ncopies], 0.0, y[k % ncopies]), done);
  for (int k = 0; k < reps; k++) {
    cudaError_t ce = cudaEventRecord(ev[2 * k], s);
    if (ce == cudaSuccess) {
      NG_CHECK_GOTO(st, ops->apply(data, 1.0, x[k % ncopies], 0.0, y[k % ncopies]), done);
      ce = cudaEventRecord(ev[2 * k + 1], s);
    }
    if (ce != cudaSuccess) {
      st = NG_ERROR(NG_ERR_CUDA, "cudaEventRecord failed: %s", cudaGetErrorString(ce));
      goto done;
    }
  }
  {
    cudaError_t ce = cudaStreamSynchronize(s);
    for (int k = 0; k < reps && ce == cudaSuccess; k++) {
      float ms = 0.0f;
      ce = cudaEventElapsedTime(&ms, ev[2 * k], ev[2 * k + 1]);
      t[k] = ms;
    }
    if (ce != cudaSuccess) {
      st = NG_ERROR(NG_ERR_CUDA, "timing SpMV '%s' failed: %s", ops->name, cudaGetErrorString(ce));
      goto done;
    }
  }
  std::sort(t.begin(), t.end());
  *median_ms = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
done:
  for (auto e : ev)
    if (e) cudaEventDestroy(e);
  return st;
}

/* ---- clocks for the auto breakdown (spmv/autotune.h) ----------------------------------- */
extern "C" ng_status ng_clock_start_cuda(ng_clock *c)
{
  for (int k = 0; k < 2; k++) {
    cudaEvent_t e;
    cudaError_t ce = cudaEventCreate(&e);
    if (ce != cudaSuccess) {
      ng_clock_free_cuda(c);
      return NG_ERROR(NG_ERR_CUDA, "cudaEventCreate failed: %s", cudaGetErrorString(ce));
    }
    c->ev[k] = e;
  }
  NG_CUDA_CHECK(cudaEventRecord((cudaEvent_t)c->ev[0], c->ctx->cuda->stream));
  return NG_SUCCESS;
}

extern "C" ng_status ng_clock_ms_cuda(ng_clock *c, double *ms)
{
  float t = 0.0f;
  NG_CUDA_CHECK(cudaEventRecord((cudaEvent_t)c->ev[1], c->ctx->cuda->stream));
  NG_CUDA_CHECK(cudaEventSynchronize((cudaEvent_t)c->ev[1]));
  NG_CUDA_CHECK(cudaEventElapsedTime(&t, (cudaEvent_t)c->ev[0], (cudaEvent_t)c->ev[1]));
  *ms = t;
  return NG_SUCCESS;
}

extern "C" void ng_clock_free_cuda(ng_clock *c)
{
  for (int k = 0; k < 2; k++)
    if (c->ev[k]) cudaEventDestroy((cudaEvent_t)c->ev[k]);
  c->ev[0] = c->ev[1] = NULL;
}
