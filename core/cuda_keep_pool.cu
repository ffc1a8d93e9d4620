/* core/cuda_keep_pool.cu: the device-wide memory pool behind ng_cuda_malloc
 * (hierarchies, matrices, vectors). Once a rank has opened a neighbour's
 * memory through CUDA IPC (peer access enabled lazily), every cudaMalloc
 * on its device is mapped into the peers too and every cudaFree unmapped:
 * 0.1-2.4 ms each on 2 H200s, paid again at each AMG setup for the arrays
 * of the last one. Blocks freed into this pool stay reserved (release
 * threshold: all) and the next setup's allocations take them without the
 * driver; pool memory is not mapped into peers (nothing reads it from
 * another device: IPC exchanges land in ng_cuda_malloc_export's buffers).
 * Allocation and free keep cudaMalloc's and cudaFree's synchronous meaning:
 * the block is ready on return, and a free first waits for the device (any
 * stream may still read the block), as cudaFree does. The pool is trimmed
 * when the last context on its device goes, and before an allocation that
 * ran out of device memory (pooled or plain) is tried once more.
 * NG_CUDA_POOL=0 turns it off (plain cudaMalloc / cudaFree), for
 * comparisons. */
#include "cuda_internal.h"
#include <stdlib.h>
#include <string.h>

#define KEEP_DEVICES 64
static cudaMemPool_t keep_pool[KEEP_DEVICES];
static cudaStream_t keep_stream[KEEP_DEVICES];
static int keep_users[KEEP_DEVICES];
static int keep_any; /* some device has a pool */

static int keep_wanted(void)
{
  const char *e = getenv("NG_CUDA_POOL");
  return !(e && !strcmp(e, "0"));
}

/* The pool and its stream for a device (once; kept, trimmed, when unused). */
static ng_status keep_create(int device)
{
  cudaMemPoolProps pp;
  memset(&pp, 0, sizeof(pp));
  pp.allocType = cudaMemAllocationTypePinned;
  pp.location.type = cudaMemLocationTypeDevice;
  pp.location.id = device;
  if (!keep_stream[device]) NG_CUDA_CHECK(cudaStreamCreateWithFlags(&keep_stream[device], cudaStreamNonBlocking));
  NG_CUDA_CHECK(cudaMemPoolCreate(&keep_pool[device], &pp));
  uint64_t all = UINT64_MAX;
  cudaError_t e = cudaMemPoolSetAttribute(keep_pool[device], cudaMemPoolAttrReleaseThreshold, &all);
  if (e != cudaSuccess) {
    cudaGetLastError();
    cudaMemPoolDestroy(keep_pool[device]);
    keep_pool[device] = NULL;
    return NG_ERROR(NG_ERR_CUDA, "cudaMemPoolSetAttribute(release threshold) failed: %s", cudaGetErrorString(e));
  }
  return NG_SUCCESS;
}

/* Called with the device current, by one thread (context creation);
 * *counted: 1 when this context became one of the pool's users (detach it). */
extern "C" ng_status ng_cuda_keep_attach(int device, int *counted)
{
  *counted = 0;
  if (device < 0 || device >= KEEP_DEVICES || !keep_wanted()) return NG_SUCCESS;
  if (!keep_pool[device]) {
    int ok = 0;
    if (cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess || !ok) {
      cudaGetLastError();
      return NG_SUCCESS; /* plain cudaMalloc on this device */
    }
    NG_CHECK(keep_create(device));
  }
  keep_users[device]++;
  keep_any = 1;
  *counted = 1;
  return NG_SUCCESS;
}

extern "C" void ng_cuda_keep_detach(int device)
{
  if (device < 0 || device >= KEEP_DEVICES || keep_users[device] == 0) return;
  if (--keep_users[device] > 0 || !keep_pool[device]) return;
  if (cudaStreamSynchronize(keep_stream[device]) != cudaSuccess ||
      cudaMemPoolTrimTo(keep_pool[device], 0) != cudaSuccess)
    cudaGetLastError(); /* nothing to tell: the memory goes with the process */
}

/* The pool of the current device (NULL: none, plain cudaMalloc). Once made
 * it serves every allocation and free on its device, also after the last
 * context went (a block of the pool is never given to cudaFree). */
static cudaMemPool_t current(int *device)
{
  if (!keep_any || cudaGetDevice(device) != cudaSuccess) return NULL;
  return *device >= 0 && *device < KEEP_DEVICES ? keep_pool[*device] : NULL;
}

extern "C" int ng_cuda_keep_on(void)
{
  int d;
  return current(&d) != NULL;
}

/* The current device's free pool blocks given back to the device (after
 * the device is idle): what an allocation that ran out of memory tries
 * before it fails, since blocks kept for another size, or for plain
 * cudaMalloc's users, would otherwise stay out of reach. */
extern "C" void ng_cuda_keep_trim(void)
{
  int d;
  cudaMemPool_t pool = current(&d);
  if (!pool) return;
  if (cudaDeviceSynchronize() != cudaSuccess || cudaMemPoolTrimTo(pool, 0) != cudaSuccess) cudaGetLastError();
}

extern "C" cudaError_t ng_cuda_keep_malloc(void **p, size_t bytes)
{
  int d;
  cudaMemPool_t pool = current(&d);
  if (!pool) return cudaMalloc(p, bytes);
  cudaError_t e = cudaMallocFromPoolAsync(p, bytes, pool, keep_stream[d]);
  if (e == cudaErrorMemoryAllocation) { /* blocks kept for other sizes: back to the device, once more */
    cudaGetLastError();
    ng_cuda_keep_trim();
    e = cudaMallocFromPoolAsync(p, bytes, pool, keep_stream[d]);
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(keep_stream[d]); /* ready for every stream */
  return e;
}

extern "C" cudaError_t ng_cuda_keep_free(void *p)
{
  int d;
  cudaMemPool_t pool = current(&d);
  if (!pool) return cudaFree(p);
  cudaError_t e = cudaDeviceSynchronize(); /* as cudaFree: no stream still reads p */
  if (e == cudaSuccess) e = cudaFreeAsync(p, keep_stream[d]);
  return e;
}
