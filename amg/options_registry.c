/* amg/options_registry.c: every component's option tables, in the order that
 * -help, the man page and the user guide's option reference list them. The
 * tables live with the components that read them (core/options.h); core/,
 * the lowest layer, cannot name them, so this one file at the top of the
 * layers (amg/ may include every folder below it) does, and core/options.c
 * reads the list at ng_options_create. A component's options come in more
 * than one table where -help shows them apart (the solver's method first,
 * its stopping tests after -format): a new option goes into its component's
 * table, and here only a new table. */
#include "../comm/comm.h"
#include "../dist/dist.h"
#include "../precond/precond.h"
#include "../smoother/smoother.h"
#include "../solver/solver.h"
#include "../spmv/spmv.h"
#include "amg.h"

const ng_option_table *const ng_option_registry[] = {
  &ng_solver_options,           /* -solver */
  &ng_precond_options,          /* -precond */
  &ng_gmres_options,            /* -gmres_restart */
  &ng_spmv_options,             /* -format, -csr_spmv_alg */
  &ng_krylov_options,           /* -tol ... -cg_single_reduction */
  &ng_jacobi_options,           /* -jacobi_omega */
  &ng_device_options,           /* -device */
  &ng_comm_options,             /* -comm_transport */
  &ng_io_options,               /* -problem, -o, -rhs */
  &ng_amg_strength_options,     /* -amg_theta */
  &ng_smoother_options,         /* -amg_smoother ... -amg_cheby_ratio */
  &ng_amg_hierarchy_options,    /* -amg_sparsify ... -amg_classical_pmax */
  &ng_smoother_damping_options, /* -amg_omega */
  &ng_amg_cycle_options,        /* -amg_presweeps ... -amg_view */
  &ng_help_options,             /* -help */
  NULL,
};
