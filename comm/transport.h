/* comm/transport.h: how a halo exchange moves data, as an ops table so that
 * GPU transports (CUDA-aware MPI, IPC) can replace the host one without
 * touching the plan or the SpMV. One exchange is pack(x) -> start ->
 * (interior work) -> finish(recv_buf).
 *
 * A plan's transport is chosen per neighbour at plan creation
 * (ng_transport_select_and_setup): the tables below all run a plan through
 * comm/transport_select.c, which calls one part per transport kind present
 * (comm/transport_part.h): host (transport_host.c), ipc (transport_ipc.c),
 * cuda_mpi (transport_cuda_mpi.c). Callers only ever see this table. */
#ifndef NG_TRANSPORT_H
#define NG_TRANSPORT_H
#include "halo.h"

typedef struct ng_transport_ops {
  const char *name;
  /* Once per plan: buffers and requests (recv_buf: h->n_recv doubles of
   * context memory, where finish lands; any such buffer, not only a
   * matrix's halo_values). */
  ng_status (*setup)(struct ng_halo_plan *h, double *recv_buf);
  /* Gathers own entries x[send_idx] into the send buffers. */
  ng_status (*pack)(struct ng_halo_plan *h, const double *x);
  /* Posts receives and sends; returns without waiting. */
  ng_status (*start)(struct ng_halo_plan *h);
  /* Waits for the exchange and leaves the received values in recv_buf
   * (ordered before later work on the context's stream). */
  ng_status (*finish)(struct ng_halo_plan *h, double *recv_buf);
  void (*destroy)(struct ng_halo_plan *h);
} ng_transport_ops;

/* Every neighbour through one transport (setup is collective over the
 * plan's neighbours; ipc and cuda_mpi need a GPU context). host: staging
 * through host memory, works for host and device contexts alike. */
extern const ng_transport_ops ng_transport_host;
extern const ng_transport_ops ng_transport_ipc;
extern const ng_transport_ops ng_transport_cuda_mpi;

/* Collective over the context's ranks (every rank calls it for the same
 * plan, neighbours or not): picks the transport of each neighbour from the
 * context's choice (ng_context_set_transport, NG_COMM_TRANSPORT), sets
 * h->transport and runs its setup. Fails on every rank, with one message,
 * when any rank fails. */
ng_status ng_transport_select_and_setup(struct ng_halo_plan *h, double *recv_buf);

/* Names of the context's choices (index = ng_transport_kind below + 1 for auto). */
typedef enum { NG_TRANSPORT_HOST = 0, NG_TRANSPORT_CUDA_MPI = 1, NG_TRANSPORT_IPC = 2, NG_TRANSPORT_KINDS = 3,
               NG_TRANSPORT_AUTO = 3 } ng_transport_kind;

/* "ipc:1,2 host:0": each neighbour rank under its transport ("-" without
 * neighbours). */
void ng_transport_describe(const struct ng_halo_plan *h, char *buf, size_t len);
#endif
