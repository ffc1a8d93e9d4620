/* comm/halo.h: the halo plan behind a distributed matrix and the helpers
 * that keep collective setup safe (every rank agrees on failure).
 * Receive side: halo column k of A (sorted by global index, hence by owner
 * rank, because ranks own ascending contiguous row ranges) lands in
 * A->halo_values[k]; neighbour q's values fill [recv_offset[q], recv_offset[q+1]).
 * Send side: entry k of the packed buffer is x[send_idx[k]] (own local rows),
 * neighbour q's block is [send_offset[q], send_offset[q+1]). */
#ifndef NG_HALO_H
#define NG_HALO_H
#include "comm.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ng_transport_ops;

struct ng_halo_plan {
  ng_context ctx;
  int n_send_nb, n_recv_nb;       /* neighbours we send to / receive from */
  int *send_rank, *recv_rank;     /* their ranks, ascending */
  int32_t *send_offset, *recv_offset; /* n_nb + 1 offsets into the packed buffers */
  int32_t n_send, n_recv;         /* entries sent / received (n_recv == A->n_halo) */
  int32_t *send_idx_host;         /* SEND table: local row of each packed entry (host) */
  int32_t *send_idx;              /* same table in context memory (used by gather) */
  int idx_shared;                 /* both tables are the context's identity table (ng_halo_identity): not freed here */
  double *send_buf;               /* packed values, context memory */
  double *send_host, *recv_host;  /* host staging for MPI (alias context memory on the host) */
  double *recv_values;            /* reverse plans only: where received contributions land */
  int n_neighbors;                /* distinct ranks in send and recv lists */
  const struct ng_transport_ops *transport;
  void *tdata;                    /* transport state (MPI requests) */
  double comm_seconds;            /* wall time in pack/start/finish, accumulated */
  long exchanges;
  /* ng_halo_exchange_host's buffers, made with the plan (whose creation
   * agrees): the byte offsets (n_send_nb + 1, n_recv_nb + 1), the requests
   * (n_send_nb + n_recv_nb + 1), then n_send items of up to
   * NG_HALO_HOST_ELEM bytes; an exchange then allocates nothing, so it needs
   * no agreement of its own (comm/halo_host.c) */
  void *xscratch;
};
#define NG_HALO_HOST_ELEM 8

/* Chooses the plan's transport and sets it up to receive into recv_buf
 * (context memory, n_recv entries). */
ng_status ng_halo_plan_attach_transport(struct ng_halo_plan *h, double *recv_buf);
/* A plan made by hand (h, its lists filled; st: the maker's status so far):
 * agreed, its transport attached, *out = h, or NULL and h destroyed where
 * this rank has no neighbours or any rank failed. Collective. */
ng_status ng_halo_plan_attach_or_drop(ng_context ctx, ng_status st, struct ng_halo_plan *h, double *recv_buf,
                                      struct ng_halo_plan **out);
/* The context's identity SEND table of at least n entries, host and
 * context memory (k -> k; comm/halo_identity.c), for a plan whose entries
 * are packed in send order; it sets idx_shared. Released with the context. */
ng_status ng_halo_identity(ng_context ctx, int32_t n, int32_t **host, int32_t **dev);
void ng_halo_identity_release(ng_context ctx);
/* The ipc transport's kept landing buffers and opened handles
 * (comm/transport_ipc_cache.c, NG_IPC_CACHE=1), released before the device. */
void ng_ipc_cache_release(ng_context ctx);
/* Any plan freed, transport included (NULL: nothing) (comm/halo_plan.c). */
void ng_halo_plan_destroy(struct ng_halo_plan *h);

/* Restriction's reverse exchange (comm/halo_reverse.c): a plan with the
 * roles of h swapped. Each rank sends, for every entry it reads through h
 * (h's receive layout), a contribution to that entry's owner; the owner
 * receives h->n_send values in h's send layout and adds them to its own
 * rows, neighbour by neighbour in rank order (deterministic). The reverse
 * plan uses the same transports as every forward plan. Collective: every
 * rank calls create (h NULL where this rank has no forward plan); *rev is
 * NULL where the reverse plan has no neighbours. st: the caller's status so
 * far, agreed with the plan's buffers (nothing made when any rank failed). */
ng_status ng_halo_reverse_create(ng_context ctx, ng_status st, struct ng_halo_plan *h, struct ng_halo_plan **rev);
/* contrib: h->n_recv values in context memory (kept until end). */
ng_status ng_halo_reverse_begin(struct ng_halo_plan *rev, const double *contrib);
/* y[row] += every contribution received for row (context memory). */
ng_status ng_halo_reverse_end(struct ng_halo_plan *rev, const struct ng_halo_plan *h, double *y);
void ng_halo_reverse_destroy(struct ng_halo_plan *rev);

/* A vector gathered onto rank 0 (comm/halo_gather.c): rank 0 receives
 * every other rank's rows (starts: the ranks' ranges, size + 1) in rank
 * order into recv_buf (context memory, starts[size] - starts[1] entries;
 * unused elsewhere); the others send all theirs. Its reverse plan
 * (ng_halo_reverse_create) sends them back. Collective; *g is NULL where no
 * rank has rows beside rank 0's. st: the caller's status, agreed. */
ng_status ng_halo_gather_create(ng_context ctx, ng_status st, const int64_t *starts, double *recv_buf,
                                struct ng_halo_plan **g);
/* One gather: x (this rank's rows, context memory) into rank 0's recv_buf. */
ng_status ng_halo_gather_run(struct ng_halo_plan *g, const double *x, double *recv_buf);

/* The entries of variable-length rows sent through h (comm/halo_rows_plan.c):
 * send_rowptr (h->n_send + 1) the offsets of the rows h sends, in its send
 * order, recv_rowptr (h->n_recv + 1) those of the rows h receives (from
 * ng_halo_rows_lengths); the plan sends x[0, send_rowptr[n_send]) (the
 * rows' entries packed in send order, context memory) and receives into
 * recv_buf (context memory, recv_rowptr[n_recv] entries). Collective (h
 * NULL where this rank has no neighbours); *out is NULL where it has none.
 * st: the caller's status, agreed. ng_halo_plan_run (comm/halo_plan.c):
 * one exchange of any plan, x packed through its SEND table. */
ng_status ng_halo_rows_plan_create(ng_context ctx, ng_status st, const struct ng_halo_plan *h,
                                   const int64_t *send_rowptr, const int64_t *recv_rowptr, double *recv_buf,
                                   struct ng_halo_plan **out);
ng_status ng_halo_plan_run(struct ng_halo_plan *e, const double *x, double *recv_buf);

/* Setup-time exchanges on the host (comm/halo_host.c), outside the
 * transports and the timers: items of elem bytes. Items of up to
 * NG_HALO_HOST_ELEM bytes go through the plan's own buffers: point to point
 * between neighbours only, no collective, nothing to allocate (the only
 * failures are MPI's own); larger items are collective over ctx (a rank
 * whose buffers cannot be allocated makes every rank fail, none waits for
 * its messages). rows_lengths and rows_exchange are collective over ctx
 * likewise. NULL h: no neighbours here. exchange: halo[k] = x[local row of halo entry k] of its owner.
 * rows_lengths / rows_exchange: variable-length rows (rowptr-indexed data of
 * the own rows): the halo rows' offsets (n_recv + 1), then their data. */
ng_status ng_halo_exchange_host(ng_context ctx, const struct ng_halo_plan *h, const void *x, void *halo, size_t elem);
/* h->xscratch for the lists of h (local; plan creation agrees on it). */
ng_status ng_halo_host_scratch(struct ng_halo_plan *h);
ng_status ng_halo_rows_lengths(ng_context ctx, const struct ng_halo_plan *h, const int64_t *rowptr,
                               int64_t *halo_rowptr);
ng_status ng_halo_rows_exchange(ng_context ctx, const struct ng_halo_plan *h, const int64_t *rowptr, const void *data,
                                size_t elem, const int64_t *halo_rowptr, void *halo_data);
/* Two such arrays (a, b: items of ea, eb bytes) in one round, their
 * buffers agreed together with the caller's st. */
ng_status ng_halo_rows_exchange2(ng_context ctx, ng_status st, const struct ng_halo_plan *h, const int64_t *rowptr,
                                 const void *a, size_t ea, const void *b, size_t eb, const int64_t *halo_rowptr,
                                 void *ha, void *hb);
/* The halo rows of a matrix-like row set in one call (global columns gc
 * and values val, rowptr-indexed): their offsets into hrp (the caller's,
 * h->n_recv + 1), their columns and values into *hgc and *hval, allocated
 * here (NULL until then; the caller frees them, also on failure). What the
 * distributed AMG fetches of its neighbours' P or A rows. Collective; st:
 * the caller's status so far, agreed first. */
ng_status ng_halo_rows_fetch(ng_context ctx, ng_status st, const struct ng_halo_plan *h, const int64_t *rowptr,
                             const int64_t *gc, const double *val, int64_t *hrp, int64_t **hgc, double **hval);

/* Collective personalised exchanges (comm/alltoall.c): counts per rank in
 * items of elem bytes; the receive side's counts from ng_comm_alltoall_counts. */
ng_status ng_comm_alltoall_counts(ng_context ctx, const int64_t *send_counts, int64_t *recv_counts);
/* n counts per rank (rank r's at [n r, n r + n)): several count exchanges in one. */
ng_status ng_comm_alltoall_counts_n(ng_context ctx, const int64_t *send_counts, int64_t *recv_counts, int n);
/* st: the caller's status so far, agreed in the exchange's one agreement
 * (nothing moves when any rank failed). */
ng_status ng_comm_alltoallv(ng_context ctx, ng_status st, const void *sbuf, const int64_t *send_counts, void *rbuf,
                            const int64_t *recv_counts, size_t elem);

/* ng_comm_agree: comm/comm.h */
/* ng_comm_agree that also takes the minimum over ranks of values[0..n)
 * (n <= NG_AGREE_MIN_MAX), in the same collective: an agreement folded
 * into a small reduction that the caller needs anyway. */
#define NG_AGREE_MIN_MAX 8
ng_status ng_comm_agree_min(ng_context ctx, ng_status st, int *values, int n);
/* Likewise with the SUM over ranks of values[0..n) (n <= NG_AGREE_MIN_MAX):
 * one MPI_Allreduce when no rank failed. */
ng_status ng_comm_agree_sum(ng_context ctx, ng_status st, double *values, int n);
/* Collective: agrees on st (the caller's status so far), then checks that
 * every rank gave the same n_global and that the ranges [row_begin,
 * row_end) tile 0..n_global in rank order, and the same of the columns;
 * *col_starts (size + 1, allocated here, NULL on failure) gets the column
 * ranges' starts. The same message on every rank when they do not. */
ng_status ng_comm_check_ranges(ng_context ctx, ng_status st, int64_t n_global, int64_t row_begin, int64_t row_end,
                               int64_t n_col_global, int64_t col_begin, int64_t col_end, int64_t **col_starts);
/* Collective: rank 0 holds the whole matrix W (ignored elsewhere) and its
 * row blocks starts (size+1, valid on every rank); each rank receives its
 * rows in CSR with global columns (allocated here; free with ng_free). */
ng_status ng_distribute_csr(ng_context ctx, const ng_csr *W, const int64_t *starts, int64_t **rowptr,
                            int64_t **gcol, double **val);
/* Collective: rank 0's array x (n_global long) scattered by starts into
 * mine (starts[rank+1]-starts[rank] entries). */
ng_status ng_distribute_values(ng_context ctx, const double *x, const int64_t *starts, double *mine);
/* Collective: rank 0's n values to every rank. */
ng_status ng_comm_bcast_int64(ng_context ctx, int64_t *v, int n);
/* Collective: row starts (size+1) from every rank's local length. */
ng_status ng_comm_starts(ng_context ctx, int32_t n_local, int64_t *starts);
/* Collective: every rank's block (by starts) gathered into x on rank 0. */
ng_status ng_gather_values(ng_context ctx, const double *mine, const int64_t *starts, double *x);
/* Collective: rank root's n values x to every rank. */
ng_status ng_comm_bcast_double(ng_context ctx, int root, double *x, int64_t n);
/* Collective: rank r's block of x (entries starts[r] .. starts[r+1], the
 * same starts on every rank) to every rank, in place. */
ng_status ng_comm_allgather_blocks(ng_context ctx, double *x, const int64_t *starts);
/* Collective: every rank's block mine (by starts) into x on rank root. */
ng_status ng_comm_gather_blocks(ng_context ctx, int root, const double *mine, const int64_t *starts, double *x);
/* Rank owning global index g under the ranges starts (size + 1 entries;
 * empty ranges skipped) (comm/partition.c). */
int ng_partition_owner(const int64_t *starts, int size, int64_t g);
/* Contiguous whole-plane slabs of an nx*ny*nz natural-order grid (starts:
 * size+1); ranks beyond nz planes own no rows. */
ng_status ng_partition_slabs(int64_t plane, int64_t nz, int size, int64_t *starts);
/* Grid dimensions of a generator spec ("fem27:48", "lap27:8x8x16"): 1 and
 * the dimensions when it is a grid problem, 0 otherwise (mps). */
int ng_partition_spec_grid(const char *spec, int64_t dims[3]);
#ifdef __cplusplus
}
#endif
#endif
