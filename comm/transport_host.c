/* comm/transport_host.c: the host-staging halo transport. Packing runs on
 * the context's memory through ctx->vops->gather; the packed buffer is
 * downloaded to a host buffer, moved with MPI_Isend/MPI_Irecv, and the
 * received host buffer is uploaded into A->halo_values. On a host context the
 * staging buffers are the context buffers themselves, so the copies vanish
 * (decided once at setup, not per exchange). All buffers and requests are
 * allocated at setup; an exchange allocates nothing. */
#include "transport.h"

#define NG_TAG_HALO 7311

#ifdef NG_HAVE_MPI
typedef struct {
  MPI_Request *req; /* n_recv_nb receives, then n_send_nb sends */
  int nreq;
} host_state;

static ng_status host_setup(struct ng_halo_plan *h, double *halo_values)
{
  ng_context ctx = h->ctx;
  host_state *s;
  NG_CHECK(NG_CALLOC(s, 1));
  h->tdata = s;
  s->nreq = h->n_recv_nb + h->n_send_nb;
  NG_CHECK(NG_MALLOC(s->req, s->nreq));
  for (int k = 0; k < s->nreq; k++) s->req[k] = MPI_REQUEST_NULL;
  if (ctx->on_gpu) {
    NG_CHECK(NG_MALLOC(h->send_host, h->n_send));
    NG_CHECK(NG_MALLOC(h->recv_host, h->n_recv));
  } else {
    h->send_host = h->send_buf; /* context memory is host memory */
    h->recv_host = halo_values;
  }
  return NG_SUCCESS;
}

static ng_status host_pack(struct ng_halo_plan *h, const double *x)
{
  ng_context ctx = h->ctx;
  if (h->n_send == 0) return NG_SUCCESS;
  NG_CHECK(ctx->vops->gather(ctx, h->n_send, h->send_idx, x, h->send_buf));
  if (h->send_host != h->send_buf) {
    NG_CHECK(ctx->vops->sync(ctx)); /* the gather must be done before the copy */
    NG_CHECK(ctx->vops->download_raw(ctx, h->send_host, h->send_buf, (size_t)h->n_send * sizeof(double)));
  }
  return NG_SUCCESS;
}

static ng_status host_start(struct ng_halo_plan *h)
{
  host_state *s = h->tdata;
  MPI_Comm comm = h->ctx->comm->comm;
  for (int q = 0; q < h->n_recv_nb; q++)
    NG_MPI_CHECK(MPI_Irecv(h->recv_host + h->recv_offset[q], h->recv_offset[q + 1] - h->recv_offset[q], MPI_DOUBLE,
                           h->recv_rank[q], NG_TAG_HALO, comm, &s->req[q]));
  for (int q = 0; q < h->n_send_nb; q++)
    NG_MPI_CHECK(MPI_Isend(h->send_host + h->send_offset[q], h->send_offset[q + 1] - h->send_offset[q], MPI_DOUBLE,
                           h->send_rank[q], NG_TAG_HALO, comm, &s->req[h->n_recv_nb + q]));
  return NG_SUCCESS;
}

static ng_status host_finish(struct ng_halo_plan *h, double *halo_values)
{
  host_state *s = h->tdata;
  ng_context ctx = h->ctx;
  int rc = MPI_Waitall(s->nreq, s->req, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return NG_ERROR(NG_ERR_MPI, "halo exchange: MPI_Waitall over %d neighbours failed: %s", s->nreq, msg);
  }
  if (h->recv_host != halo_values && h->n_recv > 0)
    NG_CHECK(ctx->vops->upload_raw(ctx, halo_values, h->recv_host, (size_t)h->n_recv * sizeof(double)));
  return NG_SUCCESS;
}

static void host_destroy(struct ng_halo_plan *h)
{
  host_state *s = h->tdata;
  if (!s) return;
  if (h->ctx->on_gpu) {
    ng_free(h->send_host);
    ng_free(h->recv_host);
  }
  h->send_host = h->recv_host = NULL;
  ng_free(s->req);
  ng_free(s);
  h->tdata = NULL;
}
#else
static ng_status host_setup(struct ng_halo_plan *h, double *halo_values)
{
  return NG_ERROR(NG_ERR_UNSUPPORTED, "halo exchange needs a build with MPI");
}
static ng_status host_pack(struct ng_halo_plan *h, const double *x) { return NG_ERROR(NG_ERR_INTERNAL, "no MPI"); }
static ng_status host_start(struct ng_halo_plan *h) { return NG_ERROR(NG_ERR_INTERNAL, "no MPI"); }
static ng_status host_finish(struct ng_halo_plan *h, double *v) { return NG_ERROR(NG_ERR_INTERNAL, "no MPI"); }
static void host_destroy(struct ng_halo_plan *h) {}
#endif

const ng_transport_ops ng_transport_host = {
  .name = "host",
  .setup = host_setup,
  .pack = host_pack,
  .start = host_start,
  .finish = host_finish,
  .destroy = host_destroy,
};
