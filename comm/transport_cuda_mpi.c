/* comm/transport_cuda_mpi.c: the CUDA-aware MPI part, for neighbours on
 * other nodes when the MPI library takes device pointers: the gather packs
 * into the device send buffer, and MPI_Isend / MPI_Irecv move device memory
 * directly (the library picks GPUDirect RDMA or its own staging). Needs the
 * compile-time MPIX_CUDA_AWARE_SUPPORT of mpi-ext.h and a run-time
 * MPIX_Query_cuda_support() of 1; otherwise it is never chosen by auto, and
 * asking for it fails with the same message on every rank. */
#include "transport_part.h"
#ifdef NG_HAVE_CUDA
#include "cuda_internal.h"
#endif
#if defined(NG_HAVE_MPI) && defined(HAVE_MPI_EXT_H)
#include <mpi-ext.h>
#endif

#if defined(NG_HAVE_MPI) && defined(NG_HAVE_CUDA) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
#define NG_CUDA_MPI 1
#endif

int ng_cuda_mpi_available(char *why, size_t len)
{
#if defined(NG_CUDA_MPI)
  if (MPIX_Query_cuda_support() == 1) return 1;
  snprintf(why, len, "the MPI library is not CUDA-aware at run time (MPIX_Query_cuda_support() returned 0)");
  return 0;
#elif !defined(NG_HAVE_CUDA)
  snprintf(why, len, "nagare was built without CUDA");
  return 0;
#elif !defined(NG_HAVE_MPI)
  snprintf(why, len, "nagare was built without MPI");
  return 0;
#else
  snprintf(why, len, "the MPI library is not CUDA-aware (its mpi-ext.h has no MPIX_CUDA_AWARE_SUPPORT)");
  return 0;
#endif
}

#if defined(NG_CUDA_MPI)
#define NB_COUNT(off, q) ((off)[(q) + 1] - (off)[q])

typedef struct {
  const ng_nb_subset *nb;
  cudaStream_t stream;
  double *recv_buf;  /* the plan's receive buffer (device memory): MPI lands there */
  MPI_Request *req; /* nr receives, then ns sends */
  int nreq;
} cuda_mpi_state;

static ng_status cm_setup(struct ng_halo_plan *h, double *recv_buf, const ng_nb_subset *nb, void **state)
{
  cuda_mpi_state *s;
  NG_CHECK(NG_CALLOC(s, 1));
  *state = s;
  s->nb = nb;
  s->recv_buf = recv_buf;
  s->nreq = nb->nr + nb->ns;
  NG_CHECK(NG_MALLOC(s->req, s->nreq + 1));
  for (int k = 0; k < s->nreq; k++) s->req[k] = MPI_REQUEST_NULL;
  if (s->nreq > 0 && !h->ctx->on_gpu) return NG_ERROR(NG_ERR_UNSUPPORTED, "the cuda_mpi transport needs a GPU context");
  s->stream = h->ctx->on_gpu ? h->ctx->cuda->stream : NULL;
  return NG_SUCCESS;
}

static ng_status cm_pack(struct ng_halo_plan *h, void *state, const double *x)
{
  cuda_mpi_state *s = state;
  const ng_nb_subset *nb = s->nb;
  ng_context ctx = h->ctx;
  for (int k = 0; k < nb->ns; k++) {
    int q = nb->snb[k];
    NG_CHECK(ctx->vops->gather(ctx, NB_COUNT(h->send_offset, q), h->send_idx + h->send_offset[q], x,
                               h->send_buf + h->send_offset[q]));
  }
  /* MPI reads the packed blocks, and writes recv_buf, outside the stream:
   * the gathers and every earlier reader of recv_buf must be done */
  if (s->nreq > 0) NG_CUDA_CHECK(cudaStreamSynchronize(s->stream));
  return NG_SUCCESS;
}

static ng_status cm_start(struct ng_halo_plan *h, void *state)
{
  cuda_mpi_state *s = state;
  const ng_nb_subset *nb = s->nb;
  double *recv_buf = s->recv_buf;
  MPI_Comm comm = h->ctx->comm->comm;
  for (int k = 0; k < nb->nr; k++) {
    int q = nb->rnb[k];
    NG_MPI_CHECK(MPI_Irecv(recv_buf + h->recv_offset[q], NB_COUNT(h->recv_offset, q), MPI_DOUBLE, h->recv_rank[q],
                           NG_TAG_CUDA_MPI, comm, &s->req[k]));
  }
  for (int k = 0; k < nb->ns; k++) {
    int q = nb->snb[k];
    NG_MPI_CHECK(MPI_Isend(h->send_buf + h->send_offset[q], NB_COUNT(h->send_offset, q), MPI_DOUBLE, h->send_rank[q],
                           NG_TAG_CUDA_MPI, comm, &s->req[nb->nr + k]));
  }
  return NG_SUCCESS;
}

static ng_status cm_finish(struct ng_halo_plan *h, void *state, double *recv_buf)
{
  cuda_mpi_state *s = state;
  if (recv_buf != s->recv_buf) return NG_ERROR(NG_ERR_INTERNAL, "cuda_mpi: finish into another buffer than setup's");
  NG_MPI_CHECK(MPI_Waitall(s->nreq, s->req, MPI_STATUSES_IGNORE));
  return NG_SUCCESS;
}

static void cm_destroy(struct ng_halo_plan *h, void *state)
{
  cuda_mpi_state *s = state;
  if (!s) return;
  ng_free(s->req);
  ng_free(s);
}
#else
static ng_status cm_setup(struct ng_halo_plan *h, double *recv_buf, const ng_nb_subset *nb, void **state)
{
  char why[160];
  ng_cuda_mpi_available(why, sizeof(why));
  return NG_ERROR(NG_ERR_UNSUPPORTED, "the cuda_mpi transport is not available: %s", why);
}
static ng_status cm_pack(struct ng_halo_plan *h, void *s, const double *x) { return NG_ERROR(NG_ERR_INTERNAL, "no cuda_mpi"); }
static ng_status cm_start(struct ng_halo_plan *h, void *s) { return NG_ERROR(NG_ERR_INTERNAL, "no cuda_mpi"); }
static ng_status cm_finish(struct ng_halo_plan *h, void *s, double *v) { return NG_ERROR(NG_ERR_INTERNAL, "no cuda_mpi"); }
static void cm_destroy(struct ng_halo_plan *h, void *s) {}
#endif

const ng_transport_part ng_part_cuda_mpi = {
  .name = "cuda_mpi",
  .setup = cm_setup,
  .pack = cm_pack,
  .start = cm_start,
  .finish = cm_finish,
  .destroy = cm_destroy,
};
