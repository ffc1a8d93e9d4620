/* comm/comm.c: creates the context's communicator (initialising MPI when the
 * caller has not) and the reductions every Krylov iteration uses. */
#include "comm_mpi.h"
#include "trace.h"
#include <stdlib.h>
#include <unistd.h>

#ifdef NG_HAVE_MPI
/* MPI can be initialised once per process: when nagare initialised it, it
 * finalises it at exit, not when a context goes, so contexts can come and go. */
static pid_t ng_mpi_init_pid = 0;

/* Only the process that called MPI_Init finalises: a forked child (Check runs
 * each test in one) must not, or it hangs waiting for its parent. */
static void ng_mpi_finalize_at_exit(void)
{
  int fin = 0;
  if (getpid() != ng_mpi_init_pid) return;
  MPI_Finalized(&fin);
  if (!fin) MPI_Finalize();
}
#endif

/* mpi_comm points to an MPI_Comm to duplicate (NULL: MPI_COMM_WORLD). */
ng_status ng_comm_create_from(const void *mpi_comm, ng_comm **comm)
{
  ng_comm *c;
  NG_CHECK(NG_CALLOC(c, 1));
  c->rank = 0; c->size = 1; c->local_rank = 0; c->local_size = 1;
#ifdef NG_HAVE_MPI
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) { ng_free(c); return NG_ERROR(NG_ERR_MPI, "MPI_Init failed"); }
    ng_mpi_init_pid = getpid();
    atexit(ng_mpi_finalize_at_exit);
    const char *report = getenv("NG_ALLOC_REPORT");
    if (report && strcmp(report, "0")) { /* the MPI fault walk's first N worth agreeing on */
      int64_t host = 0;
      ng_alloc_fault_counts(&host, NULL, NULL);
      fprintf(stderr, "nagare: MPI initialised after %lld host allocations (NG_ALLOC_REPORT)\n", (long long)host);
    }
  }
  if (MPI_Comm_dup(mpi_comm ? *(const MPI_Comm *)mpi_comm : MPI_COMM_WORLD, &c->comm) != MPI_SUCCESS) {
    ng_free(c);
    return NG_ERROR(NG_ERR_MPI, "MPI_Comm_dup of the context's communicator failed");
  }
  MPI_Comm_rank(c->comm, &c->rank);
  MPI_Comm_size(c->comm, &c->size);
  MPI_Comm node;
  if (MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &c->local_rank);
    MPI_Comm_size(node, &c->local_size);
    MPI_Comm_free(&node);
  }
#else
  if (mpi_comm) {
    ng_free(c);
    return NG_ERROR(NG_ERR_UNSUPPORTED, "a communicator was given but nagare was built without MPI");
  }
#endif
  *comm = c;
  return NG_SUCCESS;
}

ng_status ng_comm_create_self(ng_comm **comm)
{
#ifdef NG_HAVE_MPI
  MPI_Comm self = MPI_COMM_SELF;
  NG_CHECK(ng_comm_create_from(&self, comm));
#else
  NG_CHECK(ng_comm_create_from(NULL, comm));
#endif
  return NG_SUCCESS;
}

void ng_comm_destroy(ng_comm *c)
{
  if (!c) return;
#ifdef NG_HAVE_MPI
  int fin = 0;
  MPI_Finalized(&fin);
  if (!fin && c->ireq_active) MPI_Wait(&c->ireq, MPI_STATUS_IGNORE); /* a solve that failed mid-sum */
  if (!fin) MPI_Comm_free(&c->comm);
#endif
  ng_free(c);
}

ng_status ng_comm_allreduce_sum(ng_context ctx, double *values, int n)
{
#ifdef NG_HAVE_MPI
  if (ctx->comm->size > 1) {
    double t0 = ng_trace_t0();
    NG_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, ctx->comm->comm));
    ng_trace_span(NG_TR_ALLREDUCE, t0);
  }
#else
  (void)ctx; (void)values; (void)n;
#endif
  return NG_SUCCESS;
}

ng_status ng_comm_iallreduce_sum_start(ng_context ctx, double *values, int n)
{
#ifdef NG_HAVE_MPI
  ng_comm *c = ctx->comm;
  if (c->size > 1) {
    if (c->ireq_active) return NG_ERROR(NG_ERR_INTERNAL, "a non-blocking sum is already in flight");
    NG_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, c->comm, &c->ireq));
    c->ireq_active = 1;
  }
#else
  (void)ctx; (void)values; (void)n;
#endif
  return NG_SUCCESS;
}

ng_status ng_comm_iallreduce_sum_wait(ng_context ctx)
{
#ifdef NG_HAVE_MPI
  ng_comm *c = ctx->comm;
  if (c->ireq_active) {
    double t0 = ng_trace_t0();
    c->ireq_active = 0;
    NG_MPI_CHECK(MPI_Wait(&c->ireq, MPI_STATUS_IGNORE));
    ng_trace_span(NG_TR_ALLREDUCE, t0);
  }
#else
  (void)ctx;
#endif
  return NG_SUCCESS;
}

int ng_comm_local_size(ng_context ctx) { return ctx->comm && ctx->comm->local_size > 0 ? ctx->comm->local_size : 1; }

ng_status ng_comm_allgather_int64(ng_context ctx, int64_t mine, int64_t *all)
{
#ifdef NG_HAVE_MPI
  if (ctx->comm->size > 1) {
    NG_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT64_T, all, 1, MPI_INT64_T, ctx->comm->comm));
    return NG_SUCCESS;
  }
#endif
  (void)ctx;
  all[0] = mine;
  return NG_SUCCESS;
}

