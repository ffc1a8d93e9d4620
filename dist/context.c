/* dist/context.c: a context owns the communicator and, on the GPU, the device
 * with its stream and cuBLAS/cuSPARSE handles; it picks the vector ops table
 * so that nothing above it branches on where it runs. */
#include "dist.h"
#include "trace.h"
#include "../comm/comm_mpi.h" /* c->comm->local_size */
#include "../comm/halo.h"     /* ng_halo_identity_release */
#ifdef _OPENMP
#include <omp.h>
#endif

/* Several ranks on one node share its cores: unless OMP_NUM_THREADS says
 * otherwise, each rank gets cores / ranks-on-node OpenMP threads (at least
 * one), so that ranks x threads does not oversubscribe the node (spinning
 * OpenMP threads of 4 ranks on 2 cores made solves 35x slower). */
static ng_status context_use_host(ng_context c)
{
  int threads = 1;
#ifdef _OPENMP
  const char *env = getenv("OMP_NUM_THREADS");
  if ((!env || !*env) && c->comm->local_size > 1) {
    int share = omp_get_num_procs() / c->comm->local_size;
    omp_set_num_threads(share > 0 ? share : 1);
  }
  threads = omp_get_max_threads();
#endif
  c->on_gpu = 0;
  c->vops = &ng_vec_ops_host;
  snprintf(c->describe, sizeof(c->describe), "host CPU, %d thread%s", threads, threads == 1 ? "" : "s");
  return NG_SUCCESS;
}

ng_status ng_context_create(const char *resource, ng_context *ctx)
{
  NG_CHECK(ng_context_create_comm(resource, NULL, ctx));
  return NG_SUCCESS;
}

ng_status ng_context_create_comm(const char *resource, const void *mpi_comm, ng_context *ctx)
{
  ng_context c;
  ng_status st;
  NG_ASSERT_ARG(ctx, "ng_context_create: null output handle");
  *ctx = NULL;
  if (!resource || !*resource) resource = getenv("NG_RESOURCE");
  if (!resource || !*resource) resource = "auto";
  if (strcmp(resource, "auto") && strcmp(resource, "cpu") && strcmp(resource, "gpu"))
    return NG_ERROR(NG_ERR_ARGUMENT, "unknown resource '%s' (use auto, cpu or gpu)", resource);
  NG_CHECK(NG_CALLOC(c, 1));
  c->gpu_device = -1;
  NG_CHECK_GOTO(st, ng_comm_create_from(mpi_comm, &c->comm), fail);
  c->rank = c->comm->rank;
  ng_trace_init(c->rank); /* NG_TRACE=prefix: the per-rank timeline */
  c->size = c->comm->size;
  st = NG_SUCCESS;
  if (!strcmp(resource, "cpu")) {
    context_use_host(c);
  } else {
#ifdef NG_HAVE_CUDA
    int ndev = ng_cuda_device_count();
    if (ndev > 0) {
      st = ng_binding_pick_gpu(c, ndev, &c->gpu_device);
      if (st == NG_SUCCESS)
        st = ng_cuda_create(&c->cuda, c->gpu_device, c->comm->local_rank, c->describe, sizeof(c->describe));
      c->on_gpu = st == NG_SUCCESS;
      c->vops = &ng_vec_ops_cuda;
    } else
#endif
    {
      if (!strcmp(resource, "gpu"))
        st = NG_ERROR(NG_ERR_NO_DEVICE, ng_have_cuda() ? "resource 'gpu' asked for but no CUDA device is visible"
                                                       : "resource 'gpu' asked for but nagare was built without CUDA");
      else
        context_use_host(c);
    }
  }
  /* the device set-up can fail on one rank only (its allocations, its GPU):
   * every rank learns it here, before the transport's collective set-up */
  NG_CHECK_GOTO(st, ng_comm_agree(c, st), fail);
  {
    const char *t = getenv("NG_COMM_TRANSPORT");
    NG_CHECK_GOTO(st, ng_context_set_transport(c, t && *t ? t : "auto"), fail);
  }
  {
    const char *bind = getenv("NG_BIND_MEMORY");
    if (bind && !strcmp(bind, "1")) NG_CHECK_GOTO(st, ng_context_bind_memory(c), fail);
  }
  *ctx = c;
  return NG_SUCCESS;
fail:
#ifdef NG_HAVE_CUDA
  if (c->cuda) ng_cuda_destroy(c->cuda);
#endif
  ng_comm_destroy(c->comm);
  ng_free(c);
  return st;
}

/* This rank alone, on the parent's device: its stream and handles are
 * borrowed, so that work of the two contexts is ordered on one stream. */
ng_status ng_context_create_self(ng_context parent, ng_context *sub)
{
  ng_context c;
  *sub = NULL;
  NG_CHECK(NG_CALLOC(c, 1));
  ng_status st = ng_comm_create_self(&c->comm);
  if (st) {
    ng_free(c);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  c->rank = 0;
  c->size = 1;
  c->on_gpu = parent->on_gpu;
  c->vops = parent->vops;
  c->cuda = parent->cuda;
  c->cuda_borrowed = 1;
  c->gpu_device = parent->gpu_device;
  c->memory_bound = parent->memory_bound;
  c->comm_transport = parent->comm_transport;
  snprintf(c->describe, sizeof(c->describe), "%s", parent->describe);
  *sub = c;
  return NG_SUCCESS;
}

ng_status ng_context_destroy(ng_context ctx)
{
  if (!ctx) return NG_SUCCESS;
  ng_halo_identity_release(ctx); /* before the device goes */
  ng_ipc_cache_release(ctx);
#ifdef NG_HAVE_CUDA
  if (ctx->cuda && !ctx->cuda_borrowed) ng_cuda_destroy(ctx->cuda);
#endif
  ng_comm_destroy(ctx->comm);
  ng_free(ctx->rank_info);
  ng_free(ctx);
  return NG_SUCCESS;
}

ng_status ng_context_on_gpu(ng_context ctx, int *on_gpu)
{
  NG_ASSERT_ARG(ctx && on_gpu, "ng_context_on_gpu: null argument");
  *on_gpu = ctx->on_gpu;
  return NG_SUCCESS;
}

ng_status ng_context_rank(ng_context ctx, int *rank, int *size)
{
  NG_ASSERT_ARG(ctx, "ng_context_rank: null context");
  if (rank) *rank = ctx->rank;
  if (size) *size = ctx->size;
  return NG_SUCCESS;
}

const char *ng_context_describe(ng_context ctx) { return ctx ? ctx->describe : "(null context)"; }
