/* core/cuda_internal.h: what CUDA sources share: the device object behind a
 * context and the macros that turn CUDA/cuBLAS/cuSPARSE return codes into
 * ng_status errors naming the call. Included from .cu files (and from C
 * benchmarks that need the stream and handles). */
#ifndef NG_CUDA_INTERNAL_H
#define NG_CUDA_INTERNAL_H
#include "core.h"
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

struct ng_cuda {
  int device;
  cudaStream_t stream;
  cublasHandle_t cublas;
  cusparseHandle_t cusparse;
  struct cudaDeviceProp prop;
  double *scratch;      /* device buffer for reductions (NG_CUDA_SCRATCH doubles, zeroed at creation) */
  double *host_scratch; /* pinned host mirror of scratch for reduction results */
  double *host_scratch_dev; /* host_scratch as the device sees it (mapped), NULL: copy instead */
  cudaMemPool_t pool;   /* the setups' temporaries (ng_cuda_tmp_malloc); NULL: plain cudaMalloc */
  int keep_attached;    /* a user of the device-wide pool behind ng_cuda_malloc (core/cuda_keep_pool.cu) */
};

/* Doubles in ng_cuda.scratch: results, a block counter and the per-block
 * partial sums of the fused reductions (core/vec_cuda.cu). */
#define NG_CUDA_SCRATCH 8192

#define NG_CUDA_CHECK(call)                                                                     \
  do {                                                                                          \
    cudaError_t ng_cu_e_ = (call);                                                              \
    if (ng_cu_e_ != cudaSuccess)                                                                \
      return NG_ERROR(ng_cu_e_ == cudaErrorMemoryAllocation ? NG_ERR_DEVICE_MEMORY : NG_ERR_CUDA, \
                      "%s failed: %s", #call, cudaGetErrorString(ng_cu_e_));                     \
  } while (0)
/* In a function that frees on its way out (label out): when a CUDA call
 * fails, st = NG_ERR_CUDA naming what, the call and the error; goto out. */
#define NG_CUDA_CHECK_GOTO(st, call, what)                                                      \
  do {                                                                                          \
    cudaError_t ng_cu_e_ = (call);                                                              \
    if (ng_cu_e_ != cudaSuccess) {                                                              \
      (st) = NG_ERROR(NG_ERR_CUDA, "%s: %s failed: %s", (what), #call, cudaGetErrorString(ng_cu_e_)); \
      goto out;                                                                                 \
    }                                                                                           \
  } while (0)
/* After a kernel launch: launch errors (bad configuration) are reported here. */
#define NG_CUDA_LAUNCH_CHECK() NG_CUDA_CHECK(cudaGetLastError())
#define NG_CUBLAS_CHECK(call)                                                                   \
  do {                                                                                          \
    cublasStatus_t ng_cb_e_ = (call);                                                           \
    if (ng_cb_e_ != CUBLAS_STATUS_SUCCESS)                                                      \
      return NG_ERROR(NG_ERR_CUDA, "%s failed: cuBLAS status %d", #call, (int)ng_cb_e_);        \
  } while (0)
#define NG_CUSPARSE_CHECK(call)                                                                 \
  do {                                                                                          \
    cusparseStatus_t ng_cs_e_ = (call);                                                         \
    if (ng_cs_e_ != CUSPARSE_STATUS_SUCCESS)                                                    \
      return NG_ERROR(NG_ERR_CUDA, "%s failed: %s", #call, cusparseGetErrorString(ng_cs_e_));   \
  } while (0)

/* Device allocation that reports the bytes asked for: from the device-wide
 * pool (core/cuda_keep_pool.cu; plain cudaMalloc with NG_CUDA_POOL=0),
 * ready for every stream on return. */
#ifdef __cplusplus
extern "C"
#endif
ng_status ng_cuda_malloc(void **p, size_t bytes, const char *what);
/* Its free (after the device is idle, as cudaFree; NULL is fine), the bytes
 * off the device's account (core/memtrack.c): free what ng_cuda_malloc made
 * with this, not cudaFree. */
#ifdef __cplusplus
extern "C"
#endif
void ng_cuda_free(void *p);
#define NG_CUDA_MALLOC(p, count) ng_cuda_malloc((void **)&(p), (size_t)(count) * sizeof(*(p)), #p)

/* A device allocation that another process may open (cudaIpcGetMemHandle:
 * the IPC transport's landing buffers), plain cudaMalloc, and its free;
 * ng_cuda_malloc's blocks come from the device-wide pool
 * (core/cuda_keep_pool.cu), which cannot be exported. */
#ifdef __cplusplus
extern "C" {
#endif
ng_status ng_cuda_malloc_export(void **p, size_t bytes, const char *what);
void ng_cuda_free_export(void *p);
/* core/cuda_keep_pool.cu: the pool's users (contexts) on a device, the
 * pool's allocation and free (cudaMalloc / cudaFree where there is none),
 * and whether the current device has one. */
ng_status ng_cuda_keep_attach(int device, int *counted);
void ng_cuda_keep_detach(int device);
cudaError_t ng_cuda_keep_malloc(void **p, size_t bytes);
cudaError_t ng_cuda_keep_free(void *p);
int ng_cuda_keep_on(void);
void ng_cuda_keep_trim(void);
#ifdef __cplusplus
}
#endif

/* A setup's temporaries, stream-ordered on the context's stream from its
 * memory pool: a freed block is reused by the next allocation without a
 * device-wide wait (cudaMalloc cost 7 ms and cudaFree 3 ms of a 25 ms AMG
 * setup at het7:128). Free them with ng_cuda_tmp_free only (never cudaFree):
 * the free is queued after the stream's work, so a host read of a result
 * still needs its own sync. */
#ifdef __cplusplus
extern "C" {
#endif
ng_status ng_cuda_tmp_malloc(struct ng_cuda *cu, void **p, size_t bytes, const char *what);
void ng_cuda_tmp_free(struct ng_cuda *cu, void *p);
#ifdef __cplusplus
}
#endif
#define NG_CUDA_TMP(cu, p, count) ng_cuda_tmp_malloc(cu, (void **)&(p), (size_t)(count) * sizeof(*(p)), #p)
#endif
