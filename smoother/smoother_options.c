/* smoother/smoother_options.c: the options of the AMG smoothers and their
 * coloring: their rows (as in core/options.h; amg/options_registry.c places
 * the tables in -help's order) and their reading into level.h's
 * ng_smoother_opts (ng_smoother_read_options, called by amg/amg.c):
 * -amg_smoother jacobi|mcgs|mmcgs|chebyshev|auto, -amg_omega,
 * -amg_mmcgs_theta, -amg_coloring, -amg_mcgs_coarse, -amg_mcgs_values,
 * -amg_mcgs_coop_entries, -amg_smoother_setup, -amg_cheby_degree,
 * -amg_cheby_ratio. */
#include "smoother.h"
#include "../solver/solver.h" /* the method's symmetry, for -amg_smoother auto */

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
  {"amg_mcgs_coop_entries", NG_OPT_INT, "4000000", NULL, 1,
   "AMG mcgs/mmcgs on a GPU: levels of at most this many block entries sweep in one cooperative launch (a "
   "grid-wide barrier between colors), bigger ones a launch per color; 0: every level a launch per color"},
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

/* -amg_smoother auto: the Krylov method tells what the matrix is likely to
 * be. Under bicgstab, gmres and fgmres (nonsymmetric systems, often
 * convection-dominated) Jacobi-smoothed AMG falls apart as convection grows
 * and multicolor Gauss-Seidel holds (2D upwind convection-diffusion, 200^2,
 * CPU, tol 1e-8; iterations jacobi / mcgs: Peclet 10: bicgstab 7 / 6, gmres
 * 12 / 11; Peclet 100: 8 / 6, 14 / 12; Peclet 1000: bicgstab diverged / 12,
 * gmres not converged in 2000 / 20). Under cg (and any preconditioner made
 * on its own, -solver's default being cg) Jacobi, the measured fastest on
 * SPD stencils (doc/performance.md), stays; so does an FP32 hierarchy, which
 * takes Jacobi only. */
static ng_status auto_smoother(ng_options opts, const char **smoother)
{
  const char *solver = "", *precision = "";
  NG_CHECK(ng_options_get_string(opts, "solver", &solver));
  NG_CHECK(ng_options_get_string(opts, "amg_precision", &precision));
  const ng_solver_ops *method = ng_solver_find(solver); /* NULL: an unknown name, refused by the solver */
  int nonsymmetric = method && !method->symmetric;
  *smoother = nonsymmetric && strcmp(precision, "single") ? "mcgs" : "jacobi";
  return NG_SUCCESS;
}

ng_status ng_smoother_read_options(ng_options opts, ng_smoother_opts *o)
{
  const char *s, *smoother;
  NG_CHECK(ng_options_get_real(opts, "amg_omega", &o->omega));
  NG_CHECK(ng_options_get_string(opts, "amg_smoother", &smoother));
  if (!strcmp(smoother, "auto")) NG_CHECK(auto_smoother(opts, &smoother));
  o->ops = ng_smoother_find(smoother);
  if (!o->ops)
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_smoother '%s' is not available (known: jacobi, mcgs, mmcgs, chebyshev)",
                    smoother);
  NG_CHECK(ng_options_get_real(opts, "amg_mmcgs_theta", &o->mmcgs_theta));
  NG_CHECK(ng_options_get_string(opts, "amg_coloring", &s));
  if (!strcmp(s, "natural")) o->coloring = NG_COLOR_NATURAL;
  else if (!strcmp(s, "hash")) o->coloring = NG_COLOR_HASH;
  else return NG_ERROR(NG_ERR_ARGUMENT, "-amg_coloring '%s' is not available (known: natural, hash)", s);
  NG_CHECK(ng_options_get_string(opts, "amg_mcgs_coarse", &s));
  if (strcmp(s, "mcgs") && strcmp(s, "mmcgs"))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_mcgs_coarse '%s' is not available (known: mcgs, mmcgs)", s);
  o->mcgs_coarse_strong = !strcmp(s, "mmcgs");
  NG_CHECK(ng_options_get_string(opts, "amg_mcgs_values", &s));
  if (strcmp(s, "double") && strcmp(s, "single"))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_mcgs_values '%s' is not available (known: double, single)", s);
  o->mcgs_single = !strcmp(s, "single");
  NG_CHECK(ng_options_get_int(opts, "amg_mcgs_coop_entries", &o->mcgs_coop_entries));
  NG_CHECK(ng_options_get_string(opts, "amg_smoother_setup", &s));
  if (strcmp(s, "device") && strcmp(s, "host"))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_smoother_setup '%s' is not available (known: device, host)", s);
  o->host_setup = !strcmp(s, "host");
  NG_CHECK(ng_options_get_int(opts, "amg_cheby_degree", &o->cheby_degree));
  NG_CHECK(ng_options_get_real(opts, "amg_cheby_ratio", &o->cheby_ratio));
  if (o->cheby_degree < 1 || o->cheby_degree > 32)
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_cheby_degree %d must be in 1..32", o->cheby_degree);
  if (!(o->cheby_ratio > 1.0)) return NG_ERROR(NG_ERR_ARGUMENT, "-amg_cheby_ratio %g must be > 1", o->cheby_ratio);
  return NG_SUCCESS;
}
