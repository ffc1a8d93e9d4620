/* fortran/nagare_fortran.c: the one piece of the Fortran bindings that
 * cannot be written in Fortran: turning a Fortran MPI communicator (an
 * INTEGER handle, or type(MPI_Comm)%MPI_VAL of mpi_f08) into a C MPI_Comm. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "nagare.h"
#ifdef NG_HAVE_MPI
#include <mpi.h>
#endif

ng_status ng_fortran_context_create_comm(const char *resource, int fcomm, ng_context *ctx);

ng_status ng_fortran_context_create_comm(const char *resource, int fcomm, ng_context *ctx)
{
#ifdef NG_HAVE_MPI
  MPI_Comm comm = MPI_Comm_f2c((MPI_Fint)fcomm);
  return ng_context_create_comm(resource, &comm, ctx); /* duplicated inside */
#else
  return ng_context_create_comm(resource, &fcomm, ctx); /* NG_ERR_UNSUPPORTED */
#endif
}
