/* amg/amg_graph.h: the captured cycles of -amg_cuda_graph
 * (amg_graph_cuda.cu; M->graphs), in a header of their own so that test
 * code (test/amg_cuda_host.cu) can count the launches. CUDA sources only. */
#ifndef NG_AMG_GRAPH_H
#define NG_AMG_GRAPH_H
#include "cuda_internal.h"

#define NG_AMG_GRAPHS 4

typedef struct {
  const double *r;
  double *z;
  cudaGraphExec_t exec;
} graph_entry;

typedef struct {
  graph_entry e[NG_AMG_GRAPHS];
  int next;     /* entry replaced by the next capture */
  int broken;   /* a capture failed: plain cycles from now on */
  long launches;
} amg_graphs;

#endif
