/* comm/halo_plan.c: a halo plan's own calls, whoever built it (a matrix's
 * plan, dist/matrix_halo.c; a reverse plan, comm/halo_reverse.c): its
 * transport attached, the plan destroyed. */
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

void ng_halo_plan_destroy(struct ng_halo_plan *h)
{
  if (!h) return;
  ng_context ctx = h->ctx;
  if (h->transport) h->transport->destroy(h);
  if (h->send_idx) ctx->vops->free_raw(ctx, h->send_idx);
  if (h->send_buf) ctx->vops->free(ctx, h->send_buf);
  ng_free(h->send_rank);
  ng_free(h->recv_rank);
  ng_free(h->send_offset);
  ng_free(h->recv_offset);
  ng_free(h->send_idx_host);
  ng_free(h->xscratch);
  ng_free(h);
}
#else
void ng_halo_plan_destroy(struct ng_halo_plan *h) { (void)h; }
#endif
