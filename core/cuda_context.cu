/* core/cuda_context.cu: the device behind a GPU context: picks the GPU
 * (NG_DEVICE, else local rank modulo the device count), creates the stream
 * and the cuBLAS/cuSPARSE handles once, a small reduction scratch, and the
 * memory pool of the setups' stream-ordered allocations (ng_cuda_tmp_*).
 * Every device allocation and free here is accounted (core/memtrack.c). */
#include "cuda_internal.h"
#include "trace.h"

extern "C" int ng_cuda_device_count(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* clear the sticky "no device" error */
    return 0;
  }
  return n;
}

extern "C" ng_status ng_cuda_device_name(int device, char *name, size_t len)
{
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return NG_ERROR(NG_ERR_CUDA, "cudaGetDeviceProperties(%d): %s", device, cudaGetErrorString(e));
  }
  snprintf(name, len, "%s", prop.name);
  return NG_SUCCESS;
}

/* ng_cuda_malloc (from the device-wide pool) and ng_cuda_malloc_export
 * (plain cudaMalloc), with their common checks and accounting. */
static ng_status device_malloc(void **p, size_t bytes, const char *what, int pooled)
{
  *p = NULL;
  if (bytes == 0) bytes = 8; /* a valid pointer for empty arrays */
  int64_t k = ng_alloc_fault_device_next(); /* NG_FAIL_ALLOC_DEVICE (core/memory.c) */
  if (k)
    return NG_ERROR(NG_ERR_DEVICE_MEMORY,
                    "cudaMalloc of %zu bytes for %s failed: out of memory (injected failure of device allocation #%lld, NG_FAIL_ALLOC_DEVICE)",
                    bytes, what, (long long)k);
  double t0 = ng_trace_t0();
  cudaError_t e = pooled ? ng_cuda_keep_malloc(p, bytes) : cudaMalloc(p, bytes);
  if (!pooled && e == cudaErrorMemoryAllocation) { /* the pool's free blocks back to the device, once more */
    cudaGetLastError();
    ng_cuda_keep_trim();
    e = cudaMalloc(p, bytes);
  }
  ng_trace_span(NG_TR_CUDA_MALLOC, t0);
  if (e != cudaSuccess) {
    cudaGetLastError();
    *p = NULL;
    return NG_ERROR(e == cudaErrorMemoryAllocation ? NG_ERR_DEVICE_MEMORY : NG_ERR_CUDA,
                    "cudaMalloc of %zu bytes for %s failed: %s", bytes, what, cudaGetErrorString(e));
  }
  ng_mem_track(NG_MEM_DEVICE, *p, bytes);
  return NG_SUCCESS;
}

extern "C" ng_status ng_cuda_malloc(void **p, size_t bytes, const char *what) { return device_malloc(p, bytes, what, 1); }
extern "C" ng_status ng_cuda_malloc_export(void **p, size_t bytes, const char *what)
{
  return device_malloc(p, bytes, what, 0);
}

extern "C" void ng_cuda_free(void *p)
{
  if (!p) return;
  ng_mem_untrack(NG_MEM_DEVICE, p);
  double t0 = ng_trace_t0();
  if (ng_cuda_keep_free(p) != cudaSuccess) cudaGetLastError(); /* a free has no caller to tell */
  ng_trace_span(NG_TR_CUDA_FREE, t0);
}

extern "C" void ng_cuda_free_export(void *p)
{
  if (!p) return;
  ng_mem_untrack(NG_MEM_DEVICE, p);
  double t0 = ng_trace_t0();
  if (cudaFree(p) != cudaSuccess) cudaGetLastError();
  ng_trace_span(NG_TR_CUDA_FREE, t0);
}

extern "C" ng_status ng_cuda_tmp_malloc(struct ng_cuda *cu, void **p, size_t bytes, const char *what)
{
  if (!cu->pool) return ng_cuda_malloc(p, bytes, what);
  *p = NULL;
  if (bytes == 0) bytes = 8;
  int64_t k = ng_alloc_fault_device_next(); /* counted with the others (NG_FAIL_ALLOC_DEVICE) */
  if (k)
    return NG_ERROR(NG_ERR_DEVICE_MEMORY,
                    "cudaMallocAsync of %zu bytes for %s failed: out of memory (injected failure of device allocation #%lld, NG_FAIL_ALLOC_DEVICE)",
                    bytes, what, (long long)k);
  cudaError_t e = cudaMallocFromPoolAsync(p, bytes, cu->pool, cu->stream);
  if (e != cudaSuccess) {
    cudaGetLastError();
    *p = NULL;
    return NG_ERROR(e == cudaErrorMemoryAllocation ? NG_ERR_DEVICE_MEMORY : NG_ERR_CUDA,
                    "cudaMallocAsync of %zu bytes for %s failed: %s", bytes, what, cudaGetErrorString(e));
  }
  /* counted live from here to its (queued) free: the pool's blocks are
   * reused stream-ordered, so that is what the pool must hold */
  ng_mem_track(NG_MEM_DEVICE, *p, bytes);
  return NG_SUCCESS;
}

extern "C" void ng_cuda_tmp_free(struct ng_cuda *cu, void *p)
{
  if (!p) return;
  if (!cu->pool) {
    ng_cuda_free(p);
    return;
  }
  ng_mem_untrack(NG_MEM_DEVICE, p);
  if (cudaFreeAsync(p, cu->stream) != cudaSuccess) cudaGetLastError(); /* a free has no caller to tell */
}

/* The temporaries' pool: freed blocks stay in it for the next allocations,
 * up to a release threshold (1 GiB, or 1/16 of the device when smaller) past
 * which a sync returns them. No pool where the device has none (plain
 * cudaMalloc then). */
static ng_status make_pool(struct ng_cuda *cu, int device)
{
  int ok = 0;
  if (cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess || !ok) {
    cudaGetLastError();
    return NG_SUCCESS;
  }
  cudaMemPoolProps pp;
  memset(&pp, 0, sizeof(pp));
  pp.allocType = cudaMemAllocationTypePinned;
  pp.location.type = cudaMemLocationTypeDevice;
  pp.location.id = device;
  NG_CUDA_CHECK(cudaMemPoolCreate(&cu->pool, &pp));
  uint64_t keep = cu->prop.totalGlobalMem / 16;
  if (keep > ((uint64_t)1 << 30)) keep = (uint64_t)1 << 30;
  NG_CUDA_CHECK(cudaMemPoolSetAttribute(cu->pool, cudaMemPoolAttrReleaseThreshold, &keep));
  /* the pool's first allocation costs about 6 ms (H100): paid here, with the
   * handles, rather than inside the first setup */
  void *p = NULL;
  NG_CUDA_CHECK(cudaMallocFromPoolAsync(&p, 256, cu->pool, cu->stream));
  NG_CUDA_CHECK(cudaFreeAsync(p, cu->stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(cu->stream));
  return NG_SUCCESS;
}

extern "C" int ng_cuda_host_pin(void *p, size_t bytes)
{
  if (!p || bytes < ((size_t)1 << 20)) return 0; /* small arrays: not worth a registration */
  if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) != cudaSuccess) {
    cudaGetLastError(); /* not sticky: clear it, the copies stay pageable */
    return 0;
  }
  return 1;
}

extern "C" void ng_cuda_host_unpin(void *p)
{
  if (p && cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

static ng_status cuda_setup(struct ng_cuda *cu, int device, int local_rank, char *describe, size_t len)
{
  int count = ng_cuda_device_count();
  if (count <= 0) return NG_ERROR(NG_ERR_NO_DEVICE, "no CUDA device is visible");
  if (device < 0) {
    const char *env = getenv("NG_DEVICE");
    if (env && *env) {
      char *end;
      long d = strtol(env, &end, 10);
      if (*end || d < 0 || d >= count)
        return NG_ERROR(NG_ERR_ARGUMENT, "NG_DEVICE='%s' is not a device number below %d", env, count);
      device = (int)d;
    } else {
      device = local_rank % count;
    }
  }
  if (device >= count) return NG_ERROR(NG_ERR_ARGUMENT, "device %d asked for but only %d visible", device, count);
  cu->device = device;
  NG_CUDA_CHECK(cudaSetDevice(device));
  NG_CUDA_CHECK(cudaGetDeviceProperties(&cu->prop, device));
  /* the context's stream at the greatest priority: work queued beside it on
   * streams of the default (least) priority, the MCGS setup's early coloring,
   * gets the multiprocessors only where the setup's own kernels leave them */
  int least = 0, greatest = 0;
  NG_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  NG_CUDA_CHECK(cudaStreamCreateWithPriority(&cu->stream, cudaStreamNonBlocking, greatest));
  NG_CUBLAS_CHECK(cublasCreate(&cu->cublas));
  NG_CUBLAS_CHECK(cublasSetStream(cu->cublas, cu->stream));
  NG_CUSPARSE_CHECK(cusparseCreate(&cu->cusparse));
  NG_CUSPARSE_CHECK(cusparseSetStream(cu->cusparse, cu->stream));
  NG_CHECK(make_pool(cu, device));
  NG_CHECK(ng_cuda_keep_attach(device, &cu->keep_attached));
  NG_CHECK(NG_CUDA_MALLOC(cu->scratch, NG_CUDA_SCRATCH));
  NG_CUDA_CHECK(cudaMemset(cu->scratch, 0, NG_CUDA_SCRATCH * sizeof(double)));
  int64_t k = ng_alloc_fault_device_next(); /* pinned memory counts as a device allocation */
  if (k)
    return NG_ERROR(NG_ERR_DEVICE_MEMORY,
                    "cudaHostAlloc of %zu bytes for the reduction results failed: out of memory (injected failure of "
                    "device allocation #%lld, NG_FAIL_ALLOC_DEVICE)",
                    1024 * sizeof(double), (long long)k);
  NG_CUDA_CHECK(cudaHostAlloc((void **)&cu->host_scratch, 1024 * sizeof(double), cudaHostAllocMapped));
  /* reductions write their few results straight into host memory when the
   * device can map it (saves a copy per reduction); else they are copied */
  if (cudaHostGetDevicePointer((void **)&cu->host_scratch_dev, cu->host_scratch, 0) != cudaSuccess) {
    cudaGetLastError();
    cu->host_scratch_dev = NULL;
  }
  snprintf(describe, len, "GPU %d: %s (sm_%d%d, %.1f GiB)", device, cu->prop.name, cu->prop.major,
           cu->prop.minor, cu->prop.totalGlobalMem / 1073741824.0);
  return NG_SUCCESS;
}

extern "C" ng_status ng_cuda_create(struct ng_cuda **out, int device, int local_rank, char *describe, size_t len)
{
  struct ng_cuda *cu;
  *out = NULL;
  NG_CHECK(NG_CALLOC(cu, 1));
  ng_status st = cuda_setup(cu, device, local_rank, describe, len);
  if (st != NG_SUCCESS) {
    ng_cuda_destroy(cu);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *out = cu;
  return NG_SUCCESS;
}

extern "C" void ng_cuda_destroy(struct ng_cuda *cu)
{
  if (!cu) return;
  if (cu->stream) cudaStreamSynchronize(cu->stream);
  ng_cuda_free(cu->scratch);
  if (cu->host_scratch) cudaFreeHost(cu->host_scratch);
  if (cu->cusparse) cusparseDestroy(cu->cusparse);
  if (cu->cublas) cublasDestroy(cu->cublas);
  if (cu->stream) cudaStreamDestroy(cu->stream);
  if (cu->pool) cudaMemPoolDestroy(cu->pool);
  if (cu->keep_attached) ng_cuda_keep_detach(cu->device);
  ng_free(cu);
}
