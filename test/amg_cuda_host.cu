/* test/amg_cuda_host.cu: the GPU AMG tests' view of a hierarchy's device
 * state (test/amg_cuda_host.h): a GPU-built level's P, R and A_c
 * downloaded into host CSRs, and the CUDA graph launch count. Test code:
 * built for make check only, in CUDA builds. */
#include "amg_cuda_host.h"
#include "../amg/amg_gpu_level.h"
#include "../amg/amg_graph.h"

/* X = the device CSR (rp, col, val) of nr x nc with nnz entries, on the host. */
static ng_status download(int32_t nr, int32_t nc, const int32_t *rp, const int32_t *col, const double *val,
                          int64_t nnz, ng_csr *X)
{
  int32_t *h = NULL;
  NG_CHECK(ng_csr_alloc(X, nr, nc, nnz));
  NG_CHECK(NG_MALLOC(h, (size_t)nr + 1));
  cudaError_t e = cudaMemcpy(h, rp, ((size_t)nr + 1) * sizeof(int32_t), cudaMemcpyDeviceToHost);
  for (int32_t i = 0; e == cudaSuccess && i <= nr; i++) X->rowptr[i] = h[i];
  ng_free(h);
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG GPU download failed: %s", cudaGetErrorString(e));
  NG_CUDA_CHECK(cudaMemcpy(X->col, col, (size_t)nnz * sizeof(int32_t), cudaMemcpyDeviceToHost));
  NG_CUDA_CHECK(cudaMemcpy(X->val, val, (size_t)nnz * sizeof(double), cudaMemcpyDeviceToHost));
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_download(ng_amg *M, int l, ng_csr *P, ng_csr *R, ng_csr *Ac)
{
  amg_gpu *g = M->gpu && l >= 0 && l < M->max_levels ? ng_amg_gpu_levels(M)[l] : NULL;
  if (!g || !g->Prp) return NG_ERROR(NG_ERR_ARGUMENT, "AMG: level %d was not built on the GPU", l);
  NG_CUDA_CHECK(cudaStreamSynchronize(g->ctx->cuda->stream));
  NG_CHECK(download(g->n, g->nagg, g->Prp, g->Pcol, g->Pval, g->nnzP, P));
  NG_CHECK(download(g->nagg, g->n, g->Rrp, g->Rcol, g->Rval, g->nnzP, R));
  if (Ac) NG_CHECK(download(g->nagg, g->nagg, g->Crp, g->Ccol, g->Cval, g->nnzC, Ac));
  return NG_SUCCESS;
}

extern "C" long ng_amg_graph_launches(ng_amg *M, int *broken)
{
  amg_graphs *G = (amg_graphs *)M->graphs;
  *broken = G ? G->broken : 0;
  return G ? G->launches : 0;
}
