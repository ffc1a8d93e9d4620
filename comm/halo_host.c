/* comm/halo_host.c: setup-time exchanges over a halo plan, on the host and
 * straight through MPI (not the transports: these move index data of any
 * width once per setup, e.g. the AMG's aggregate numbers and the rows of P
 * that the Galerkin product reads from other ranks). Receive layout: halo
 * entry k comes from its owner's row send_idx of the matching SEND entry. */
#include "transport.h"
#include "comm_mpi.h"

#define NG_TAG_SETUP 7312

#ifdef NG_HAVE_MPI
/* Posts one message per neighbour: sends sbuf blocks (scount bytes offsets per
 * send neighbour) and receives rbuf blocks, then waits. req (n_send_nb +
 * n_recv_nb + 1 entries) is allocated by the caller with its buffers, before
 * their agreement: a rank must not fail here alone, after the others posted
 * their messages. */
static ng_status exchange_arrays(const struct ng_halo_plan *h, int na, const char *const *sbuf,
                                 const int64_t *const *soff, char *const *rbuf, const int64_t *const *roff,
                                 MPI_Request *req)
{
  MPI_Comm comm = h->ctx->comm->comm;
  int n = 0, rc = MPI_SUCCESS;
  for (int a = 0; a < na; a++) /* array a's messages carry tag NG_TAG_SETUP + a */
    for (int q = 0; q < h->n_recv_nb && rc == MPI_SUCCESS; q++) {
      int64_t c = roff[a][q + 1] - roff[a][q];
      if (c > INT32_MAX) rc = MPI_ERR_COUNT;
      else rc = MPI_Irecv(rbuf[a] + roff[a][q], (int)c, MPI_BYTE, h->recv_rank[q], NG_TAG_SETUP + a, comm, &req[n++]);
    }
  for (int a = 0; a < na; a++)
    for (int q = 0; q < h->n_send_nb && rc == MPI_SUCCESS; q++) {
      int64_t c = soff[a][q + 1] - soff[a][q];
      if (c > INT32_MAX) rc = MPI_ERR_COUNT;
      else rc = MPI_Isend(sbuf[a] + soff[a][q], (int)c, MPI_BYTE, h->send_rank[q], NG_TAG_SETUP + a, comm, &req[n++]);
    }
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) return NG_ERROR(NG_ERR_MPI, "setup exchange over a halo plan failed (MPI error %d)", rc);
  return NG_SUCCESS;
}
static ng_status exchange_bytes(const struct ng_halo_plan *h, const char *sbuf, const int64_t *soff, char *rbuf,
                                const int64_t *roff, MPI_Request *req)
{
  return exchange_arrays(h, 1, &sbuf, &soff, &rbuf, &roff, req);
}

/* The scratch's parts (layout in halo.h): offsets, requests, items. */
static int64_t *scratch_soff(const struct ng_halo_plan *h) { return (int64_t *)h->xscratch; }
static int64_t *scratch_roff(const struct ng_halo_plan *h) { return scratch_soff(h) + h->n_send_nb + 1; }
static MPI_Request *scratch_req(const struct ng_halo_plan *h)
{
  return (MPI_Request *)(scratch_roff(h) + h->n_recv_nb + 1);
}
static char *scratch_items(const struct ng_halo_plan *h)
{
  return (char *)(scratch_req(h) + h->n_send_nb + h->n_recv_nb + 1);
}

ng_status ng_halo_host_scratch(struct ng_halo_plan *h)
{
  size_t bytes = (size_t)(h->n_send_nb + h->n_recv_nb + 2) * sizeof(int64_t) +
                 (size_t)(h->n_send_nb + h->n_recv_nb + 1) * sizeof(MPI_Request) +
                 (size_t)h->n_send * NG_HALO_HOST_ELEM;
  NG_CHECK(NG_MALLOC(h->xscratch, bytes)); /* char-sized items: bytes */
  return NG_SUCCESS;
}

/* Sends the items packed in h's scratch (elem bytes each) and receives the
 * halo's: point to point with the neighbours only. */
static ng_status exchange_packed(const struct ng_halo_plan *h, void *halo, size_t elem)
{
  int64_t *soff = scratch_soff(h), *roff = scratch_roff(h);
  for (int q = 0; q <= h->n_send_nb; q++) soff[q] = (int64_t)h->send_offset[q] * (int64_t)elem;
  for (int q = 0; q <= h->n_recv_nb; q++) roff[q] = (int64_t)h->recv_offset[q] * (int64_t)elem;
  return exchange_bytes(h, scratch_items(h), soff, halo, roff, scratch_req(h));
}

/* Items of up to NG_HALO_HOST_ELEM bytes through the plan's scratch: no
 * allocation, so no agreement (a rank cannot fail here alone before its
 * neighbours post their messages; an MPI error is reported where it
 * happens, as before). Larger items: buffers of their own, agreed. */
ng_status ng_halo_exchange_host(ng_context ctx, const struct ng_halo_plan *h, const void *x, void *halo, size_t elem)
{
  char *sbuf = NULL;
  int64_t *soff = NULL, *roff = NULL;
  MPI_Request *req = NULL;
  ng_status st = NG_SUCCESS;
  if (elem <= NG_HALO_HOST_ELEM) { /* the same branch on every rank: elem is the caller's */
    if (!h) return NG_SUCCESS;
    if (!h->xscratch) return NG_ERROR(NG_ERR_INTERNAL, "setup exchange over a plan without its buffers");
    char *items = scratch_items(h);
    if (elem == 8) /* every caller's width: a constant-size copy is a load and a store, not a libc call */
      for (int32_t k = 0; k < h->n_send; k++)
        memcpy(items + (size_t)k * 8, (const char *)x + (size_t)h->send_idx_host[k] * 8, 8);
    else
      for (int32_t k = 0; k < h->n_send; k++)
        memcpy(items + (size_t)k * elem, (const char *)x + (size_t)h->send_idx_host[k] * elem, elem);
    NG_CHECK(exchange_packed(h, halo, elem));
    return NG_SUCCESS;
  }
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

/* The lengths go packed in the plan's scratch (int64_t items): no
 * allocation, no collective. */
ng_status ng_halo_rows_lengths(ng_context ctx, const struct ng_halo_plan *h, const int64_t *rowptr,
                               int64_t *halo_rowptr)
{
  (void)ctx;
  halo_rowptr[0] = 0;
  if (!h) return NG_SUCCESS;
  if (!h->xscratch) return NG_ERROR(NG_ERR_INTERNAL, "setup exchange over a plan without its buffers");
  int64_t *len = (int64_t *)scratch_items(h);
  for (int32_t k = 0; k < h->n_send; k++) len[k] = rowptr[h->send_idx_host[k] + 1] - rowptr[h->send_idx_host[k]];
  NG_CHECK(exchange_packed(h, halo_rowptr + 1, sizeof(int64_t)));
  for (int32_t k = 0; k < h->n_recv; k++) halo_rowptr[k + 1] += halo_rowptr[k];
  return NG_SUCCESS;
}

/* na arrays of rowptr-indexed data in one round (a message per array and
 * neighbour), their buffers agreed together with the caller's st. */
static ng_status rows_exchange_n(ng_context ctx, ng_status st, const struct ng_halo_plan *h, const int64_t *rowptr,
                                 int na, const void *const *data, const size_t *elem, const int64_t *halo_rowptr,
                                 void *const *halo_data)
{
  char *sbuf[2] = {NULL, NULL};
  int64_t *soff[2] = {NULL, NULL}, *roff[2] = {NULL, NULL}, total = 0;
  MPI_Request *req = NULL;
  for (int32_t k = 0; h && k < h->n_send; k++) total += rowptr[h->send_idx_host[k] + 1] - rowptr[h->send_idx_host[k]];
  for (int a = 0; h && a < na; a++) {
    if (!st) st = NG_MALLOC(sbuf[a], (size_t)total * elem[a]);
    if (!st) st = NG_MALLOC(soff[a], h->n_send_nb + 1);
    if (!st) st = NG_MALLOC(roff[a], h->n_recv_nb + 1);
  }
  if (h && !st) st = NG_MALLOC(req, na * (h->n_send_nb + h->n_recv_nb) + 1);
  st = ng_comm_agree(ctx, st);
  if (h && !st) {
    for (int a = 0; a < na; a++) {
      int64_t pos = 0;
      soff[a][0] = 0;
      for (int q = 0; q < h->n_send_nb; q++) {
        for (int32_t k = h->send_offset[q]; k < h->send_offset[q + 1]; k++) {
          int32_t i = h->send_idx_host[k];
          size_t c = (size_t)(rowptr[i + 1] - rowptr[i]) * elem[a];
          memcpy(sbuf[a] + pos, (const char *)data[a] + (size_t)rowptr[i] * elem[a], c);
          pos += (int64_t)c;
        }
        soff[a][q + 1] = pos;
      }
      for (int q = 0; q <= h->n_recv_nb; q++) roff[a][q] = halo_rowptr[h->recv_offset[q]] * (int64_t)elem[a];
    }
    st = exchange_arrays(h, na, (const char *const *)sbuf, (const int64_t *const *)soff, (char *const *)halo_data,
                         (const int64_t *const *)roff, req);
  }
  ng_free(req);
  for (int a = 0; a < 2; a++) {
    ng_free(sbuf[a]);
    ng_free(soff[a]);
    ng_free(roff[a]);
  }
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

ng_status ng_halo_rows_exchange(ng_context ctx, const struct ng_halo_plan *h, const int64_t *rowptr, const void *data,
                                size_t elem, const int64_t *halo_rowptr, void *halo_data)
{
  return rows_exchange_n(ctx, NG_SUCCESS, h, rowptr, 1, &data, &elem, halo_rowptr, &halo_data);
}

ng_status ng_halo_rows_exchange2(ng_context ctx, ng_status st, const struct ng_halo_plan *h, const int64_t *rowptr,
                                 const void *a, size_t ea, const void *b, size_t eb, const int64_t *halo_rowptr,
                                 void *ha, void *hb)
{
  const void *data[2] = {a, b};
  size_t elem[2] = {ea, eb};
  void *out[2] = {ha, hb};
  return rows_exchange_n(ctx, st, h, rowptr, 2, data, elem, halo_rowptr, out);
}
#else
ng_status ng_halo_exchange_host(ng_context ctx, const struct ng_halo_plan *h, const void *x, void *halo, size_t elem)
{
  return h ? NG_ERROR(NG_ERR_INTERNAL, "no halo plan without MPI") : NG_SUCCESS;
}
ng_status ng_halo_host_scratch(struct ng_halo_plan *h) { (void)h; return NG_SUCCESS; }
ng_status ng_halo_rows_exchange2(ng_context ctx, ng_status st, const struct ng_halo_plan *h, const int64_t *rowptr,
                                 const void *a, size_t ea, const void *b, size_t eb, const int64_t *halo_rowptr,
                                 void *ha, void *hb)
{
  if (st) return st;
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

ng_status ng_halo_rows_fetch(ng_context ctx, ng_status st, const struct ng_halo_plan *h, const int64_t *rowptr,
                             const int64_t *gc, const double *val, int64_t *hrp, int64_t **hgc, double **hval)
{
  *hgc = NULL;
  *hval = NULL;
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_halo_rows_lengths(ctx, h, rowptr, hrp);
  int64_t hn = !st && h ? hrp[h->n_recv] : 0;
  if (!st) st = NG_MALLOC(*hgc, hn ? hn : 1);
  if (!st) st = NG_MALLOC(*hval, hn ? hn : 1);
  /* a rank that failed passes no plan (its arrays may be missing): the
   * exchange agrees st first and then moves nothing anywhere */
  return ng_halo_rows_exchange2(ctx, st, st ? NULL : h, rowptr, gc, sizeof(int64_t), val, sizeof(double), hrp, *hgc,
                                *hval);
}
