/* comm/halo_reverse.c: restriction's reverse halo exchange. A distributed
 * P reads coarse values owned by other ranks through its halo plan h; R = P^T
 * must send back, for each of those entries, this rank's contribution, to be
 * added at the owner. That is h with its roles swapped: the reverse plan
 * sends h's receive blocks (packed in order: its SEND table is the identity)
 * and receives h's send blocks, which the owner adds into its rows through
 * h's SEND table, one neighbour at a time so that the sum's order is fixed.
 * Being an ordinary plan, it moves through the same transports. */
#include "transport.h"

#ifdef NG_HAVE_MPI
static ng_status dup_ints(int **dst, const int *src, int n)
{
  NG_CHECK(NG_MALLOC(*dst, n));
  if (n) memcpy(*dst, src, (size_t)n * sizeof(int));
  return NG_SUCCESS;
}
static ng_status dup_i32(int32_t **dst, const int32_t *src, int n)
{
  NG_CHECK(NG_MALLOC(*dst, n));
  if (n) memcpy(*dst, src, (size_t)n * sizeof(int32_t));
  return NG_SUCCESS;
}

/* The swapped lists and buffers (local: no communication). */
static ng_status reverse_fill(struct ng_halo_plan *h, struct ng_halo_plan *r)
{
  ng_context ctx = h->ctx;
  r->n_send_nb = h->n_recv_nb;
  r->n_recv_nb = h->n_send_nb;
  r->n_send = h->n_recv;
  r->n_recv = h->n_send;
  r->n_neighbors = h->n_neighbors;
  NG_CHECK(dup_ints(&r->send_rank, h->recv_rank, h->n_recv_nb));
  NG_CHECK(dup_ints(&r->recv_rank, h->send_rank, h->n_send_nb));
  NG_CHECK(dup_i32(&r->send_offset, h->recv_offset, h->n_recv_nb + 1));
  NG_CHECK(dup_i32(&r->recv_offset, h->send_offset, h->n_send_nb + 1));
  NG_CHECK(ng_halo_identity(ctx, r->n_send, &r->send_idx_host, &r->send_idx));
  r->idx_shared = 1;
  NG_CHECK(ctx->vops->alloc(ctx, &r->send_buf, r->n_send));
  NG_CHECK(ctx->vops->alloc(ctx, &r->recv_values, r->n_recv));
  NG_CHECK(ng_halo_host_scratch(r));
  return NG_SUCCESS;
}

/* Collective (the transports' setup is): a rank without a forward plan
 * takes part with an empty one, dropped afterwards. st (the caller's status
 * so far) is agreed with the plan's buffers. */
ng_status ng_halo_reverse_create(ng_context ctx, ng_status st, struct ng_halo_plan *h, struct ng_halo_plan **rev)
{
  *rev = NULL;
  struct ng_halo_plan *r = NULL;
  if (!st) st = NG_CALLOC(r, 1);
  if (!st) {
    r->ctx = ctx;
    if (h) st = reverse_fill(h, r);
    else { /* no neighbours: empty lists, as the forward plans have */
      st = NG_CALLOC(r->send_offset, 1);
      if (!st) st = NG_CALLOC(r->recv_offset, 1);
      if (!st) st = NG_MALLOC(r->send_rank, 0);
      if (!st) st = NG_MALLOC(r->recv_rank, 0);
    }
  }
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_halo_plan_attach_transport(r, r->recv_values); /* agreed in there, on every path */
  if (st || r->n_neighbors == 0) {
    ng_halo_reverse_destroy(r);
    return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
  }
  *rev = r;
  return NG_SUCCESS;
}

ng_status ng_halo_reverse_begin(struct ng_halo_plan *rev, const double *contrib)
{
  double t = ng_wtime();
  NG_CHECK(rev->transport->pack(rev, contrib));
  NG_CHECK(rev->transport->start(rev));
  rev->comm_seconds += ng_wtime() - t;
  return NG_SUCCESS;
}

ng_status ng_halo_reverse_end(struct ng_halo_plan *rev, const struct ng_halo_plan *h, double *y)
{
  ng_context ctx = rev->ctx;
  double t = ng_wtime();
  NG_CHECK(rev->transport->finish(rev, rev->recv_values));
  /* one neighbour at a time: a row read by several neighbours gets their
   * contributions in rank order */
  for (int q = 0; q < h->n_send_nb; q++) {
    int32_t o = h->send_offset[q], c = h->send_offset[q + 1] - o;
    if (c) NG_CHECK(ctx->vops->scatter_add(ctx, c, h->send_idx + o, rev->recv_values + o, y));
  }
  rev->comm_seconds += ng_wtime() - t;
  rev->exchanges++;
  return NG_SUCCESS;
}

void ng_halo_reverse_destroy(struct ng_halo_plan *rev)
{
  if (!rev) return;
  if (rev->recv_values) rev->ctx->vops->free(rev->ctx, rev->recv_values);
  rev->recv_values = NULL;
  ng_halo_plan_destroy(rev);
}
#else
ng_status ng_halo_reverse_create(ng_context ctx, ng_status st, struct ng_halo_plan *h, struct ng_halo_plan **rev)
{
  *rev = NULL;
  if (st) return st;
  return h ? NG_ERROR(NG_ERR_UNSUPPORTED, "reverse halo exchange needs MPI") : NG_SUCCESS;
}
ng_status ng_halo_reverse_begin(struct ng_halo_plan *rev, const double *contrib)
{
  return NG_ERROR(NG_ERR_INTERNAL, "no halo plan without MPI");
}
ng_status ng_halo_reverse_end(struct ng_halo_plan *rev, const struct ng_halo_plan *h, double *y)
{
  return NG_ERROR(NG_ERR_INTERNAL, "no halo plan without MPI");
}
void ng_halo_reverse_destroy(struct ng_halo_plan *rev) { (void)rev; }
#endif
