/* comm/transport_ipc.c: the CUDA IPC part, for neighbours on the same node
 * whose GPU this process can map (the same GPU, or peer access). At setup
 * every receiver exports a device allocation (cudaIpcGetMemHandle) and
 * tells each sender where that sender's block lies in it; each sender opens
 * the handle once (cudaIpcOpenMemHandle, closed at destroy). An exchange
 * then packs straight into the neighbour's memory: the gather kernel writes
 * through the peer mapping, and no value passes through host memory.
 *
 * Default ordering ("event"): the receiver exports a landing area of two
 * buffers, used in turn (exchange k writes buffer k mod 2), and one
 * interprocess event per sender, LANDED, that the sender records and the
 * receiver's stream waits on. No host waits for the GPU on the critical
 * path, so the host keeps queueing work and exchanges overlap computation:
 *   receiver, pack:   make sure buffer k mod 2 is no longer read: its last
 *                     reader (the copy-out of exchange k - 2) was queued
 *                     before pack k - 1, where the event CONSUMED was
 *                     recorded: a host sync on that event, one exchange
 *                     late, which has almost always passed; record
 *                     CONSUMED again; zero-byte READY message to each sender;
 *   sender, pack:     wait for READY, gather into the buffer, record
 *                     LANDED, zero-byte DONE message at once;
 *   receiver, finish: wait for DONE, make the stream wait on LANDED, copy
 *                     the buffer into recv_buf on the stream.
 * The messages only order a record before its wait on the host (a wait
 * applies to the last record made before it); LANDED is recorded again
 * only after the next READY, which follows the receiver's wait.
 * Destruction stays local: each record of LANDED is waited on in the
 * receiver's stream in the same exchange, so once a rank has synced its own
 * stream no other rank's queued work refers to what it frees, and its own
 * records on imported events have run.
 * With several ranks time-sharing one GPU (no MPS), a stream that waits on
 * another process's event costs a context switch: an isolated exchange
 * (bench/halo "exchange") is slower than with host waits, while solves are
 * about twice as fast (doc/performance.md has both).
 *
 * NG_IPC_SYNC=host selects the older ordering, kept for comparison in
 * bench/halo: senders write into recv_buf itself (its allocation exported),
 * the receiver syncs its stream before READY and each sender syncs its
 * gathers before DONE. There, when the allocation base of recv_buf cannot
 * be found (no driver entry point), senders write into a single landing
 * buffer copied into recv_buf at finish (NG_IPC_LANDING=1 forces that path,
 * for the tests). */
#include "transport_part.h"
#ifdef NG_HAVE_CUDA
#include "cuda_internal.h"
#endif

#if defined(NG_HAVE_MPI) && defined(NG_HAVE_CUDA)
#define NB_COUNT(off, q) ((off)[(q) + 1] - (off)[q])

/* comm/transport_ipc_cache.c (NG_IPC_CACHE=1): landing allocations and
 * opened handles kept by the context between plans */
int ng_ipc_cache_on(void);
ng_status ng_ipc_landing_take(ng_context ctx, size_t bytes, void **p, cudaIpcMemHandle_t *handle);
void ng_ipc_landing_give(ng_context ctx, void *p);
ng_status ng_ipc_open_kept(ng_context ctx, const cudaIpcMemHandle_t *handle, void **base);

/* What a receiver tells each of its senders once. */
typedef struct {
  cudaIpcMemHandle_t handle;
  cudaIpcEventHandle_t landed; /* event ordering: the receiver's LANDED event of this pair */
  long long offset; /* bytes from the allocation base to this sender's block (buffer 0) */
  long long stride; /* event ordering: doubles from buffer 0 to buffer 1 */
  int count;        /* doubles in the block (checked against the sender's) */
  int ok;           /* 0: the receiver failed to export; the sender fails too */
} ipc_offer;

typedef struct {
  const ng_nb_subset *nb;
  cudaStream_t stream;
  int event;            /* 1: the default ordering; 0: NG_IPC_SYNC=host */
  void **peer_base;     /* ns opened allocations (NULL: not opened) */
  double **peer_dst;    /* ns: where block snb[k] goes (buffer 0) */
  long long *peer_stride; /* ns: event ordering: doubles to buffer 1 */
  MPI_Request *req;     /* 2 (nr + ns): the four arrays below, MPI_REQUEST_NULL when idle */
  MPI_Request *ready_send, *ready_recv, *done_send, *done_recv; /* nr, ns, ns, nr */
  double *landing;      /* event ordering: 2 n_recv; host ordering: n_recv or NULL (recv_buf itself) */
  long long nex;        /* exchanges so far: buffer nex mod 2 is the next */
  int cur;              /* the buffer of the exchange in flight */
  cudaEvent_t consumed[2]; /* event ordering */
  int have_consumed;
  cudaEvent_t *own_landed;  /* event ordering, nr: created here, recorded by the sender */
  cudaEvent_t *peer_landed; /* event ordering, ns: opened, recorded here after the gather */
  cudaEvent_t packed;   /* host ordering: after this rank's gathers into its receivers */
  int pending_packed, have_packed;
  int kept;             /* NG_IPC_CACHE=1 (event ordering): landing and peer_base are the context's
                         * (comm/transport_ipc_cache.c): given back, not freed or closed */
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
static ng_status ipc_prepare(struct ng_halo_plan *h, double *recv_buf, ipc_state *s, ipc_offer *offer)
{
  const ng_nb_subset *nb = s->nb;
  char *base = NULL, *target = (char *)recv_buf;
  long long stride = 0;
  if (s->event) {
    NG_CUDA_CHECK(cudaEventCreateWithFlags(&s->consumed[0], cudaEventDisableTiming));
    s->have_consumed = 1;
    NG_CUDA_CHECK(cudaEventCreateWithFlags(&s->consumed[1], cudaEventDisableTiming));
    s->have_consumed = 2;
  }
  if (!s->event) {
    NG_CUDA_CHECK(cudaEventCreateWithFlags(&s->packed, cudaEventDisableTiming));
    s->have_packed = 1;
  }
  if (nb->nr == 0) return NG_SUCCESS;
  const char *force = getenv("NG_IPC_LANDING"); /* =1: the host ordering's fallback, for tests */
  cudaIpcMemHandle_t handle;
  int have_handle = 0;
  if (s->event && s->kept) { /* the context's kept landing buffers (NG_IPC_CACHE=1) */
    NG_CHECK(ng_ipc_landing_take(h->ctx, 2 * (size_t)h->n_recv * sizeof(double), (void **)&s->landing, &handle));
    have_handle = 1;
    target = base = (char *)s->landing;
    stride = h->n_recv;
  } else if (s->event) {
    NG_CHECK(ng_cuda_malloc_export((void **)&s->landing, 2 * (size_t)h->n_recv * sizeof(double), "ipc landing buffers"));
    target = base = (char *)s->landing;
    stride = h->n_recv;
  } else if ((force && !strcmp(force, "1")) || ng_cuda_keep_on() || !allocation_base(recv_buf, &base)) {
    /* recv_buf from the device-wide pool cannot be exported either */
    NG_CHECK(ng_cuda_malloc_export((void **)&s->landing, (size_t)h->n_recv * sizeof(double), "ipc landing buffer"));
    target = base = (char *)s->landing;
  }
  if (!have_handle) NG_CUDA_CHECK(cudaIpcGetMemHandle(&handle, base));
  for (int k = 0; k < nb->nr; k++) {
    int q = nb->rnb[k];
    if (s->event) {
      NG_CUDA_CHECK(cudaEventCreateWithFlags(&s->own_landed[k], cudaEventDisableTiming | cudaEventInterprocess));
      NG_CUDA_CHECK(cudaIpcGetEventHandle(&offer[k].landed, s->own_landed[k]));
    }
    offer[k].handle = handle;
    offer[k].offset = (long long)(target - base) + (long long)h->recv_offset[q] * (long long)sizeof(double);
    offer[k].stride = stride;
    offer[k].count = NB_COUNT(h->recv_offset, q);
    offer[k].ok = 1;
  }
  return NG_SUCCESS;
}

/* Sender side: opens each receiver's allocation (and, event ordering, its
 * LANDED event). */
static ng_status ipc_open(struct ng_halo_plan *h, ipc_state *s, const ipc_offer *got)
{
  const ng_nb_subset *nb = s->nb;
  for (int k = 0; k < nb->ns; k++) {
    int q = nb->snb[k];
    if (!got[k].ok)
      return NG_ERROR(NG_ERR_CUDA, "ipc: rank %d could not export its receive buffer", h->send_rank[q]);
    if (got[k].count != NB_COUNT(h->send_offset, q))
      return NG_ERROR(NG_ERR_INTERNAL, "ipc: rank %d expects %d values, this rank sends %d", h->send_rank[q],
                      got[k].count, (int)NB_COUNT(h->send_offset, q));
    cudaError_t e = cudaSuccess;
    if (s->kept) {
      ng_status st = ng_ipc_open_kept(h->ctx, &got[k].handle, &s->peer_base[k]);
      if (st) return ng_error_trace(st, __FILE__, __LINE__); /* names cudaIpcOpenMemHandle's error */
    } else
      e = cudaIpcOpenMemHandle(&s->peer_base[k], got[k].handle, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
      cudaGetLastError();
      s->peer_base[k] = NULL;
      return NG_ERROR(NG_ERR_CUDA, "ipc: cudaIpcOpenMemHandle of rank %d's receive buffer failed: %s",
                      h->send_rank[q], cudaGetErrorString(e));
    }
    s->peer_dst[k] = (double *)((char *)s->peer_base[k] + got[k].offset);
    s->peer_stride[k] = got[k].stride;
    if (s->event) {
      e = cudaIpcOpenEventHandle(&s->peer_landed[k], got[k].landed);
      if (e != cudaSuccess) {
        cudaGetLastError();
        s->peer_landed[k] = NULL;
        return NG_ERROR(NG_ERR_CUDA, "ipc: cudaIpcOpenEventHandle of rank %d's event failed: %s", h->send_rank[q],
                        cudaGetErrorString(e));
      }
    }
  }
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
  int nreq = 2 * (nb->nr + nb->ns);
  const char *sync = getenv("NG_IPC_SYNC"); /* event (default) | host: bench/halo compares them */
  ng_status st = NG_CALLOC(s, 1);
  if (!st) {
    *state = s;
    s->nb = nb;
    s->stream = ctx->cuda ? ctx->cuda->stream : NULL;
    s->event = !(sync && !strcmp(sync, "host"));
    s->kept = s->event && ng_ipc_cache_on();
    st = NG_CALLOC(s->peer_base, nb->ns);
  }
  if (!st && sync && strcmp(sync, "host") && strcmp(sync, "event"))
    st = NG_ERROR(NG_ERR_ARGUMENT, "NG_IPC_SYNC=%s: expected event or host", sync);
  if (!st) st = NG_CALLOC(s->peer_dst, nb->ns);
  if (!st) st = NG_CALLOC(s->peer_stride, nb->ns + 1);
  if (!st) st = NG_CALLOC(s->peer_landed, nb->ns + 1);
  if (!st) st = NG_CALLOC(s->own_landed, nb->nr + 1);
  if (!st) st = NG_MALLOC(s->req, nreq + 1);
  if (!st) st = NG_CALLOC(offer, nb->nr + 1);
  if (!st) st = NG_CALLOC(got, nb->ns + 1);
  if (!st && nreq > 0)
    st = ctx->on_gpu ? ipc_prepare(h, recv_buf, s, offer)
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
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(n, s->req, MPI_STATUSES_IGNORE);
  for (int k = 0; k < nreq; k++) s->req[k] = MPI_REQUEST_NULL;
  st = rc == MPI_SUCCESS ? ipc_open(h, s, got) : NG_ERROR(NG_ERR_MPI, "ipc: exchange of receive-buffer handles failed");
done:
  ng_free(offer);
  ng_free(got);
  return st;
}

static ng_status ipc_pack(struct ng_halo_plan *h, void *state, const double *x)
{
  ipc_state *s = state;
  const ng_nb_subset *nb = s->nb;
  ng_context ctx = h->ctx;
  MPI_Comm comm = ctx->comm->comm;
  s->cur = (int)(s->nex & 1);
  if (nb->nr > 0) { /* READY: the buffer the senders write is no longer read */
    if (!s->event)
      NG_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    else {
      if (s->nex > 0) NG_CUDA_CHECK(cudaEventSynchronize(s->consumed[s->cur ^ 1]));
      NG_CUDA_CHECK(cudaEventRecord(s->consumed[s->cur], s->stream));
    }
    for (int k = 0; k < nb->nr; k++)
      NG_MPI_CHECK(MPI_Isend(NULL, 0, MPI_BYTE, h->recv_rank[nb->rnb[k]], NG_TAG_IPC_READY, comm, &s->ready_send[k]));
  }
  s->nex++;
  if (nb->ns > 0) {
    for (int k = 0; k < nb->ns; k++)
      NG_MPI_CHECK(MPI_Irecv(NULL, 0, MPI_BYTE, h->send_rank[nb->snb[k]], NG_TAG_IPC_READY, comm, &s->ready_recv[k]));
    NG_MPI_CHECK(MPI_Waitall(nb->ns, s->ready_recv, MPI_STATUSES_IGNORE));
    for (int k = 0; k < nb->ns; k++) {
      int q = nb->snb[k];
      double *dst = s->peer_dst[k] + (s->event ? s->cur * s->peer_stride[k] : 0);
      NG_CHECK(ctx->vops->gather(ctx, NB_COUNT(h->send_offset, q), h->send_idx + h->send_offset[q], x, dst));
      if (s->event) NG_CUDA_CHECK(cudaEventRecord(s->peer_landed[k], s->stream));
    }
    if (s->event) /* DONE at once: the receivers' streams wait on LANDED */
      for (int k = 0; k < nb->ns; k++)
        NG_MPI_CHECK(MPI_Isend(NULL, 0, MPI_BYTE, h->send_rank[nb->snb[k]], NG_TAG_IPC_DONE, comm, &s->done_send[k]));
    else {
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
  if (!s->event) {
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
  for (int k = 0; s->event && k < nb->nr; k++) /* the copies below run after the gathers */
    NG_CUDA_CHECK(cudaStreamWaitEvent(s->stream, s->own_landed[k], 0));
  if (s->landing) {
    const double *from = s->landing + (s->event ? (size_t)s->cur * (size_t)h->n_recv : 0);
    if (nb->all_recv)
      NG_CUDA_CHECK(cudaMemcpyAsync(recv_buf, from, (size_t)h->n_recv * sizeof(double), cudaMemcpyDeviceToDevice,
                                    s->stream));
    else
      for (int k = 0; k < nb->nr; k++) {
        int q = nb->rnb[k];
        NG_CUDA_CHECK(cudaMemcpyAsync(recv_buf + h->recv_offset[q], from + h->recv_offset[q],
                                      (size_t)NB_COUNT(h->recv_offset, q) * sizeof(double), cudaMemcpyDeviceToDevice,
                                      s->stream));
      }
  }
  return NG_SUCCESS;
}

static void ipc_destroy(struct ng_halo_plan *h, void *state)
{
  ipc_state *s = state;
  if (!s) return;
  /* nothing queued here may still write through a mapping or use an event */
  if (s->stream) cudaStreamSynchronize(s->stream);
  for (int k = 0; !s->kept && s->peer_base && k < s->nb->ns; k++)
    if (s->peer_base[k]) cudaIpcCloseMemHandle(s->peer_base[k]);
  for (int k = 0; s->peer_landed && k < s->nb->ns; k++)
    if (s->peer_landed[k]) cudaEventDestroy(s->peer_landed[k]);
  for (int k = 0; s->own_landed && k < s->nb->nr; k++)
    if (s->own_landed[k]) cudaEventDestroy(s->own_landed[k]);
  for (int k = 0; k < s->have_consumed; k++) cudaEventDestroy(s->consumed[k]);
  if (s->have_packed) cudaEventDestroy(s->packed);
  if (s->landing && s->kept) ng_ipc_landing_give(h->ctx, s->landing);
  else if (s->landing) ng_cuda_free_export(s->landing);
  ng_free(s->peer_base);
  ng_free(s->peer_dst);
  ng_free(s->peer_stride);
  ng_free(s->peer_landed);
  ng_free(s->own_landed);
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
