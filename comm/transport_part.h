/* comm/transport_part.h: one transport kind over a subset of a plan's
 * neighbours. comm/transport_select.c decides the kind of each neighbour
 * (both ranks of a pair always agree) and runs one part per kind present,
 * in a fixed order (ipc, cuda_mpi, host) on every rank. Each part is one
 * file and fills in this table; it moves the blocks of its neighbours only:
 * send block q is send_buf[send_offset[q] .. send_offset[q+1]) gathered from
 * x[send_idx[...]], receive block q lands in recv_buf[recv_offset[q] ..]. */
#ifndef NG_TRANSPORT_PART_H
#define NG_TRANSPORT_PART_H
#include "transport.h"
#include "comm_mpi.h" /* MPI_Request, NG_MPI_CHECK */

#define NG_TAG_HALO 7311      /* host staging data */
#define NG_TAG_IPC_SETUP 7312 /* ipc: receive-buffer handles, once per plan */
#define NG_TAG_IPC_READY 7313 /* ipc: "my receive buffer may be overwritten" */
#define NG_TAG_IPC_DONE 7314  /* ipc: "your values have landed" */
#define NG_TAG_CUDA_MPI 7315  /* cuda_mpi data */

/* The neighbours a part handles: indices into h->send_rank (snb, ns of
 * them) and h->recv_rank (rnb, nr); all_send / all_recv when the subset is
 * every neighbour of the plan (one gather or copy for all then). */
typedef struct {
  int ns, nr;
  int *snb, *rnb;
  int all_send, all_recv;
} ng_nb_subset;

typedef struct ng_transport_part {
  const char *name;
  /* Collective among the subset's neighbours: every rank posts the same
   * messages even when its own setup failed (the caller agrees on errors
   * afterwards), so no neighbour waits forever. nb outlives the state. */
  ng_status (*setup)(struct ng_halo_plan *h, double *recv_buf, const ng_nb_subset *nb, void **state);
  ng_status (*pack)(struct ng_halo_plan *h, void *state, const double *x);
  ng_status (*start)(struct ng_halo_plan *h, void *state);
  ng_status (*finish)(struct ng_halo_plan *h, void *state, double *recv_buf);
  void (*destroy)(struct ng_halo_plan *h, void *state); /* state may be NULL */
} ng_transport_part;

extern const ng_transport_part ng_part_host, ng_part_ipc, ng_part_cuda_mpi;

/* 1 when device pointers may go to MPI (compile-time
 * MPIX_CUDA_AWARE_SUPPORT and run-time MPIX_Query_cuda_support()); else 0
 * and why (transport_cuda_mpi.c). */
int ng_cuda_mpi_available(char *why, size_t len);
/* PCI bus id of the context's GPU into bus (empty on the host) and, for a
 * bus id seen by another rank of this node, whether this process can map
 * that GPU's memory (same GPU, or peer access) (transport_ipc.c). */
void ng_ipc_bus_id(ng_context ctx, char *bus, int len);
int ng_ipc_can_map(ng_context ctx, const char *bus);
#endif
