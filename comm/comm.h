/* comm/comm.h: the communicator behind a context and the collectives the
 * library calls outside comm/. Without MPI (or with one rank) every
 * collective is the identity. Free of mpi.h (CUDA sources include it): the
 * struct ng_comm and the MPI error macro are in comm/comm_mpi.h. */
#ifndef NG_COMM_H
#define NG_COMM_H
#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ng_comm ng_comm; /* comm/comm_mpi.h */
struct ng_halo_plan;            /* comm/halo.h */

ng_status ng_comm_create_from(const void *mpi_comm, ng_comm **comm);
/* A communicator of this rank alone (MPI_COMM_SELF duplicated; without MPI
 * the one-rank communicator): the one-rank context of a gathered AMG level. */
ng_status ng_comm_create_self(ng_comm **comm);
void ng_comm_destroy(ng_comm *comm);

ng_status ng_comm_allreduce_sum(ng_context ctx, double *values, int n);
/* The same sum without waiting (pipelined CG, solver/pipecg.c): started,
 * then waited for before values is read; one in flight per context. */
ng_status ng_comm_iallreduce_sum_start(ng_context ctx, double *values, int n);
ng_status ng_comm_iallreduce_sum_wait(ng_context ctx);
/* all[r] = rank r's mine (all: size entries). */
ng_status ng_comm_allgather_int64(ng_context ctx, int64_t mine, int64_t *all);
/* The ranks of ctx on this rank's node (1 without MPI). */
int ng_comm_local_size(ng_context ctx);
/* Collective (comm/distribute.c): every rank passes its own status; all
 * return NG_SUCCESS when all succeeded, else the lowest failing rank's
 * status, with its message ("rank R: ...") on the ranks that did not fail
 * themselves. More collectives, the halo plan's insides: comm/halo.h. */
ng_status ng_comm_agree(ng_context ctx, ng_status st);

/* Global row ranges of every rank ("starts" has size+1 entries) for
 * ownership lookups and distribution of whole inputs (comm/partition.c). */
ng_status ng_partition_rows_by_nnz(ng_context ctx, const ng_csr *A, int64_t *starts);

/* The rank's GPU among ndev (comm/hwloc_bind.c): NG_DEVICE when set, else
 * the GPU nearest the rank's cores (hwloc), else local rank modulo ndev. */
ng_status ng_binding_pick_gpu(ng_context ctx, int ndev, int *device);

/* The options of comm/ (comm_options.c): -comm_transport. */
extern const ng_option_table ng_comm_options;

#ifdef __cplusplus
}
#endif
#endif /* NG_COMM_H */
