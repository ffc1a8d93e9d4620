/* smoother/smoother_options.c: the options of the AMG smoothers and their
 * coloring (read by amg/amg.c's read_options into the hierarchy). Rows as in
 * core/options.h; amg/options_registry.c places the tables in -help's order. */
#include "smoother.h"

/* the method, its coloring and its polynomial */
static const ng_option_def ng_smoother_options_rows[] = {
  {"amg_smoother", NG_OPT_STRING, "auto", NULL, 0,
   "AMG smoother: auto (jacobi under cg, mcgs under bicgstab, gmres and fgmres), jacobi (damped), mcgs (multicolor "
   "Gauss-Seidel, colors forward before and backward after the coarse "
   "correction), mmcgs (modified MCGS: colors of the strong couplings only, deterministic), chebyshev (polynomial in "
   "D^-1 A); under MPI mcgs and mmcgs color each rank's block and read the off-rank values once per sweep"},
  {"amg_mmcgs_theta", NG_OPT_REAL, "0.1", NULL, 1, "AMG mmcgs: couplings |a_ij| > theta |a_ii| are strong (colored apart); weaker ones inside a color read the values from before the color's update"},
  {"amg_coloring", NG_OPT_STRING, "natural", "natural|hash", 0,
   "AMG mcgs/mmcgs: order of the finest level's greedy coloring: natural (row order: 8 colors on 27-point "
   "grids) or hash (random order, JPL: about 17 colors, a stronger sweep); coarse levels largest degree first"},
  {"amg_mcgs_coarse", NG_OPT_STRING, "mcgs", "mcgs|mmcgs", 0,
   "AMG mcgs: the levels below the finest color every coupling (mcgs) or only the strong ones "
   "(mmcgs, -amg_mmcgs_theta): far fewer colors and launches on the coarse levels"},
  {"amg_mcgs_values", NG_OPT_STRING, "double", "double|single", 0,
   "AMG mcgs/mmcgs on a GPU: the big levels' per-color blocks (a launch per color) hold their values in FP64 "
   "(double) or FP32 (single: half the bytes of a color-DIA sweep; vectors and sums stay FP64)"},
  {"amg_smoother_setup", NG_OPT_STRING, "device", "device|host", 0,
   "AMG mcgs/mmcgs on a GPU context: colors and per-color blocks built on the device from the level's device CSR "
   "(device) or on the host and uploaded (host, the reference)"},
  {"amg_cheby_degree", NG_OPT_INT, "2", NULL, 1, "AMG chebyshev: polynomial degree of one sweep (SpMVs per sweep; the first sweep from zero saves one)"},
  {"amg_cheby_ratio", NG_OPT_REAL, "10", NULL, 1, "AMG chebyshev: the polynomial is smallest over [lmax / ratio, lmax], lmax = 1.1 rho(D^-1 A)"},
};
const ng_option_table ng_smoother_options = NG_OPTION_TABLE(ng_smoother_options_rows);

/* the damping of every smoother */
static const ng_option_def ng_smoother_damping_options_rows[] = {
  {"amg_omega", NG_OPT_REAL, "0", NULL, 1, "AMG smoother damping (0: from the spectrum)"},
};
const ng_option_table ng_smoother_damping_options = NG_OPTION_TABLE(ng_smoother_damping_options_rows);
