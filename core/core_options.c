/* core/core_options.c: the options of core/ that every program shares: the
 * generated problem and the Matrix Market files that the programs read and
 * write (core/generate.c, core/mmio.c), and -help. Rows: name, type,
 * default, choices, nonneg, help (core/options.h); amg/options_registry.c
 * places the tables in -help's order. */
#include "core.h"

/* the programs' input and output */
static const ng_option_def ng_io_options_rows[] = {
  {"problem", NG_OPT_STRING, "fem27:32", NULL, 0, "generated problem when no matrix file is given: NAME:N (N^3 nodes) or NAME:NXxNYxNZ with NAME fem27, "
   "lap7, lap27, aniso27 or elast27 (3D elasticity, 3 unknowns a node); mps:N; het7:N, het5:N, rotaniso:N, "
   "rotaniso3:N (hard coefficients); stretch7:N[:ratio], jump2q1:N, jump3q1:N, bubbles7:N, bubbles5:N, "
   "spheres7:N, layers7:N, p1tet:N (CFD classes: stretched grid, jumps with rotated anisotropy in 2D and 3D, "
   "two-phase density in 3D and 2D, inclusions, layered permeability, P1 tetrahedra of jittered points); "
   "lap7:N:neumann, "
   "lap27:N:neumann (singular)"},
  {"o", NG_OPT_STRING, "", NULL, 0, "write the solution x to this file (Matrix Market array)"},
  {"rhs", NG_OPT_STRING, "", NULL, 0, "right-hand side file (Matrix Market array)"},
};
const ng_option_table ng_io_options = NG_OPTION_TABLE(ng_io_options_rows);

/* -help, the last line of the list */
static const ng_option_def ng_help_options_rows[] = {
  {"help", NG_OPT_FLAG, "0", NULL, 0, "list the options and exit"},
};
const ng_option_table ng_help_options = NG_OPTION_TABLE(ng_help_options_rows);
