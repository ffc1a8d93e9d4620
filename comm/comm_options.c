/* comm/comm_options.c: the options of comm/: the halo transport between
 * ranks (read by the programs, applied by ng_context_set_transport). Rows as
 * in core/options.h; amg/options_registry.c places the table in -help's order. */
#include "comm.h"

/* the halo transport */
static const ng_option_def ng_comm_options_rows[] = {
  {"comm_transport", NG_OPT_STRING, "", NULL, 0,
   "halo transport between ranks: auto (ipc on one node, cuda_mpi across nodes when MPI is CUDA-aware, else host), "
   "host, ipc, cuda_mpi; empty: NG_COMM_TRANSPORT, else auto"},
};
const ng_option_table ng_comm_options = NG_OPTION_TABLE(ng_comm_options_rows);
