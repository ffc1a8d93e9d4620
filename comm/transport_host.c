/* comm/transport_host.c: the host-staging part. Packing runs on the
 * context's memory through ctx->vops->gather; on a GPU context the packed
 * blocks are copied into pinned host buffers (cudaHostAlloc, once per plan)
 * with asynchronous copies on the context's stream, moved with
 * MPI_Isend/MPI_Irecv, and copied back into the receive buffer the same
 * way. On a host context the staging buffers are the context buffers
 * themselves, so the copies vanish (decided once at setup, not per
 * exchange). An exchange allocates nothing. */
#include "transport_part.h"
#ifdef NG_HAVE_CUDA
#include "cuda_internal.h"
#endif

#ifdef NG_HAVE_MPI
typedef struct {
  const ng_nb_subset *nb;
  MPI_Request *req; /* nr receives, then ns sends */
  int nreq;
  int staged;       /* 1: pinned host staging (GPU context) */
#ifdef NG_HAVE_CUDA
  cudaStream_t stream;
  cudaEvent_t uploaded; /* last upload of recv_host done: recv_host may be reused */
  int upload_pending;
#endif
} host_state;

#define NB_COUNT(off, q) ((off)[(q) + 1] - (off)[q])

static ng_status host_setup(struct ng_halo_plan *h, double *recv_buf, const ng_nb_subset *nb, void **state)
{
  ng_context ctx = h->ctx;
  host_state *s;
  NG_CHECK(NG_CALLOC(s, 1));
  *state = s;
  s->nb = nb;
  s->nreq = nb->nr + nb->ns;
  NG_CHECK(NG_MALLOC(s->req, s->nreq));
  for (int k = 0; k < s->nreq; k++) s->req[k] = MPI_REQUEST_NULL;
  if (!ctx->on_gpu) {
    h->send_host = h->send_buf; /* context memory is host memory */
    h->recv_host = recv_buf;
    return NG_SUCCESS;
  }
#ifdef NG_HAVE_CUDA
  s->staged = 1;
  s->stream = ctx->cuda->stream;
  /* whole-plan sized (the blocks keep their offsets); at least one entry */
  NG_CUDA_CHECK(cudaHostAlloc((void **)&h->send_host, ((size_t)h->n_send + 1) * sizeof(double), cudaHostAllocDefault));
  NG_CUDA_CHECK(cudaHostAlloc((void **)&h->recv_host, ((size_t)h->n_recv + 1) * sizeof(double), cudaHostAllocDefault));
  NG_CUDA_CHECK(cudaEventCreateWithFlags(&s->uploaded, cudaEventDisableTiming));
  return NG_SUCCESS;
#else
  return NG_ERROR(NG_ERR_INTERNAL, "GPU context in a build without CUDA");
#endif
}

#ifdef NG_HAVE_CUDA
static ng_status copy_blocks(host_state *s, double *dst, const double *src, const int32_t *off, const int *q,
                             int n, int all, enum cudaMemcpyKind kind)
{
  if (all && n > 0) { /* one copy: the blocks of every neighbour are contiguous */
    size_t bytes = (size_t)(off[q[n - 1] + 1] - off[q[0]]) * sizeof(double);
    NG_CUDA_CHECK(cudaMemcpyAsync(dst + off[q[0]], src + off[q[0]], bytes, kind, s->stream));
    return NG_SUCCESS;
  }
  for (int k = 0; k < n; k++)
    NG_CUDA_CHECK(cudaMemcpyAsync(dst + off[q[k]], src + off[q[k]], (size_t)NB_COUNT(off, q[k]) * sizeof(double),
                                  kind, s->stream));
  return NG_SUCCESS;
}
#endif

static ng_status host_pack(struct ng_halo_plan *h, void *state, const double *x)
{
  host_state *s = state;
  const ng_nb_subset *nb = s->nb;
  ng_context ctx = h->ctx;
  if (nb->ns == 0) return NG_SUCCESS;
  if (nb->all_send) {
    NG_CHECK(ctx->vops->gather(ctx, h->n_send, h->send_idx, x, h->send_buf));
  } else {
    for (int k = 0; k < nb->ns; k++) {
      int q = nb->snb[k];
      NG_CHECK(ctx->vops->gather(ctx, NB_COUNT(h->send_offset, q), h->send_idx + h->send_offset[q], x,
                                 h->send_buf + h->send_offset[q]));
    }
  }
#ifdef NG_HAVE_CUDA
  if (s->staged) {
    NG_CHECK(copy_blocks(s, h->send_host, h->send_buf, h->send_offset, nb->snb, nb->ns, nb->all_send,
                         cudaMemcpyDeviceToHost));
    NG_CUDA_CHECK(cudaStreamSynchronize(s->stream)); /* MPI reads send_host next */
  }
#endif
  return NG_SUCCESS;
}

static ng_status host_start(struct ng_halo_plan *h, void *state)
{
  host_state *s = state;
  const ng_nb_subset *nb = s->nb;
  MPI_Comm comm = h->ctx->comm->comm;
#ifdef NG_HAVE_CUDA
  if (s->upload_pending) { /* the last exchange's upload still reads recv_host */
    NG_CUDA_CHECK(cudaEventSynchronize(s->uploaded));
    s->upload_pending = 0;
  }
#endif
  for (int k = 0; k < nb->nr; k++) {
    int q = nb->rnb[k];
    NG_MPI_CHECK(MPI_Irecv(h->recv_host + h->recv_offset[q], NB_COUNT(h->recv_offset, q), MPI_DOUBLE,
                           h->recv_rank[q], NG_TAG_HALO, comm, &s->req[k]));
  }
  for (int k = 0; k < nb->ns; k++) {
    int q = nb->snb[k];
    NG_MPI_CHECK(MPI_Isend(h->send_host + h->send_offset[q], NB_COUNT(h->send_offset, q), MPI_DOUBLE,
                           h->send_rank[q], NG_TAG_HALO, comm, &s->req[nb->nr + k]));
  }
  return NG_SUCCESS;
}

static ng_status host_finish(struct ng_halo_plan *h, void *state, double *recv_buf)
{
  host_state *s = state;
  int rc = MPI_Waitall(s->nreq, s->req, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return NG_ERROR(NG_ERR_MPI, "halo exchange: MPI_Waitall over %d neighbours failed: %s", s->nreq, msg);
  }
#ifdef NG_HAVE_CUDA
  if (s->staged && s->nb->nr > 0) {
    NG_CHECK(copy_blocks(s, recv_buf, h->recv_host, h->recv_offset, s->nb->rnb, s->nb->nr, s->nb->all_recv,
                         cudaMemcpyHostToDevice));
    NG_CUDA_CHECK(cudaEventRecord(s->uploaded, s->stream));
    s->upload_pending = 1;
  }
#endif
  return NG_SUCCESS;
}

static void host_destroy(struct ng_halo_plan *h, void *state)
{
  host_state *s = state;
  if (!s) return;
  if (s->staged) {
#ifdef NG_HAVE_CUDA
    cudaStreamSynchronize(s->stream); /* no copy may still use the staging */
    if (h->send_host) cudaFreeHost(h->send_host);
    if (h->recv_host) cudaFreeHost(h->recv_host);
    if (s->uploaded) cudaEventDestroy(s->uploaded);
#endif
  }
  h->send_host = h->recv_host = NULL;
  ng_free(s->req);
  ng_free(s);
}
#else
static ng_status host_setup(struct ng_halo_plan *h, double *recv_buf, const ng_nb_subset *nb, void **state)
{
  return NG_ERROR(NG_ERR_UNSUPPORTED, "halo exchange needs a build with MPI");
}
static ng_status host_pack(struct ng_halo_plan *h, void *s, const double *x) { return NG_ERROR(NG_ERR_INTERNAL, "no MPI"); }
static ng_status host_start(struct ng_halo_plan *h, void *s) { return NG_ERROR(NG_ERR_INTERNAL, "no MPI"); }
static ng_status host_finish(struct ng_halo_plan *h, void *s, double *v) { return NG_ERROR(NG_ERR_INTERNAL, "no MPI"); }
static void host_destroy(struct ng_halo_plan *h, void *s) {}
#endif

const ng_transport_part ng_part_host = {
  .name = "host",
  .setup = host_setup,
  .pack = host_pack,
  .start = host_start,
  .finish = host_finish,
  .destroy = host_destroy,
};
