/* comm/transport_ipc_cache.c: the ipc transport's handles kept between
 * plans (NG_IPC_CACHE=1; off by default until measured on GPUs). Each plan
 * of the ipc transport exports a fresh landing allocation and each of its
 * senders opens it (cudaIpcOpenMemHandle: 1.6-2.0 ms a handle on 2 H200s;
 * the cudaMalloc and cudaFree around it are mapped into every peer): 21
 * transport setups cost 45-64 ms a bench/scaling run on 4 H200s, at every
 * AMG setup again. With the cache a context keeps
 *   - its landing allocations: a destroyed plan's goes back to the context
 *     and the next plan that fits takes it (sizes rounded up to a power of
 *     two, at least 64 KiB), exported once;
 *   - the neighbours' allocations it opened, by their handle: a plan that
 *     gets a handle this context has open reuses the mapping (a process
 *     cannot open one handle twice anyway).
 * A landing allocation is taken by one plan at a time; a plan's exchanges
 * all end before its destroy (ipc_destroy syncs the stream), and a sender
 * writes only after the READY of a live plan, so a reused allocation is
 * never written by an older plan. Everything goes in
 * ng_ipc_cache_release, called by ng_context_destroy before the device. */
#include "transport_part.h"
#if defined(NG_HAVE_MPI) && defined(NG_HAVE_CUDA)
#include "cuda_internal.h"
#include <pthread.h>

typedef struct landing {
  void *p;
  size_t bytes;
  cudaIpcMemHandle_t handle;
  int busy;
  struct landing *next;
} landing;

typedef struct opened {
  cudaIpcMemHandle_t handle;
  void *base;
  struct opened *next;
} opened;

typedef struct {
  landing *own;
  opened *peer;
} ipc_cache;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

int ng_ipc_cache_on(void)
{
  const char *e = getenv("NG_IPC_CACHE");
  return e && !strcmp(e, "1");
}

static ipc_cache *cache_of(ng_context ctx)
{
  if (!ctx->ipc_cache) {
    ipc_cache *c = NULL;
    if (NG_CALLOC(c, 1)) return NULL;
    ctx->ipc_cache = c;
  }
  return ctx->ipc_cache;
}

ng_status ng_ipc_landing_take(ng_context ctx, size_t bytes, void **p, cudaIpcMemHandle_t *handle)
{
  size_t want = (size_t)1 << 16;
  while (want < bytes) want <<= 1;
  pthread_mutex_lock(&cache_lock);
  ipc_cache *c = cache_of(ctx);
  landing *best = NULL;
  for (landing *l = c ? c->own : NULL; l; l = l->next)
    if (!l->busy && l->bytes >= bytes && (!best || l->bytes < best->bytes)) best = l;
  if (best) best->busy = 1;
  pthread_mutex_unlock(&cache_lock);
  if (!c) return NG_ERROR(NG_ERR_MEMORY, "ipc: no memory for the handle cache");
  if (best) {
    *p = best->p;
    *handle = best->handle;
    return NG_SUCCESS;
  }
  landing *l = NULL;
  NG_CHECK(NG_CALLOC(l, 1));
  ng_status st = ng_cuda_malloc_export(&l->p, want, "ipc landing buffers (kept)");
  if (!st) {
    cudaError_t e = cudaIpcGetMemHandle(&l->handle, l->p);
    if (e != cudaSuccess) {
      cudaGetLastError();
      st = NG_ERROR(NG_ERR_CUDA, "cudaIpcGetMemHandle of a landing buffer failed: %s", cudaGetErrorString(e));
    }
  }
  if (st) {
    ng_cuda_free_export(l->p);
    ng_free(l);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  l->bytes = want;
  l->busy = 1;
  pthread_mutex_lock(&cache_lock);
  l->next = c->own;
  c->own = l;
  pthread_mutex_unlock(&cache_lock);
  *p = l->p;
  *handle = l->handle;
  return NG_SUCCESS;
}

void ng_ipc_landing_give(ng_context ctx, void *p)
{
  pthread_mutex_lock(&cache_lock);
  ipc_cache *c = ctx->ipc_cache;
  for (landing *l = c ? c->own : NULL; l; l = l->next)
    if (l->p == p) l->busy = 0;
  pthread_mutex_unlock(&cache_lock);
}

ng_status ng_ipc_open_kept(ng_context ctx, const cudaIpcMemHandle_t *handle, void **base)
{
  pthread_mutex_lock(&cache_lock);
  ipc_cache *c = cache_of(ctx);
  opened *o = c ? c->peer : NULL;
  while (o && memcmp(&o->handle, handle, sizeof(*handle))) o = o->next;
  pthread_mutex_unlock(&cache_lock);
  if (!c) return NG_ERROR(NG_ERR_MEMORY, "ipc: no memory for the handle cache");
  if (o) {
    *base = o->base;
    return NG_SUCCESS;
  }
  NG_CHECK(NG_CALLOC(o, 1));
  cudaError_t e = cudaIpcOpenMemHandle(&o->base, *handle, cudaIpcMemLazyEnablePeerAccess);
  if (e != cudaSuccess) {
    cudaGetLastError();
    ng_free(o);
    return NG_ERROR(NG_ERR_CUDA, "cudaIpcOpenMemHandle failed: %s", cudaGetErrorString(e));
  }
  o->handle = *handle;
  pthread_mutex_lock(&cache_lock);
  o->next = c->peer;
  c->peer = o;
  pthread_mutex_unlock(&cache_lock);
  *base = o->base;
  return NG_SUCCESS;
}

void ng_ipc_cache_release(ng_context ctx)
{
  ipc_cache *c = ctx->ipc_cache;
  if (!c) return;
  if (ctx->cuda && ctx->cuda->stream) cudaStreamSynchronize(ctx->cuda->stream);
  for (opened *o = c->peer, *n; o; o = n) {
    n = o->next;
    if (cudaIpcCloseMemHandle(o->base) != cudaSuccess) cudaGetLastError();
    ng_free(o);
  }
  for (landing *l = c->own, *n; l; l = n) {
    n = l->next;
    ng_cuda_free_export(l->p);
    ng_free(l);
  }
  ng_free(c);
  ctx->ipc_cache = NULL;
}
#else
void ng_ipc_cache_release(ng_context ctx) { (void)ctx; }
#endif
