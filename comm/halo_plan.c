/* comm/halo_plan.c: a halo plan's own calls, whoever built it (a matrix's
 * plan, dist/matrix_halo.c; a reverse plan, comm/halo_reverse.c; a gather
 * or rows plan, comm/halo_gather.c, comm/halo_rows_plan.c): its transport
 * attached, one exchange run, the plan destroyed. */
#include "transport.h"
#include "trace.h"

#ifdef NG_HAVE_MPI
ng_status ng_halo_plan_attach_transport(struct ng_halo_plan *h, double *recv_buf)
{
  double t = ng_trace_t0();
  ng_status st = ng_transport_select_and_setup(h, recv_buf);
  ng_trace_span(NG_TR_TRANSPORT, t);
  NG_CHECK(st);
  return NG_SUCCESS;
}

ng_status ng_halo_plan_attach_or_drop(ng_context ctx, ng_status st, struct ng_halo_plan *h, double *recv_buf,
                                      struct ng_halo_plan **out)
{
  *out = NULL;
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_halo_plan_attach_transport(h, recv_buf); /* agreed in there */
  if (st || h->n_neighbors == 0) {
    ng_halo_plan_destroy(h);
    return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
  }
  *out = h;
  return NG_SUCCESS;
}

ng_status ng_halo_plan_run(struct ng_halo_plan *h, const double *x, double *recv_buf)
{
  double t = ng_wtime();
  NG_CHECK(h->transport->pack(h, x));
  NG_CHECK(h->transport->start(h));
  NG_CHECK(h->transport->finish(h, recv_buf));
  h->comm_seconds += ng_wtime() - t;
  h->exchanges++;
  return NG_SUCCESS;
}

void ng_halo_plan_destroy(struct ng_halo_plan *h)
{
  if (!h) return;
  ng_context ctx = h->ctx;
  if (h->transport) h->transport->destroy(h);
  if (h->send_idx && !h->idx_shared) ctx->vops->free_raw(ctx, h->send_idx);
  if (h->send_buf) ctx->vops->free(ctx, h->send_buf);
  ng_free(h->send_rank);
  ng_free(h->recv_rank);
  ng_free(h->send_offset);
  ng_free(h->recv_offset);
  if (!h->idx_shared) ng_free(h->send_idx_host);
  ng_free(h->xscratch);
  ng_free(h);
}
#else
void ng_halo_plan_destroy(struct ng_halo_plan *h) { (void)h; }
ng_status ng_halo_plan_run(struct ng_halo_plan *h, const double *x, double *recv_buf)
{
  (void)h;
  (void)x;
  (void)recv_buf;
  return NG_ERROR(NG_ERR_INTERNAL, "no halo plan without MPI");
}
#endif
