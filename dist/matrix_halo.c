/* dist/matrix_halo.c: the halo plan of a distributed matrix, built once at setup.
 * Each rank knows the global columns it reads but does not own (A->halo_gcol,
 * sorted); owners follow from the ranks' contiguous row ranges. Counts go
 * round with one MPI_Alltoall, then each rank sends every owner the list of
 * global indices it needs (point to point), which becomes that owner's SEND
 * table in local numbering. An exchange then only packs, sends and receives:
 * no allocation, no index traffic. */
#include "dist.h"
#include "../comm/transport.h"
#include "../comm/comm_mpi.h"
#include "trace.h"

#define NG_TAG_PLAN 7310

#ifdef NG_HAVE_MPI
/* Local part of the plan: receive lists from A->halo_gcol. */
static ng_status plan_recv_side(ng_matrix A, struct ng_halo_plan *h, const int64_t *starts, int *recv_count)
{
  int size = A->ctx->size;
  for (int32_t k = 0; k < A->n_halo; k++) {
    int r = ng_partition_owner(starts, size, A->halo_gcol[k]);
    if (r == A->ctx->rank)
      return NG_ERROR(NG_ERR_INTERNAL, "halo column %lld is owned by this rank", (long long)A->halo_gcol[k]);
    recv_count[r]++;
  }
  for (int r = 0; r < size; r++) h->n_recv_nb += recv_count[r] > 0;
  NG_CHECK(NG_MALLOC(h->recv_rank, h->n_recv_nb));
  NG_CHECK(NG_MALLOC(h->recv_offset, h->n_recv_nb + 1));
  h->recv_offset[0] = 0;
  for (int r = 0, q = 0; r < size; r++)
    if (recv_count[r] > 0) {
      h->recv_rank[q] = r;
      h->recv_offset[q + 1] = h->recv_offset[q] + recv_count[r];
      q++;
    }
  h->n_recv = A->n_halo;
  return NG_SUCCESS;
}

static ng_status plan_send_side(ng_matrix A, struct ng_halo_plan *h, const int *send_count, int64_t **want)
{
  int size = A->ctx->size;
  int64_t total = 0;
  for (int r = 0; r < size; r++) {
    h->n_send_nb += send_count[r] > 0;
    total += send_count[r];
  }
  if (total > INT32_MAX) return NG_ERROR(NG_ERR_UNSUPPORTED, "halo of %lld entries exceeds int32", (long long)total);
  h->n_send = (int32_t)total;
  NG_CHECK(NG_MALLOC(h->send_rank, h->n_send_nb));
  NG_CHECK(NG_MALLOC(h->send_offset, h->n_send_nb + 1));
  NG_CHECK(NG_MALLOC(h->send_idx_host, h->n_send));
  NG_CHECK(NG_MALLOC(*want, h->n_send));
  h->send_offset[0] = 0;
  for (int r = 0, q = 0; r < size; r++)
    if (send_count[r] > 0) {
      h->send_rank[q] = r;
      h->send_offset[q + 1] = h->send_offset[q] + send_count[r];
      q++;
    }
  return NG_SUCCESS;
}

/* Requested global indices -> local rows (checked), copied to context
 * memory, plus the packed buffer, halo_values and the transport. */
static ng_status plan_local(ng_matrix A, struct ng_halo_plan *h, const int64_t *want);

/* The local part, agreed on by every rank, then the transport (collective). */
static ng_status plan_finish(ng_matrix A, struct ng_halo_plan *h, const int64_t *want)
{
  NG_CHECK(ng_comm_agree(A->ctx, plan_local(A, h, want)));
  NG_CHECK(ng_halo_plan_attach_transport(h, A->halo_values));
  return NG_SUCCESS;
}

static ng_status plan_local(ng_matrix A, struct ng_halo_plan *h, const int64_t *want)
{
  ng_context ctx = A->ctx;
  for (int32_t k = 0; k < h->n_send; k++) {
    int64_t l = want[k] - A->col_begin;
    if (l < 0 || l >= A->n_col_local)
      return NG_ERROR(NG_ERR_INTERNAL, "a neighbour asked for row %lld, not owned here", (long long)want[k]);
    h->send_idx_host[k] = (int32_t)l;
  }
  size_t bytes = (size_t)h->n_send * sizeof(int32_t);
  NG_CHECK(ctx->vops->alloc_raw(ctx, (void **)&h->send_idx, bytes, "halo SEND table"));
  NG_CHECK(ctx->vops->upload_raw(ctx, h->send_idx, h->send_idx_host, bytes));
  NG_CHECK(ctx->vops->alloc(ctx, &h->send_buf, h->n_send));
  if (!A->halo_values) NG_CHECK(ctx->vops->alloc(ctx, &A->halo_values, A->n_halo));
  NG_CHECK(ng_halo_host_scratch(h));
  /* distinct neighbours: merge of two ascending lists */
  int a = 0, b = 0;
  while (a < h->n_send_nb || b < h->n_recv_nb) {
    if (b == h->n_recv_nb || (a < h->n_send_nb && h->send_rank[a] < h->recv_rank[b])) a++;
    else if (a == h->n_send_nb || h->recv_rank[b] < h->send_rank[a]) b++;
    else { a++; b++; }
    h->n_neighbors++;
  }
  return NG_SUCCESS;
}

ng_status ng_halo_plan_create(ng_context ctx, ng_matrix A, const int64_t *starts, ng_status st)
{
  double t0 = ng_trace_t0();
  MPI_Comm comm = ctx->comm->comm;
  int size = ctx->size;
  struct ng_halo_plan *h = NULL;
  int64_t *want = NULL;
  int *recv_count = NULL, *send_count = NULL;
  MPI_Request *req = NULL;
  if (!st) st = NG_CALLOC(h, 1);
  if (!st) {
    h->ctx = ctx;
    st = NG_CALLOC(recv_count, size);
  }
  if (!st) st = NG_CALLOC(send_count, size);
  /* owners of the columns this rank reads (the rows' ranks when square):
   * starts, gathered with the ranges' check */
  if (!st) st = plan_recv_side(A, h, starts, recv_count);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), fail); /* the caller's status too */
  /* each owner learns how many of its rows each rank reads */
  if (MPI_Alltoall(recv_count, 1, MPI_INT, send_count, 1, MPI_INT, comm) != MPI_SUCCESS) {
    st = NG_ERROR(NG_ERR_MPI, "halo plan: MPI_Alltoall of halo counts failed");
    goto fail;
  }
  st = plan_send_side(A, h, send_count, &want);
  if (!st) st = NG_MALLOC(req, h->n_send_nb + h->n_recv_nb);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), fail);
  /* owners receive what their neighbours read (their SEND tables) */
  int rc = MPI_SUCCESS, nreq = 0;
  for (int q = 0; q < h->n_send_nb && rc == MPI_SUCCESS; q++)
    rc = MPI_Irecv(want + h->send_offset[q], h->send_offset[q + 1] - h->send_offset[q], MPI_INT64_T, h->send_rank[q],
                   NG_TAG_PLAN, comm, &req[nreq++]);
  for (int q = 0; q < h->n_recv_nb && rc == MPI_SUCCESS; q++)
    rc = MPI_Isend(A->halo_gcol + h->recv_offset[q], h->recv_offset[q + 1] - h->recv_offset[q], MPI_INT64_T,
                   h->recv_rank[q], NG_TAG_PLAN, comm, &req[nreq++]);
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) {
    st = NG_ERROR(NG_ERR_MPI, "halo plan: exchange of halo index lists failed");
    goto fail;
  }
  NG_CHECK_GOTO(st, plan_finish(A, h, want), fail);
  if (h->n_neighbors == 0) {
    ng_halo_plan_destroy(h); /* no coupling to other ranks: SpMV stays local */
    h = NULL;
  }
  A->halo = h;
  h = NULL;
fail:
  ng_halo_plan_destroy(h);
  ng_free(want);
  ng_free(recv_count);
  ng_free(send_count);
  ng_free(req);
  ng_trace_span(NG_TR_PLAN, t0);
  return st;
}

ng_status ng_halo_begin(ng_matrix A, const double *x)
{
  struct ng_halo_plan *h = A->halo;
  double t = ng_wtime();
  NG_CHECK(h->transport->pack(h, x));
  if (ng_trace_on) ng_trace_span(NG_TR_HALO_PACK, t);
  double t1 = ng_trace_t0();
  NG_CHECK(h->transport->start(h));
  ng_trace_span(NG_TR_HALO_START, t1);
  h->comm_seconds += ng_wtime() - t;
  return NG_SUCCESS;
}

ng_status ng_halo_end(ng_matrix A)
{
  struct ng_halo_plan *h = A->halo;
  double t = ng_wtime();
  NG_CHECK(h->transport->finish(h, A->halo_values));
  ng_trace_span(NG_TR_HALO_FINISH, t);
  h->comm_seconds += ng_wtime() - t;
  h->exchanges++;
  return NG_SUCCESS;
}

#else
ng_status ng_halo_plan_create(ng_context ctx, ng_matrix A, const int64_t *starts, ng_status st)
{
  if (st) return st;
  return NG_ERROR(NG_ERR_UNSUPPORTED, "matrices spread over several ranks need a build with MPI");
}
ng_status ng_halo_begin(ng_matrix A, const double *x) { return NG_ERROR(NG_ERR_INTERNAL, "no halo plan without MPI"); }
ng_status ng_halo_end(ng_matrix A) { return NG_ERROR(NG_ERR_INTERNAL, "no halo plan without MPI"); }
#endif

ng_status ng_matrix_get_comm_info(ng_matrix A, int32_t *n_local_rows, int32_t *n_halo, int *n_neighbors,
                                  double *comm_seconds)
{
  NG_ASSERT_ARG(A, "ng_matrix_get_comm_info: null matrix");
  if (n_local_rows) *n_local_rows = A->n_local;
  if (n_halo) *n_halo = A->n_halo;
  if (n_neighbors) *n_neighbors = A->halo ? A->halo->n_neighbors : 0;
  if (comm_seconds) *comm_seconds = A->halo ? A->halo->comm_seconds : 0.0;
  return NG_SUCCESS;
}

ng_status ng_matrix_get_transport(ng_matrix A, char *buf, size_t len)
{
  NG_ASSERT_ARG(A && buf && len > 0, "ng_matrix_get_transport: null argument");
  ng_transport_describe(A->halo, buf, len);
  return NG_SUCCESS;
}
