/* precond/coloring_cuda.cu: the Jones-Plassmann-Luby coloring of coloring.c
 * on the GPU: per round one kernel decides (every uncolored vertex whose key
 * beats its uncolored neighbours' takes the smallest color its colored
 * neighbours lack) and one commits, so a round reads only the previous
 * rounds' colors and the result is the host reference's exactly. The keys
 * (hashed on fine levels, largest degree first on coarse ones) come from
 * ng_coloring_key; the round loop waits for one counter per round (setup
 * only). */
#include "cuda_internal.h"
#include "smoother.h"

#define TPB 256

__global__ void k_jpl_decide(int32_t n, const int64_t *rp, const int32_t *col, const uint64_t *key,
                             const int32_t *color, int32_t *next)
{
  int32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  next[v] = -1;
  if (color[v] >= 0) return;
  uint64_t kv = key[v];
  for (int64_t k = rp[v]; k < rp[v + 1]; k++) {
    int32_t u = col[k];
    if (color[u] < 0 && key[u] > kv) return;
  }
  for (int32_t base = 0;; base += 64) {
    unsigned long long used = 0;
    for (int64_t k = rp[v]; k < rp[v + 1]; k++) {
      int32_t c = color[col[k]] - base;
      if (c >= 0 && c < 64) used |= 1ull << c;
    }
    if (~used) {
      next[v] = base + __ffsll((long long)~used) - 1;
      return;
    }
  }
}

/* counters[0]: vertices colored this round, counters[1]: the largest color */
__global__ void k_jpl_commit(int32_t n, const int32_t *next, int32_t *color, int *counters)
{
  int32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || next[v] < 0) return;
  color[v] = next[v];
  atomicAdd(&counters[0], 1);
  atomicMax(&counters[1], next[v]);
}

static ng_status color_cuda(ng_context ctx, const ng_graph *G, int ldf, int32_t *color, int *ncolors)
{
  cudaStream_t s = ctx->cuda->stream;
  int32_t n = G->n;
  int64_t nnz = G->rowptr[n];
  int64_t *rp = NULL;
  int32_t *col = NULL, *dcolor = NULL, *next = NULL;
  uint64_t *key = NULL, *hkey = NULL;
  int *cnt = NULL, h[2] = {0, -1};
  ng_status st = NG_SUCCESS;
  unsigned nb = n > 0 ? (unsigned)((n + TPB - 1) / TPB) : 1u;
  NG_CHECK_GOTO(st, NG_MALLOC(hkey, n ? n : 1), out);
  for (int32_t i = 0; i < n; i++) hkey[i] = ng_coloring_key(ldf, G->rowptr[i + 1] - G->rowptr[i], (uint32_t)i);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(rp, (size_t)n + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(col, nnz ? nnz : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(key, n ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(dcolor, n ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(next, n ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_MALLOC(cnt, 2), out);
  {
    cudaError_t e = cudaMemcpyAsync(rp, G->rowptr, ((size_t)n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess && nnz)
      e = cudaMemcpyAsync(col, G->col, (size_t)nnz * sizeof(int32_t), cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess && n) e = cudaMemcpyAsync(key, hkey, (size_t)n * sizeof(uint64_t), cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess && n) e = cudaMemsetAsync(dcolor, 0xff, (size_t)n * sizeof(int32_t), s); /* -1 */
    if (e == cudaSuccess) e = cudaMemcpyAsync(cnt, h, sizeof(h), cudaMemcpyHostToDevice, s);
    for (int64_t left = n; e == cudaSuccess && left > 0;) {
      h[0] = 0;
      k_jpl_decide<<<nb, TPB, 0, s>>>(n, rp, col, key, dcolor, next);
      e = cudaMemsetAsync(cnt, 0, sizeof(int), s);
      if (e == cudaSuccess) {
        k_jpl_commit<<<nb, TPB, 0, s>>>(n, next, dcolor, cnt);
        e = cudaGetLastError();
      }
      if (e == cudaSuccess) e = cudaMemcpyAsync(h, cnt, sizeof(h), cudaMemcpyDeviceToHost, s);
      if (e == cudaSuccess) e = cudaStreamSynchronize(s);
      if (e == cudaSuccess && h[0] == 0) {
        st = NG_ERROR(NG_ERR_INTERNAL, "GPU coloring: a round colored nothing (%lld vertices left)", (long long)left);
        goto out;
      }
      left -= h[0];
    }
    if (e == cudaSuccess && n) e = cudaMemcpyAsync(color, dcolor, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
      st = NG_ERROR(NG_ERR_CUDA, "GPU coloring failed: %s", cudaGetErrorString(e));
      goto out;
    }
  }
  *ncolors = h[1] + 1;
out:
  cudaFree(rp);
  cudaFree(col);
  cudaFree(key);
  cudaFree(dcolor);
  cudaFree(next);
  cudaFree(cnt);
  ng_free(hkey);
  return st;
}

extern "C" const ng_coloring_ops ng_coloring_cuda = {"cuda", color_cuda};
