/* solver/solver_options.c: the options of the Krylov solvers (solver.c reads
 * them in ng_solver_create): the method, GMRES's restart, the stopping tests
 * and the monitor. Rows as in core/options.h; amg/options_registry.c places
 * the tables in -help's order. */
#include "solver.h"

/* the method */
static const ng_option_def ng_solver_options_rows[] = {
  {"solver", NG_OPT_STRING, "pcg", NULL, 0,
   "Krylov method: cg (SPD), bicgstab, gmres, fgmres (flexible GMRES: for a preconditioner that changes between "
   "applications), pipecg (pipelined CG: one non-blocking allreduce an iteration behind the SpMV); pcg and "
   "pbicgstab are other names of cg and bicgstab"},
};
const ng_option_table ng_solver_options = NG_OPTION_TABLE(ng_solver_options_rows);

/* GMRES and FGMRES */
static const ng_option_def ng_gmres_options_rows[] = {
  {"gmres_restart", NG_OPT_INT, "30", NULL, 1,
   "GMRES/FGMRES restart m: Krylov vectors kept per cycle (1 to 1000; memory m + 1 vectors, FGMRES 2m + 1)"},
};
const ng_option_table ng_gmres_options = NG_OPTION_TABLE(ng_gmres_options_rows);

/* stopping tests, null space, monitor and the one-reduction CG */
static const ng_option_def ng_krylov_options_rows[] = {
  {"tol", NG_OPT_REAL, "1e-8", NULL, 1, "relative tolerance: stop when ||r|| <= tol * ||b|| (or ||r0||, see -norm)"},
  {"atol", NG_OPT_REAL, "0", NULL, 1, "absolute tolerance: stop when ||r|| <= atol"},
  {"maxit", NG_OPT_INT, "1000", NULL, 1, "maximum number of iterations"},
  {"norm", NG_OPT_STRING, "b", "b|r0", 0, "-tol is relative to ||b|| (b) or to the initial residual (r0)"},
  {"divtol", NG_OPT_REAL, "1e4", NULL, 1, "diverged when ||r|| > divtol * ||r0|| (every solver; PETSc's default)"},
  {"null_space", NG_OPT_STRING, "none", "none|constant", 0,
   "null space of a singular A (and A^T), e.g. a pure-Neumann pressure Poisson: constant. The solvers remove b's "
   "component in it (reported as the rhs inconsistency), keep the iterates orthogonal to it and return the "
   "minimum-norm solution; -tol is then relative to the projected ||b||"},
  {"monitor", NG_OPT_FLAG, "0", NULL, 0, "print the iteration and residual norm (rank 0)"},
  {"cg_single_reduction", NG_OPT_BOOL, "0", NULL, 0,
   "on several ranks, cg with no or a diagonal preconditioner sums its dot products in one allreduce an "
   "iteration (Chronopoulos-Gear; for networks where an allreduce costs more than two vector passes)"},
};
const ng_option_table ng_krylov_options = NG_OPTION_TABLE(ng_krylov_options_rows);
