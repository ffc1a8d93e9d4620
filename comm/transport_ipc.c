/* comm/transport_ipc.c: the CUDA IPC part, for neighbours on the same node
 * whose GPU this process can map (the same GPU, or peer access). At setup
 * every receiver exports the allocation holding its receive buffer
 * (cudaIpcGetMemHandle) and tells each sender where that sender's block
 * lies in it; each sender opens the handle once (cudaIpcOpenMemHandle,
 * closed at destroy). An exchange then packs straight into the neighbour's
 * receive buffer: the gather kernel writes through the peer mapping, and no
 * value passes through host memory.
 *
 * Ordering, by default with interprocess CUDA events that the streams wait
 * on (no host waits on the GPU). Each pair has two events, each created and
 * exported by the rank whose stream waits on it and recorded by the other:
 * FREE (owned by the sender) and LANDED (owned by the receiver).
 *   receiver, pack:   record FREE on its stream (after every earlier reader
 *                     of recv_buf), then a zero-byte READY message to the
 *                     sender ("recorded", not "reached");
 *   sender, pack:     wait for READY, make its stream wait on FREE, gather
 *                     into the receiver, record LANDED, DONE message;
 *   receiver, finish: wait for DONE, make its stream wait on LANDED: work
 *                     queued after finish reads the landed values.
 * The messages only order a record before its wait on the host (a wait
 * applies to the last record made before it); an event is recorded again
 * only after the message of the previous exchange that follows its wait.
 * Destruction stays local: every record of an exchange is waited on in the
 * owner's stream in the same exchange, so once a rank has synced its own
 * stream no other rank's queued work refers to the events it destroys, and
 * its own records on imported events have run.
 * NG_IPC_SYNC=host selects the older ordering with host waits instead
 * (stream sync before READY, event sync before DONE), kept for comparison
 * in bench/halo.
 *
 * When the allocation base of recv_buf cannot be found (no driver entry
 * point), senders write into a landing buffer of this part instead, copied
 * into recv_buf on the stream at finish (NG_IPC_LANDING=1 forces that path,
 * for the tests). */
#include "transport_part.h"
#ifdef NG_HAVE_CUDA
#include "cuda_internal.h"
#endif

#if defined(NG_HAVE_MPI) && defined(NG_HAVE_CUDA)
#define NB_COUNT(off, q) ((off)[(q) + 1] - (off)[q])

/* What a receiver tells each of its senders once. */
typedef struct {
  cudaIpcMemHandle_t handle;
  cudaIpcEventHandle_t landed; /* the receiver's LANDED event of this pair */
  long long offset; /* bytes from the allocation base to this sender's block */
  int count;        /* doubles in the block (checked against the sender's) */
  int ok;           /* 0: the receiver failed to export; the sender fails too */
} ipc_offer;

typedef struct {
  const ng_nb_subset *nb;
  cudaStream_t stream;
  cudaEvent_t packed;   /* after this rank's gathers into its receivers */
  void **peer_base;     /* ns opened allocations (NULL: not opened) */
  double **peer_dst;    /* ns: where block snb[k] goes */
  MPI_Request *req;     /* 2 (nr + ns): the four arrays below, MPI_REQUEST_NULL when idle */
  MPI_Request *ready_send, *ready_recv, *done_send, *done_recv; /* nr, ns, ns, nr */
  double *landing;      /* NULL: senders write into recv_buf itself */
  int pending_packed, have_packed;
  int gpu_sync;         /* 1: interprocess events (default); 0: host waits */
  /* gpu_sync events (NULL: not created / opened) */
  cudaEvent_t *own_free, *peer_landed; /* ns: this rank as sender */
  cudaEvent_t *own_landed, *peer_free; /* nr: this rank as receiver */
} ipc_state;

/* Allocation base of a device pointer (cuMemGetAddressRange through the
 * runtime's driver entry point, so that no link to libcuda is needed). */
typedef int (*addr_range_fn)(unsigned long long *base, size_t *size, unsigned long long ptr);
static int allocation_base(void *p, char **base)
{
  static addr_range_fn fn = NULL;
  if (!fn) {
    void *f = NULL;
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !f) {
      cudaGetLastError();
      return 0;
    }
    fn = (addr_range_fn)f;
  }
  unsigned long long b = 0;
  size_t sz = 0;
  if (fn(&b, &sz, (unsigned long long)(uintptr_t)p) != 0) return 0;
  *base = (char *)(uintptr_t)b;
  return 1;
}

void ng_ipc_bus_id(ng_context ctx, char *bus, int len)
{
  bus[0] = '\0';
  if (!ctx->on_gpu) return;
  if (cudaDeviceGetPCIBusId(bus, len, ctx->cuda->device) != cudaSuccess) {
    cudaGetLastError();
    bus[0] = '\0';
  }
}

int ng_ipc_can_map(ng_context ctx, const char *bus)
{
  char mine[32];
  int dev = -1, ok = 0;
  if (!ctx->on_gpu || !bus[0]) return 0;
  ng_ipc_bus_id(ctx, mine, (int)sizeof(mine));
  if (!strcmp(mine, bus)) return 1; /* several ranks on one GPU */
  if (cudaDeviceGetByPCIBusId(&dev, bus) != cudaSuccess) { /* not visible to this process */
    cudaGetLastError();
    return 0;
  }
  if (cudaDeviceCanAccessPeer(&ok, ctx->cuda->device, dev) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return ok;
}

/* Local half of the setup: this rank's offers to its senders. */
static ng_status ipc_prepare(struct ng_halo_plan *h, double *recv_buf, ipc_state *s, ipc_offer *offer,
                             cudaIpcEventHandle_t *free_handle)
{
  const ng_nb_subset *nb = s->nb;
  char *base = NULL, *target = (char *)recv_buf;
  NG_CUDA_CHECK(cudaEventCreateWithFlags(&s->packed, cudaEventDisableTiming));
  s->have_packed = 1;
  for (int k = 0; s->gpu_sync && k < nb->ns; k++) {
    NG_CUDA_CHECK(cudaEventCreateWithFlags(&s->own_free[k], cudaEventDisableTiming | cudaEventInterprocess));
    NG_CUDA_CHECK(cudaIpcGetEventHandle(&free_handle[k], s->own_free[k]));
  }
  if (nb->nr == 0) return NG_SUCCESS;
  const char *force = getenv("NG_IPC_LANDING"); /* =1: the fallback, for tests */
  if ((force && !strcmp(force, "1")) || !allocation_base(recv_buf, &base)) {
    NG_CHECK(ng_cuda_malloc((void **)&s->landing, (size_t)h->n_recv * sizeof(double), "ipc landing buffer"));
    target = base = (char *)s->landing;
  }
  cudaIpcMemHandle_t handle;
  NG_CUDA_CHECK(cudaIpcGetMemHandle(&handle, base));
  for (int k = 0; k < nb->nr; k++) {
    int q = nb->rnb[k];
    if (s->gpu_sync) {
      NG_CUDA_CHECK(cudaEventCreateWithFlags(&s->own_landed[k], cudaEventDisableTiming | cudaEventInterprocess));
      NG_CUDA_CHECK(cudaIpcGetEventHandle(&offer[k].landed, s->own_landed[k]));
    }
    offer[k].handle = handle;
    offer[k].offset = (long long)(target - base) + (long long)h->recv_offset[q] * (long long)sizeof(double);
    offer[k].count = NB_COUNT(h->recv_offset, q);
    offer[k].ok = 1;
  }
  return NG_SUCCESS;
}

/* Opens an event another rank exported. */
static ng_status open_event(cudaEvent_t *ev, cudaIpcEventHandle_t handle, int rank)
{
  cudaError_t e = cudaIpcOpenEventHandle(ev, handle);
  if (e != cudaSuccess) {
    cudaGetLastError();
    *ev = NULL;
    return NG_ERROR(NG_ERR_CUDA, "ipc: cudaIpcOpenEventHandle of rank %d's event failed: %s", rank,
                    cudaGetErrorString(e));
  }
  return NG_SUCCESS;
}

/* Sender side: opens each receiver's allocation (and LANDED event);
 * receiver side: opens each sender's FREE event. */
static ng_status ipc_open(struct ng_halo_plan *h, ipc_state *s, const ipc_offer *got,
                          const cudaIpcEventHandle_t *got_free)
{
  const ng_nb_subset *nb = s->nb;
  for (int k = 0; k < nb->ns; k++) {
    int q = nb->snb[k];
    if (!got[k].ok)
      return NG_ERROR(NG_ERR_CUDA, "ipc: rank %d could not export its receive buffer", h->send_rank[q]);
    if (got[k].count != NB_COUNT(h->send_offset, q))
      return NG_ERROR(NG_ERR_INTERNAL, "ipc: rank %d expects %d values, this rank sends %d", h->send_rank[q],
                      got[k].count, (int)NB_COUNT(h->send_offset, q));
    cudaError_t e = cudaIpcOpenMemHandle(&s->peer_base[k], got[k].handle, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
      cudaGetLastError();
      s->peer_base[k] = NULL;
      return NG_ERROR(NG_ERR_CUDA, "ipc: cudaIpcOpenMemHandle of rank %d's receive buffer failed: %s",
                      h->send_rank[q], cudaGetErrorString(e));
    }
    s->peer_dst[k] = (double *)((char *)s->peer_base[k] + got[k].offset);
    if (s->gpu_sync) NG_CHECK(open_event(&s->peer_landed[k], got[k].landed, h->send_rank[q]));
  }
  for (int k = 0; s->gpu_sync && k < nb->nr; k++)
    NG_CHECK(open_event(&s->peer_free[k], got_free[k], h->recv_rank[nb->rnb[k]]));
  return NG_SUCCESS;
}

/* Collective over the context (every rank calls it, with or without ipc
 * neighbours): local failures are agreed on before any handle travels, so
 * no neighbour waits for a message that is never sent. */
static ng_status ipc_setup(struct ng_halo_plan *h, double *recv_buf, const ng_nb_subset *nb, void **state)
{
  ng_context ctx = h->ctx;
  MPI_Comm comm = ctx->comm->comm;
  ipc_state *s = NULL;
  ipc_offer *offer = NULL, *got = NULL;
  cudaIpcEventHandle_t *free_handle = NULL, *got_free = NULL;
  int nreq = 2 * (nb->nr + nb->ns);
  const char *sync = getenv("NG_IPC_SYNC"); /* =host: the older ordering, for comparison */
  ng_status st = NG_CALLOC(s, 1);
  if (!st) {
    *state = s;
    s->nb = nb;
    s->stream = ctx->cuda ? ctx->cuda->stream : NULL;
    s->gpu_sync = !(sync && !strcmp(sync, "host"));
    st = NG_CALLOC(s->peer_base, nb->ns);
  }
  if (!st) st = NG_CALLOC(s->own_free, nb->ns + 1);
  if (!st) st = NG_CALLOC(s->peer_landed, nb->ns + 1);
  if (!st) st = NG_CALLOC(s->own_landed, nb->nr + 1);
  if (!st) st = NG_CALLOC(s->peer_free, nb->nr + 1);
  if (!st) st = NG_CALLOC(free_handle, nb->ns + 1);
  if (!st) st = NG_CALLOC(got_free, nb->nr + 1);
  if (!st) st = NG_CALLOC(s->peer_dst, nb->ns);
  if (!st) st = NG_MALLOC(s->req, nreq + 1);
  if (!st) st = NG_CALLOC(offer, nb->nr + 1);
  if (!st) st = NG_CALLOC(got, nb->ns + 1);
  if (!st && nreq > 0)
    st = ctx->on_gpu ? ipc_prepare(h, recv_buf, s, offer, free_handle)
                     : NG_ERROR(NG_ERR_UNSUPPORTED, "the ipc transport needs a GPU context");
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), done);
  s->ready_send = s->req;
  s->ready_recv = s->ready_send + nb->nr;
  s->done_send = s->ready_recv + nb->ns;
  s->done_recv = s->done_send + nb->ns;
  int rc = MPI_SUCCESS, n = 0;
  for (int k = 0; k < nb->ns && rc == MPI_SUCCESS; k++)
    rc = MPI_Irecv(&got[k], (int)sizeof(ipc_offer), MPI_BYTE, h->send_rank[nb->snb[k]], NG_TAG_IPC_SETUP, comm,
                   &s->req[n++]);
  for (int k = 0; k < nb->nr && rc == MPI_SUCCESS; k++)
    rc = MPI_Isend(&offer[k], (int)sizeof(ipc_offer), MPI_BYTE, h->recv_rank[nb->rnb[k]], NG_TAG_IPC_SETUP, comm,
                   &s->req[n++]);
  /* the other way: each sender's FREE event to its receiver (req has room: 2 (nr + ns)) */
  for (int k = 0; k < nb->nr && rc == MPI_SUCCESS; k++)
    rc = MPI_Irecv(&got_free[k], (int)sizeof(cudaIpcEventHandle_t), MPI_BYTE, h->recv_rank[nb->rnb[k]], NG_TAG_IPC_EVENT,
                   comm, &s->req[n++]);
  for (int k = 0; k < nb->ns && rc == MPI_SUCCESS; k++)
    rc = MPI_Isend(&free_handle[k], (int)sizeof(cudaIpcEventHandle_t), MPI_BYTE, h->send_rank[nb->snb[k]], NG_TAG_IPC_EVENT,
                   comm, &s->req[n++]);
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(n, s->req, MPI_STATUSES_IGNORE);
  for (int k = 0; k < nreq; k++) s->req[k] = MPI_REQUEST_NULL;
  st = rc == MPI_SUCCESS ? ipc_open(h, s, got, got_free)
                         : NG_ERROR(NG_ERR_MPI, "ipc: exchange of receive-buffer handles failed");
done:
  ng_free(offer);
  ng_free(got);
  ng_free(free_handle);
  ng_free(got_free);
  return st;
}

static ng_status ipc_pack(struct ng_halo_plan *h, void *state, const double *x)
{
  ipc_state *s = state;
  const ng_nb_subset *nb = s->nb;
  ng_context ctx = h->ctx;
  MPI_Comm comm = ctx->comm->comm;
  if (nb->nr > 0) { /* READY: every earlier reader of the receive buffer is done (gpu_sync: queued before FREE) */
    if (s->gpu_sync)
      for (int k = 0; k < nb->nr; k++) NG_CUDA_CHECK(cudaEventRecord(s->peer_free[k], s->stream));
    else
      NG_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    for (int k = 0; k < nb->nr; k++)
      NG_MPI_CHECK(MPI_Isend(NULL, 0, MPI_BYTE, h->recv_rank[nb->rnb[k]], NG_TAG_IPC_READY, comm, &s->ready_send[k]));
  }
  if (nb->ns > 0) {
    for (int k = 0; k < nb->ns; k++)
      NG_MPI_CHECK(MPI_Irecv(NULL, 0, MPI_BYTE, h->send_rank[nb->snb[k]], NG_TAG_IPC_READY, comm, &s->ready_recv[k]));
    NG_MPI_CHECK(MPI_Waitall(nb->ns, s->ready_recv, MPI_STATUSES_IGNORE));
    for (int k = 0; k < nb->ns; k++) {
      int q = nb->snb[k];
      if (s->gpu_sync) NG_CUDA_CHECK(cudaStreamWaitEvent(s->stream, s->own_free[k], 0));
      NG_CHECK(ctx->vops->gather(ctx, NB_COUNT(h->send_offset, q), h->send_idx + h->send_offset[q], x, s->peer_dst[k]));
      if (s->gpu_sync) NG_CUDA_CHECK(cudaEventRecord(s->peer_landed[k], s->stream));
    }
    if (s->gpu_sync) { /* DONE at once: the receivers' streams wait on LANDED */
      for (int k = 0; k < nb->ns; k++)
        NG_MPI_CHECK(MPI_Isend(NULL, 0, MPI_BYTE, h->send_rank[nb->snb[k]], NG_TAG_IPC_DONE, comm, &s->done_send[k]));
    } else {
      NG_CUDA_CHECK(cudaEventRecord(s->packed, s->stream));
      s->pending_packed = 1;
    }
  }
  return NG_SUCCESS;
}

static ng_status ipc_start(struct ng_halo_plan *h, void *state)
{
  ipc_state *s = state;
  const ng_nb_subset *nb = s->nb;
  for (int k = 0; k < nb->nr; k++) /* DONE from each sender, posted early */
    NG_MPI_CHECK(MPI_Irecv(NULL, 0, MPI_BYTE, h->recv_rank[nb->rnb[k]], NG_TAG_IPC_DONE, h->ctx->comm->comm,
                           &s->done_recv[k]));
  return NG_SUCCESS;
}

static ng_status ipc_finish(struct ng_halo_plan *h, void *state, double *recv_buf)
{
  ipc_state *s = state;
  const ng_nb_subset *nb = s->nb;
  if (!s->gpu_sync) {
    if (s->pending_packed) { /* the gathers into the receivers have run (not the work queued after them) */
      NG_CUDA_CHECK(cudaEventSynchronize(s->packed));
      s->pending_packed = 0;
    }
    for (int k = 0; k < nb->ns; k++)
      NG_MPI_CHECK(MPI_Isend(NULL, 0, MPI_BYTE, h->send_rank[nb->snb[k]], NG_TAG_IPC_DONE, h->ctx->comm->comm,
                             &s->done_send[k]));
  }
  /* READY sends, DONE sends and DONE receives: req holds them contiguously */
  NG_MPI_CHECK(MPI_Waitall(2 * (nb->nr + nb->ns), s->req, MPI_STATUSES_IGNORE));
  for (int k = 0; s->gpu_sync && k < nb->nr; k++) /* work queued from here on sees the landed values */
    NG_CUDA_CHECK(cudaStreamWaitEvent(s->stream, s->own_landed[k], 0));
  if (s->landing)
    for (int k = 0; k < nb->nr; k++) {
      int q = nb->rnb[k];
      NG_CUDA_CHECK(cudaMemcpyAsync(recv_buf + h->recv_offset[q], s->landing + h->recv_offset[q],
                                    (size_t)NB_COUNT(h->recv_offset, q) * sizeof(double), cudaMemcpyDeviceToDevice,
                                    s->stream));
    }
  return NG_SUCCESS;
}

static void ipc_destroy(struct ng_halo_plan *h, void *state)
{
  ipc_state *s = state;
  if (!s) return;
  /* nothing queued may still write through a mapping or wait on an event */
  if (s->stream) cudaStreamSynchronize(s->stream);
  for (int k = 0; s->peer_base && k < s->nb->ns; k++)
    if (s->peer_base[k]) cudaIpcCloseMemHandle(s->peer_base[k]);
  for (int k = 0; k < s->nb->ns; k++) {
    if (s->own_free && s->own_free[k]) cudaEventDestroy(s->own_free[k]);
    if (s->peer_landed && s->peer_landed[k]) cudaEventDestroy(s->peer_landed[k]);
  }
  for (int k = 0; k < s->nb->nr; k++) {
    if (s->own_landed && s->own_landed[k]) cudaEventDestroy(s->own_landed[k]);
    if (s->peer_free && s->peer_free[k]) cudaEventDestroy(s->peer_free[k]);
  }
  if (s->have_packed) cudaEventDestroy(s->packed);
  if (s->landing) cudaFree(s->landing);
  ng_free(s->peer_base);
  ng_free(s->peer_dst);
  ng_free(s->own_free);
  ng_free(s->peer_landed);
  ng_free(s->own_landed);
  ng_free(s->peer_free);
  ng_free(s->req);
  ng_free(s);
}
#else
#if defined(NG_HAVE_MPI)
void ng_ipc_bus_id(ng_context ctx, char *bus, int len) { bus[0] = '\0'; }
int ng_ipc_can_map(ng_context ctx, const char *bus) { return 0; }
#endif
static ng_status ipc_setup(struct ng_halo_plan *h, double *recv_buf, const ng_nb_subset *nb, void **state)
{
  return NG_ERROR(NG_ERR_UNSUPPORTED, "the ipc transport needs a build with CUDA and MPI");
}
static ng_status ipc_pack(struct ng_halo_plan *h, void *s, const double *x) { return NG_ERROR(NG_ERR_INTERNAL, "no ipc"); }
static ng_status ipc_start(struct ng_halo_plan *h, void *s) { return NG_ERROR(NG_ERR_INTERNAL, "no ipc"); }
static ng_status ipc_finish(struct ng_halo_plan *h, void *s, double *v) { return NG_ERROR(NG_ERR_INTERNAL, "no ipc"); }
static void ipc_destroy(struct ng_halo_plan *h, void *s) {}
#endif

const ng_transport_part ng_part_ipc = {
  .name = "ipc",
  .setup = ipc_setup,
  .pack = ipc_pack,
  .start = ipc_start,
  .finish = ipc_finish,
  .destroy = ipc_destroy,
};
