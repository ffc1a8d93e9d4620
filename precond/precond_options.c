/* precond/precond_options.c: the options of the preconditioner registry
 * (precond.c) and of Jacobi (jacobi.c). Rows as in core/options.h;
 * amg/options_registry.c places the tables in -help's order. */
#include "precond.h"

/* the preconditioner */
static const ng_option_def ng_precond_options_rows[] = {
  {"precond", NG_OPT_STRING, "jacobi", NULL, 0, "preconditioner of every solver: none, jacobi, amg"},
};
const ng_option_table ng_precond_options = NG_OPTION_TABLE(ng_precond_options_rows);

/* Jacobi */
static const ng_option_def ng_jacobi_options_rows[] = {
  {"jacobi_omega", NG_OPT_REAL, "1.0", NULL, 1, "Jacobi damping: z = omega D^-1 r"},
};
const ng_option_table ng_jacobi_options = NG_OPTION_TABLE(ng_jacobi_options_rows);
