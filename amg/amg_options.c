/* amg/amg_options.c: the options of the AMG hierarchy (amg.c's read_options):
 * strength, coarsening and coarse operators, then the cycle, the coarse solve
 * and the setup's placement. Rows as in core/options.h; options_registry.c
 * places the tables in -help's order. */
#include "amg.h"

/* strength of connection */
static const ng_option_def ng_amg_strength_options_rows[] = {
  {"amg_theta", NG_OPT_REAL, "0.025", NULL, 1,
   "AMG strength threshold: j is a strong neighbour of i when -a_ij >= theta sqrt(|a_ii a_jj|) (the default "
   "-amg_strength signed: positive couplings are weak), or |a_ij| >= ... with -amg_strength abs; lap27 needs "
   "theta < 1/26"},
};
const ng_option_table ng_amg_strength_options = NG_OPTION_TABLE(ng_amg_strength_options_rows);

/* coarse operators, the cycle's shape, the coarsening */
static const ng_option_def ng_amg_hierarchy_options_rows[] = {
  {"amg_sparsify", NG_OPT_REAL, "0.015", NULL, 1, "AMG non-Galerkin sparsification: coarse-operator entries |a_ij| < tau min(|a_ii|, |a_jj|) are dropped and added to the diagonal, keeping row sums (0: none)"},
  {"amg_sparsify_lump", NG_OPT_STRING, "diagonal", "diagonal|path", 0, "AMG where -amg_sparsify puts a dropped negative coupling: diagonal (row sums kept; can make a coarse operator indefinite) or path (onto kept couplings through a common neighbour: row sums kept and the coarse operator stays positive definite; one-rank host setup)"},
  {"amg_coarse_nullspace", NG_OPT_STRING, "constant", "constant|carried", 0, "AMG near-null vector of the tentative prolongators below the finest: constant (each level's own constant vector) or carried (the fine constant's coarse representation, Vanek-Mandel-Brezina: exact across aggregates of different sizes; one-rank host setup)"},
  {"amg_strength", NG_OPT_STRING, "signed", "signed|abs", 0, "AMG strength measure: signed (-a_ij >= theta sqrt(|a_ii a_jj|): positive couplings are weak) or abs (|a_ij|)"},
  {"amg_filter", NG_OPT_BOOL, "1", NULL, 0, "AMG smooths the prolongator with the filtered matrix (weak couplings added to the diagonal)"},
  {"amg_cycle", NG_OPT_STRING, "v", "v|w|k", 0, "AMG cycle: v (one coarse correction per level), w (two: stronger on 2D problems and jumps, e.g. het5, rotaniso; more work on the coarse levels) or k (K-cycle: on each level below the finest, up to two flexible-CG iterations preconditioned by the cycle; a nonlinear preconditioner, CG then uses its flexible form)"},
  {"amg_theta_coarse", NG_OPT_REAL, "-1", NULL, 0, "AMG strength threshold of the levels after the finest (negative: -amg_theta)"},
  {"amg_coarsening", NG_OPT_STRING, "auto", "auto|aggregation|classical", 0,
   "AMG hierarchy: auto (aggregation, rebuilt as classical when CG or pipelined CG (the residual's M^-1 norm), "
   "GMRES, FGMRES or BiCGSTAB (its 2-norm) reduced the residual by less than -amg_auto_rate per iteration over "
   "the first -amg_auto_its iterations of a solve; the solve goes on from its iterate, the choice holds for later "
   "solves and updates), aggregation (smoothed aggregation) or classical (Ruge-Stueben type: PMIS C/F splitting with "
   "the classical strength -amg_classical_theta and -amg_classical_interp interpolation, R = P^T, Galerkin coarse "
   "operators without sparsification; a host setup: on a GPU context the levels are made on the host and the "
   "cycle runs on the device; across MPI ranks the one-rank hierarchy, with pmis and ext+i only; an update of the "
   "values sets it up again)"},
  {"amg_auto_rate", NG_OPT_REAL, "-1", NULL, 0,
   "AMG -amg_coarsening auto: rebuild as classical when the solver's mean reduction of ||r|| per iteration "
   "(CG: ||r||_M^-1) is "
   "above this (-1: 0.35 on a CPU context, 0.98 on a GPU context, where the classical setup runs on the host: "
   "1-2 us a row, longer than hundreds of aggregation's iterations on the device)"},
  {"amg_auto_its", NG_OPT_INT, "-1", NULL, 0,
   "AMG -amg_coarsening auto: solver iterations before the verdict, judged on the second half of them (2 to 1000; "
   "-1: 8 on a CPU context, 100 on a GPU context)"},
  {"amg_classical_theta", NG_OPT_REAL, "0.25", NULL, 1,
   "AMG classical coarsening: j strongly influences i when -a_ij >= theta max_k(-a_ik) over i's off-diagonals "
   "(positive couplings are weak)"},
  {"amg_classical_interp", NG_OPT_STRING, "ext+i", "ext+i|direct", 0,
   "AMG classical coarsening: interpolation ext+i (extended+i: from the C points of i and of its strong F "
   "neighbours) or direct (from i's strong C points, negative and positive couplings apart)"},
  {"amg_classical_split", NG_OPT_STRING, "pmis", "pmis|hmis", 0,
   "AMG classical coarsening: C/F splitting pmis (independent sets of the largest measure, in parallel rounds) "
   "or hmis (on one rank the Ruge-Stueben first pass: greedy, fewer C points on structured grids)"},
  {"amg_classical_pmax", NG_OPT_INT, "4", NULL, 1,
   "AMG classical coarsening: at most this many interpolation weights a row, the largest, scaled to keep the "
   "row sum (0: no truncation)"},
};
const ng_option_table ng_amg_hierarchy_options = NG_OPTION_TABLE(ng_amg_hierarchy_options_rows);

/* sweeps, levels, coarse solve, storage, setup placement, view */
static const ng_option_def ng_amg_cycle_options_rows[] = {
  {"amg_presweeps", NG_OPT_INT, "2", NULL, 1, "AMG smoothing sweeps before the coarse correction"},
  {"amg_postsweeps", NG_OPT_INT, "2", NULL, 1, "AMG smoothing sweeps after the coarse correction"},
  {"amg_coarse_size", NG_OPT_INT, "500", NULL, 1, "AMG stops coarsening below this many rows"},
  {"amg_max_levels", NG_OPT_INT, "20", NULL, 1, "AMG maximum number of levels"},
  {"amg_agglomerate_rows", NG_OPT_INT, "0", NULL, 1, "AMG under MPI: a coarse level with fewer rows per rank than this moves onto fewer ranks (groups of 2, 4, ...); the coarsest, when small enough for the dense solve, onto rank 0; 0: 30000 on GPUs (where a small level costs its exchanges' latency), 1000 on CPUs"},
  {"amg_coarse_solver", NG_OPT_STRING, "direct", "direct|smoother", 0, "AMG coarsest-level solver: direct, smoother"},
  {"amg_coarse_sweeps", NG_OPT_INT, "30", NULL, 1, "AMG smoother sweeps on the coarsest level (-amg_coarse_solver smoother)"},
  {"amg_sweeps", NG_OPT_STRING, "", NULL, 0, "AMG graded sweeps per level, finest first, e.g. 4,3,2,1 (overrides pre/post)"},
  {"amg_format", NG_OPT_STRING, "csr", NULL, 0, "AMG storage format of every level's A, P, R"},
  {"amg_precision", NG_OPT_STRING, "double", "single|double", 0, "AMG V-cycle precision: single stores the hierarchy's matrices and smoother vectors in FP32 and runs the cycle in FP32 inside the FP64 solver (Jacobi smoother, csr levels, finest level csr/dia/dia_half)"},
  {"amg_fine_format", NG_OPT_STRING, "auto", NULL, 0, "AMG finest level's operator in the V-cycle: auto (dia_half, else dia, on a one-rank GPU context; the matrix elsewhere), matrix, or a format (the matrix when it refuses)"},
  {"amg_setup", NG_OPT_STRING, "gpu", "gpu|host", 0, "AMG setup of the big levels on the GPU (GPU context; one rank: the whole setup, their P and R in csr; several ranks: the aggregation, P and the local Galerkin products on each rank's GPU) or all on the host"},
  {"amg_telescope_rows", NG_OPT_INT, "-1", NULL, 0, "AMG under MPI: the first level below the finest with at most this many rows in all is gathered onto rank 0, where a one-rank AMG (the one-rank setup, on the GPU when the context is there) makes the rest of the hierarchy and serves as that level's coarse solve; V- and K-cycles; -1 (the default): 2000000 with the GPU setup (on 2 H200s lap27:256's setup again took 0.161 s against 0.271 s with the levels distributed: doc/performance.md), never on CPUs; 0: never"},
  {"amg_dist_aggregation", NG_OPT_STRING, "auto", "auto|coupled|uncoupled", 0, "AMG under MPI: coupled aggregates across the ranks' boundaries (MIS(2) over the global graph, P reading off-rank rows), or uncoupled (each rank coarsens its own block with the one-rank setup; P and R without exchanges, the off-rank couplings in A_c's off-rank block); auto: the finest level uncoupled on GPUs when every rank holds at least 20000 of its rows, the coarser ones coupled"},
  {"amg_gpu_min_rows", NG_OPT_INT, "5000", NULL, 1, "AMG GPU setup: coarse levels with at least this many rows are also built on the GPU"},
  {"amg_host_threads", NG_OPT_INT, "0", NULL, 1, "AMG OpenMP threads of the host-side setup and update; 0: as OpenMP decides on a CPU context, on a GPU context half of this rank's share of the node's cores (the cores over the ranks on the node) unless OMP_NUM_THREADS is set"},
  {"amg_cuda_graph", NG_OPT_BOOL, "0", NULL, 0, "AMG V-cycle captured once per (r, z) pair and replayed as a CUDA graph (one-rank GPU context; byte-identical to the plain cycle)"},
  {"amg_view", NG_OPT_FLAG, "0", NULL, 0, "print the AMG hierarchy after setup (rank 0)"},
};
const ng_option_table ng_amg_cycle_options = NG_OPTION_TABLE(ng_amg_cycle_options_rows);
