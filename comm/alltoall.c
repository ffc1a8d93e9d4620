/* comm/alltoall.c: personalised all-to-all exchanges for setup code that
 * sends each rank a different amount (the AMG's aggregate sizes and the
 * Galerkin rows that belong to other ranks). Counts are in items of elem
 * bytes; with one rank (or no MPI) the exchange is a copy. */
#include "halo.h"
#include "comm_mpi.h"
#include <limits.h>

ng_status ng_comm_alltoall_counts(ng_context ctx, const int64_t *send_counts, int64_t *recv_counts)
{
  return ng_comm_alltoall_counts_n(ctx, send_counts, recv_counts, 1);
}

ng_status ng_comm_alltoall_counts_n(ng_context ctx, const int64_t *send_counts, int64_t *recv_counts, int n)
{
#ifdef NG_HAVE_MPI
  if (ctx->size > 1) {
    NG_MPI_CHECK(MPI_Alltoall(send_counts, n, MPI_INT64_T, recv_counts, n, MPI_INT64_T, ctx->comm->comm));
    return NG_SUCCESS;
  }
#endif
  for (int k = 0; k < n; k++) recv_counts[k] = send_counts[k];
  return NG_SUCCESS;
}

ng_status ng_comm_alltoallv(ng_context ctx, ng_status st, const void *sbuf, const int64_t *send_counts, void *rbuf,
                            const int64_t *recv_counts, size_t elem)
{
  if (ctx->size == 1 && st) return st;
#ifdef NG_HAVE_MPI
  if (ctx->size > 1) {
    int size = ctx->size, *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
    /* one agreement covers every verdict that can differ between ranks:
     * the caller's st, the count arrays' allocation and counts past MPI's int */
    int64_t so = 0, ro = 0, bad = 0;
    for (int r = 0; !st && r < size; r++) { /* a failed caller's counts may not exist */
      int64_t s = send_counts[r] * (int64_t)elem, q = recv_counts[r] * (int64_t)elem;
      bad |= s > INT_MAX || q > INT_MAX || so > INT_MAX || ro > INT_MAX;
      so += s;
      ro += q;
    }
    if (!st) st = NG_MALLOC(sc, 4 * (size_t)size);
    if (!st && bad) st = NG_ERROR(NG_ERR_UNSUPPORTED, "an all-to-all exchange exceeds MPI's int byte counts");
    st = ng_comm_agree(ctx, st); /* all or none go on */
    if (st) {
      ng_free(sc);
      return ng_error_trace(st, __FILE__, __LINE__);
    }
    sd = sc + size;
    rc = sd + size;
    rd = rc + size;
    so = ro = 0;
    for (int r = 0; r < size; r++) {
      int64_t s = send_counts[r] * (int64_t)elem, q = recv_counts[r] * (int64_t)elem;
      sc[r] = (int)s; sd[r] = (int)so; rc[r] = (int)q; rd[r] = (int)ro;
      so += s;
      ro += q;
    }
    int rcode = MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, ctx->comm->comm);
    ng_free(sc);
    if (rcode != MPI_SUCCESS) return NG_ERROR(NG_ERR_MPI, "MPI_Alltoallv of setup data failed (MPI error %d)", rcode);
    return NG_SUCCESS;
  }
#endif
  if (send_counts[0]) memcpy(rbuf, sbuf, (size_t)send_counts[0] * elem);
  (void)recv_counts;
  return NG_SUCCESS;
}
