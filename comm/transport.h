/* comm/transport.h: how a halo exchange moves data, as an ops table so that
 * GPU transports (CUDA-aware MPI, IPC) can replace the host one without
 * touching the plan or the SpMV. One exchange is pack(x) -> start ->
 * (interior work) -> finish(halo_values). */
#ifndef NG_TRANSPORT_H
#define NG_TRANSPORT_H
#include "halo.h"

typedef struct ng_transport_ops {
  const char *name;
  /* Once per plan: buffers and requests (halo_values: where finish lands). */
  ng_status (*setup)(struct ng_halo_plan *h, double *halo_values);
  /* Gathers own entries x[send_idx] into the send buffers. */
  ng_status (*pack)(struct ng_halo_plan *h, const double *x);
  /* Posts receives and sends; returns without waiting. */
  ng_status (*start)(struct ng_halo_plan *h);
  /* Waits for the exchange and leaves the received values in halo_values. */
  ng_status (*finish)(struct ng_halo_plan *h, double *halo_values);
  void (*destroy)(struct ng_halo_plan *h);
} ng_transport_ops;

/* Host staging through ctx->vops (gather, download, MPI_Isend/Irecv,
 * upload): works for host and device contexts alike. */
extern const ng_transport_ops ng_transport_host;
#endif
