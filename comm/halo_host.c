/* comm/halo_host.c: setup-time exchanges over a halo plan, on the host and
 * straight through MPI (not the transports: these move index data of any
 * width once per setup, e.g. the AMG's aggregate numbers and the rows of P
 * that the Galerkin product reads from other ranks). Receive layout: halo
 * entry k comes from its owner's row send_idx of the matching SEND entry. */
#include "transport.h"

#define NG_TAG_SETUP 7312

#ifdef NG_HAVE_MPI
/* Posts one message per neighbour: sends sbuf blocks (scount bytes offsets per
 * send neighbour) and receives rbuf blocks, then waits. req (n_send_nb +
 * n_recv_nb + 1 entries) is allocated by the caller with its buffers, before
 * their agreement: a rank must not fail here alone, after the others posted
 * their messages. */
static ng_status exchange_bytes(const struct ng_halo_plan *h, const char *sbuf, const int64_t *soff, char *rbuf,
                                const int64_t *roff, MPI_Request *req)
{
  MPI_Comm comm = h->ctx->comm->comm;
  int n = 0, rc = MPI_SUCCESS;
  for (int q = 0; q < h->n_recv_nb && rc == MPI_SUCCESS; q++) {
    int64_t c = roff[q + 1] - roff[q];
    if (c > INT32_MAX) rc = MPI_ERR_COUNT;
    else rc = MPI_Irecv(rbuf + roff[q], (int)c, MPI_BYTE, h->recv_rank[q], NG_TAG_SETUP, comm, &req[n++]);
  }
  for (int q = 0; q < h->n_send_nb && rc == MPI_SUCCESS; q++) {
    int64_t c = soff[q + 1] - soff[q];
    if (c > INT32_MAX) rc = MPI_ERR_COUNT;
    else rc = MPI_Isend(sbuf + soff[q], (int)c, MPI_BYTE, h->send_rank[q], NG_TAG_SETUP, comm, &req[n++]);
  }
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) return NG_ERROR(NG_ERR_MPI, "setup exchange over a halo plan failed (MPI error %d)", rc);
  return NG_SUCCESS;
}

ng_status ng_halo_exchange_host(ng_context ctx, const struct ng_halo_plan *h, const void *x, void *halo, size_t elem)
{
  char *sbuf = NULL;
  int64_t *soff = NULL, *roff = NULL;
  MPI_Request *req = NULL;
  ng_status st = NG_SUCCESS;
  if (h) st = NG_MALLOC(sbuf, (size_t)h->n_send * elem);
  if (h && !st) st = NG_MALLOC(soff, h->n_send_nb + 1);
  if (h && !st) st = NG_MALLOC(roff, h->n_recv_nb + 1);
  if (h && !st) st = NG_MALLOC(req, h->n_send_nb + h->n_recv_nb + 1);
  st = ng_comm_agree(ctx, st);
  if (h && !st) {
    for (int32_t k = 0; k < h->n_send; k++)
      memcpy(sbuf + (size_t)k * elem, (const char *)x + (size_t)h->send_idx_host[k] * elem, elem);
    for (int q = 0; q <= h->n_send_nb; q++) soff[q] = (int64_t)h->send_offset[q] * (int64_t)elem;
    for (int q = 0; q <= h->n_recv_nb; q++) roff[q] = (int64_t)h->recv_offset[q] * (int64_t)elem;
    st = exchange_bytes(h, sbuf, soff, halo, roff, req);
  }
  ng_free(req);
  ng_free(sbuf);
  ng_free(soff);
  ng_free(roff);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

ng_status ng_halo_rows_lengths(ng_context ctx, const struct ng_halo_plan *h, const int64_t *rowptr,
                               int64_t *halo_rowptr)
{
  halo_rowptr[0] = 0;
  int64_t *len = NULL;
  int32_t n = 0;
  for (int32_t k = 0; h && k < h->n_send; k++)
    if (h->send_idx_host[k] + 1 > n) n = h->send_idx_host[k] + 1;
  ng_status st = NG_MALLOC(len, n);
  st = ng_comm_agree(ctx, st);
  if (!st) {
    for (int32_t i = 0; i < n; i++) len[i] = rowptr[i + 1] - rowptr[i];
    st = ng_halo_exchange_host(ctx, h, len, halo_rowptr + 1, sizeof(int64_t));
  }
  ng_free(len);
  NG_CHECK(st);
  for (int32_t k = 0; h && k < h->n_recv; k++) halo_rowptr[k + 1] += halo_rowptr[k];
  return NG_SUCCESS;
}

ng_status ng_halo_rows_exchange(ng_context ctx, const struct ng_halo_plan *h, const int64_t *rowptr, const void *data,
                                size_t elem, const int64_t *halo_rowptr, void *halo_data)
{
  char *sbuf = NULL;
  int64_t *soff = NULL, *roff = NULL, total = 0;
  MPI_Request *req = NULL;
  ng_status st = NG_SUCCESS;
  for (int32_t k = 0; h && k < h->n_send; k++) total += rowptr[h->send_idx_host[k] + 1] - rowptr[h->send_idx_host[k]];
  if (h) st = NG_MALLOC(sbuf, (size_t)total * elem);
  if (h && !st) st = NG_MALLOC(soff, h->n_send_nb + 1);
  if (h && !st) st = NG_MALLOC(roff, h->n_recv_nb + 1);
  if (h && !st) st = NG_MALLOC(req, h->n_send_nb + h->n_recv_nb + 1);
  st = ng_comm_agree(ctx, st);
  if (h && !st) {
    int64_t pos = 0;
    soff[0] = 0;
    for (int q = 0; q < h->n_send_nb; q++) {
      for (int32_t k = h->send_offset[q]; k < h->send_offset[q + 1]; k++) {
        int32_t i = h->send_idx_host[k];
        size_t c = (size_t)(rowptr[i + 1] - rowptr[i]) * elem;
        memcpy(sbuf + pos, (const char *)data + (size_t)rowptr[i] * elem, c);
        pos += (int64_t)c;
      }
      soff[q + 1] = pos;
    }
    for (int q = 0; q <= h->n_recv_nb; q++) roff[q] = halo_rowptr[h->recv_offset[q]] * (int64_t)elem;
    st = exchange_bytes(h, sbuf, soff, halo_data, roff, req);
  }
  ng_free(req);
  ng_free(sbuf);
  ng_free(soff);
  ng_free(roff);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}
#else
ng_status ng_halo_exchange_host(ng_context ctx, const struct ng_halo_plan *h, const void *x, void *halo, size_t elem)
{
  return h ? NG_ERROR(NG_ERR_INTERNAL, "no halo plan without MPI") : NG_SUCCESS;
}
ng_status ng_halo_rows_lengths(ng_context ctx, const struct ng_halo_plan *h, const int64_t *rowptr,
                               int64_t *halo_rowptr)
{
  halo_rowptr[0] = 0;
  return h ? NG_ERROR(NG_ERR_INTERNAL, "no halo plan without MPI") : NG_SUCCESS;
}
ng_status ng_halo_rows_exchange(ng_context ctx, const struct ng_halo_plan *h, const int64_t *rowptr, const void *data,
                                size_t elem, const int64_t *halo_rowptr, void *halo_data)
{
  return h ? NG_ERROR(NG_ERR_INTERNAL, "no halo plan without MPI") : NG_SUCCESS;
}
#endif
