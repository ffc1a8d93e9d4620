/* comm/halo_gather.c: a distributed vector gathered onto rank 0 and sent
 * back, as an ordinary halo plan (so it moves device to device through the
 * transports: ipc, cuda_mpi or host). Ranks own contiguous row ranges in
 * rank order, so the plan is known without asking anyone: rank 0 receives
 * every other rank's rows, in rank order, right after its own; each other
 * rank sends all its rows (an identity SEND table). Its reverse plan
 * (comm/halo_reverse.c) sends rank 0's copy back. Used by the AMG's coarse
 * levels gathered onto one rank (amg/amg_dist_telescope.c), where two
 * identity matrices and their general plans cost 100 ms of setup. */
#include "transport.h"

#ifdef NG_HAVE_MPI
/* The lists of this rank (local: no communication). */
static ng_status gather_fill(ng_context ctx, const int64_t *starts, struct ng_halo_plan *h)
{
  int size = ctx->size, rank = ctx->rank;
  int32_t mine = (int32_t)(starts[rank + 1] - starts[rank]);
  int nrecv = 0;
  for (int r = 1; rank == 0 && r < size; r++) nrecv += starts[r + 1] > starts[r];
  h->n_recv_nb = nrecv;
  h->n_send_nb = rank > 0 && mine > 0;
  NG_CHECK(NG_MALLOC(h->recv_rank, nrecv));
  NG_CHECK(NG_MALLOC(h->recv_offset, nrecv + 1));
  NG_CHECK(NG_MALLOC(h->send_rank, h->n_send_nb));
  NG_CHECK(NG_MALLOC(h->send_offset, h->n_send_nb + 1));
  h->recv_offset[0] = h->send_offset[0] = 0;
  for (int r = 1, q = 0; rank == 0 && r < size; r++)
    if (starts[r + 1] > starts[r]) {
      if (starts[r + 1] - starts[1] > INT32_MAX)
        return NG_ERROR(NG_ERR_UNSUPPORTED, "gathering %lld rows onto rank 0 exceeds int32",
                        (long long)(starts[size] - starts[1]));
      h->recv_rank[q] = r;
      h->recv_offset[++q] = (int32_t)(starts[r + 1] - starts[1]);
    }
  h->n_recv = h->recv_offset[nrecv];
  if (h->n_send_nb) {
    h->send_rank[0] = 0;
    h->send_offset[1] = mine;
  }
  h->n_send = h->n_send_nb ? mine : 0;
  h->n_neighbors = h->n_recv_nb + h->n_send_nb;
  NG_CHECK(ng_halo_identity(ctx, h->n_send, &h->send_idx_host, &h->send_idx));
  h->idx_shared = 1;
  NG_CHECK(ctx->vops->alloc(ctx, &h->send_buf, h->n_send));
  NG_CHECK(ng_halo_host_scratch(h));
  return NG_SUCCESS;
}

ng_status ng_halo_gather_create(ng_context ctx, ng_status st, const int64_t *starts, double *recv_buf,
                                struct ng_halo_plan **g)
{
  *g = NULL;
  struct ng_halo_plan *h = NULL;
  if (!st) st = NG_CALLOC(h, 1);
  if (!st) {
    h->ctx = ctx;
    st = gather_fill(ctx, starts, h);
  }
  NG_CHECK(ng_halo_plan_attach_or_drop(ctx, st, h, recv_buf, g));
  return NG_SUCCESS;
}

ng_status ng_halo_gather_run(struct ng_halo_plan *g, const double *x, double *recv_buf)
{
  NG_CHECK(ng_halo_plan_run(g, x, recv_buf));
  return NG_SUCCESS;
}
#else
ng_status ng_halo_gather_create(ng_context ctx, ng_status st, const int64_t *starts, double *recv_buf,
                                struct ng_halo_plan **g)
{
  (void)ctx;
  (void)starts;
  (void)recv_buf;
  *g = NULL;
  return st;
}
ng_status ng_halo_gather_run(struct ng_halo_plan *g, const double *x, double *recv_buf)
{
  (void)g;
  (void)x;
  (void)recv_buf;
  return NG_ERROR(NG_ERR_INTERNAL, "no halo plan without MPI");
}
#endif
