/* amg/amg_graph_cuda.cu: the V-cycle replayed as a CUDA graph
 * (-amg_cuda_graph, off by default; one-rank GPU context). A cycle is a few
 * dozen small kernels per level; captured once per (r, z) pair it is
 * launched with one call. The graph holds the kernels' pointers and scalars,
 * not the values behind them: every scalar of the cycle (omega, the SpMV's
 * alpha and beta, the sweep counts) is fixed between updates, no value is
 * read back on the host, and the Jacobi sweeps' alternation between x and
 * L->s.r is fixed by the sweep counts, so a replay runs the plain cycle's
 * kernels on the same arrays. An update drops the graphs (the finest
 * level's table is converted again, so its arrays move). Up to
 * NG_AMG_GRAPHS pairs are kept (BiCGSTAB applies the preconditioner to two).
 * If anything in the cycle cannot be captured, the cycle runs plainly from
 * then on. Byte-identical to the plain cycle exactly when the plain cycle is
 * reproducible itself (test_amg_cycle_gpu checks both; see
 * doc/performance.md for why the first version's test failed). */
#include "cuda_internal.h"
#include "amg.h"

#include "amg_graph.h"

extern "C" ng_status ng_amg_graph_cycle(ng_precond P, ng_amg *M, const double *r, double *z, ng_amg_cycle_fn body,
                                        int *done)
{
  amg_graphs *G = (amg_graphs *)M->graphs;
  cudaStream_t s = P->ctx->cuda->stream;
  cudaGraph_t graph = NULL;
  cudaGraphExec_t exec = NULL;
  *done = 0;
  if (!G) {
    NG_CHECK(NG_CALLOC(G, 1));
    M->graphs = G;
  }
  if (G->broken) return NG_SUCCESS;
  for (int k = 0; k < NG_AMG_GRAPHS; k++)
    if (G->e[k].exec && G->e[k].r == r && G->e[k].z == z) {
      NG_CUDA_CHECK(cudaGraphLaunch(G->e[k].exec, s));
      G->launches++;
      *done = 1;
      return NG_SUCCESS;
    }
  NG_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  ng_status st = body(P, M, r, z); /* recorded, not run */
  cudaError_t e = cudaStreamEndCapture(s, &graph);
  if (st == NG_SUCCESS && e == cudaSuccess && graph) e = cudaGraphInstantiate(&exec, graph, 0);
  if (graph) cudaGraphDestroy(graph);
  if (st != NG_SUCCESS || e != cudaSuccess || !exec) {
    /* not capturable (or a real error, which the plain cycle now reports) */
    (void)cudaGetLastError();
    ng_error_clear();
    G->broken = 1;
    return NG_SUCCESS;
  }
  graph_entry *E = &G->e[G->next];
  G->next = (G->next + 1) % NG_AMG_GRAPHS;
  if (E->exec) cudaGraphExecDestroy(E->exec);
  E->r = r;
  E->z = z;
  E->exec = exec;
  NG_CUDA_CHECK(cudaGraphLaunch(exec, s));
  G->launches++;
  *done = 1;
  return NG_SUCCESS;
}

extern "C" void ng_amg_graph_free(ng_amg *M)
{
  amg_graphs *G = (amg_graphs *)M->graphs;
  if (!G) return;
  for (int k = 0; k < NG_AMG_GRAPHS; k++)
    if (G->e[k].exec) cudaGraphExecDestroy(G->e[k].exec);
  ng_free(G);
  M->graphs = NULL;
}
