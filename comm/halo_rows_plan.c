/* comm/halo_rows_plan.c: a plan over the entries of variable-length rows
 * that a halo plan sends (a prolongator's rows, say): neighbour q receives
 * the entries of the rows h sends it, in h's send order, so the plan is h's
 * with every row widened to its entries. As an ordinary halo plan it moves
 * doubles device to device through the transports (ipc, cuda_mpi, host);
 * integers below 2^53 (global column numbers) travel exactly as doubles.
 * Used by the uncoupled AMG level's off-rank block on GPUs
 * (amg/amg_dist_offrank_cuda.cu): P's halo rows, built once at the setup,
 * sent again with new values at every update. */
#include "transport.h"

#ifdef NG_HAVE_MPI
/* The lists of this rank from h and the rows' entry offsets (local). */
static ng_status rows_fill(ng_context ctx, const struct ng_halo_plan *h, const int64_t *send_rowptr,
                           const int64_t *recv_rowptr, struct ng_halo_plan *e)
{
  int ns = h ? h->n_send_nb : 0, nr = h ? h->n_recv_nb : 0;
  int64_t sn = h ? send_rowptr[h->n_send] : 0, rn = h ? recv_rowptr[h->n_recv] : 0;
  if (sn > INT32_MAX || rn > INT32_MAX)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "a halo plan over %lld / %lld row entries exceeds int32", (long long)sn,
                    (long long)rn);
  e->n_send_nb = ns;
  e->n_recv_nb = nr;
  e->n_neighbors = h ? h->n_neighbors : 0;
  NG_CHECK(NG_MALLOC(e->send_rank, ns ? ns : 1));
  NG_CHECK(NG_MALLOC(e->recv_rank, nr ? nr : 1));
  NG_CHECK(NG_MALLOC(e->send_offset, ns + 1));
  NG_CHECK(NG_MALLOC(e->recv_offset, nr + 1));
  e->send_offset[0] = e->recv_offset[0] = 0;
  for (int q = 0; q < ns; q++) {
    e->send_rank[q] = h->send_rank[q];
    e->send_offset[q + 1] = (int32_t)send_rowptr[h->send_offset[q + 1]];
  }
  for (int q = 0; q < nr; q++) {
    e->recv_rank[q] = h->recv_rank[q];
    e->recv_offset[q + 1] = (int32_t)recv_rowptr[h->recv_offset[q + 1]];
  }
  e->n_send = (int32_t)sn;
  e->n_recv = (int32_t)rn;
  /* the entries are packed by the caller in send order: an identity SEND table */
  NG_CHECK(ng_halo_identity(ctx, e->n_send, &e->send_idx_host, &e->send_idx));
  e->idx_shared = 1;
  NG_CHECK(ctx->vops->alloc(ctx, &e->send_buf, e->n_send ? e->n_send : 1));
  NG_CHECK(ng_halo_host_scratch(e));
  return NG_SUCCESS;
}

ng_status ng_halo_rows_plan_create(ng_context ctx, ng_status st, const struct ng_halo_plan *h,
                                   const int64_t *send_rowptr, const int64_t *recv_rowptr, double *recv_buf,
                                   struct ng_halo_plan **out)
{
  struct ng_halo_plan *e = NULL;
  *out = NULL;
  if (!st) st = NG_CALLOC(e, 1);
  if (!st) {
    e->ctx = ctx;
    st = rows_fill(ctx, h, send_rowptr, recv_rowptr, e);
  }
  NG_CHECK(ng_halo_plan_attach_or_drop(ctx, st, e, recv_buf, out));
  return NG_SUCCESS;
}
#else
ng_status ng_halo_rows_plan_create(ng_context ctx, ng_status st, const struct ng_halo_plan *h,
                                   const int64_t *send_rowptr, const int64_t *recv_rowptr, double *recv_buf,
                                   struct ng_halo_plan **out)
{
  (void)ctx;
  (void)h;
  (void)send_rowptr;
  (void)recv_rowptr;
  (void)recv_buf;
  *out = NULL;
  return st;
}
#endif
