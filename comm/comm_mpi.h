/* comm/comm_mpi.h: the communicator's insides (the MPI communicator and
 * the request of the non-blocking sum) and NG_MPI_CHECK, for the files
 * that call MPI themselves. Brings mpi.h when built with MPI. */
#ifndef NG_COMM_MPI_H
#define NG_COMM_MPI_H
#include "comm.h"
#ifdef NG_HAVE_MPI
#include <mpi.h>
#endif

struct ng_comm {
  int rank, size;
  int local_rank, local_size; /* within the node (for GPU choice) */
#ifdef NG_HAVE_MPI
  MPI_Comm comm;     /* dup of MPI_COMM_WORLD */
  MPI_Request ireq;  /* the non-blocking sum in flight (pipelined CG) */
  int ireq_active;
#endif
};

#ifdef NG_HAVE_MPI
/* Turns an MPI return code into an ng_status naming the call. */
#define NG_MPI_CHECK(call)                                                          \
  do {                                                                              \
    int ng_mpi_rc_ = (call);                                                        \
    if (ng_mpi_rc_ != MPI_SUCCESS) {                                                \
      char ng_mpi_msg_[MPI_MAX_ERROR_STRING]; int ng_mpi_len_ = 0;                  \
      MPI_Error_string(ng_mpi_rc_, ng_mpi_msg_, &ng_mpi_len_);                      \
      return NG_ERROR(NG_ERR_MPI, "%s failed: %s", #call, ng_mpi_msg_);             \
    }                                                                               \
  } while (0)
#endif
#endif /* NG_COMM_MPI_H */
