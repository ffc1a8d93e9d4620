/* amg/amg.h: smoothed-aggregation AMG (METHODS.md section 4, seed 004),
 * or classical coarsening on one rank's host (-amg_coarsening classical,
 * amg_classical.c), shared by the amg_*.c files. The hierarchy is built on the host (OpenMP),
 * or on a GPU context its big levels on the device (amg_setup_cuda.cu,
 * -amg_setup gpu, the default there) and the small ones on the host;
 * every level's A, P and R is then an ng_spmv_ops table in the context's
 * memory space and every vector update goes through ctx->vops, so the one
 * V-cycle (amg_cycle.c) runs on the host or the GPU without a .cu file. */
#ifndef NG_AMG_H
#define NG_AMG_H
#include "../smoother/level.h" /* ng_smoother_level, ng_smoother_opts, ng_graph */
#ifdef __cplusplus
extern "C" { /* also included by amg_setup_cuda.cu */
#endif

/* Strong couplings m(a_ij) >= theta sqrt(|a_ii a_jj|), j != i (amg_strength.c),
 * with m(a) = |a|, or m(a) = -a when sgn (-amg_strength signed: a positive
 * coupling is never strong; meant for a positive diagonal). The same test
 * in amg_prolong.c (filter), amg_dist_*.c and amg_setup_cuda.cu. */
ng_status ng_amg_strength(const ng_csr *A, double theta, int sgn, ng_graph *S);
/* d[i] = sqrt |a_ii| (the strength test's and the filter's scale); a zero or
 * missing diagonal is an error (ng_csr_diagonal). */
ng_status ng_amg_sqrt_diagonal(const ng_csr *A, double *d);
#define NG_AMG_STRONG(a, theta, si, sj, sgn) (((sgn) ? -(a) : fabs(a)) >= (theta) * (si) * (sj))

/* Deterministic MIS(2) aggregation of the graph (amg_aggregate.c): agg[i] is
 * the aggregate of row i in 0..*nagg-1, or -1 for a row with no strong
 * neighbour (left to the smoother). */
ng_status ng_amg_aggregate(const ng_graph *S, int32_t *agg, int32_t *nagg);
/* One MIS(2) round's "max over the neighbours and itself": out[i] =
 * max(in[i], in[j] for j in N(i)) over the graph's rows (columns may
 * reach past them: the distributed graph's halo columns). */
void ng_amg_max_neighbours(const ng_graph *S, const uint64_t *in, uint64_t *out);
/* The same maximum only for the rows j with need[j] == stamp
 * (ng_amg_max_marked), or only for the rows listed in U[0..nu)
 * (ng_amg_max_listed): the late, sparse MIS(2) rounds (one-rank and
 * distributed). */
void ng_amg_max_marked(const ng_graph *S, const int32_t *need, int32_t stamp, const uint64_t *in, uint64_t *out);
void ng_amg_max_listed(const ng_graph *S, const int32_t *U, int64_t nu, const uint64_t *in, uint64_t *out);
/* The MIS(2) key of vertex i in state 0 (out), 1 (undecided), 2 (in):
 * state, a 30-bit hash of i, i; larger keys win. */
uint64_t ng_amg_mis_key(int state, uint32_t i);

/* Prolongation (amg_prolong.c). Tentative P from the constant vector:
 * ptent[i] = 1/sqrt(|aggregate|) (0 for agg -1), so P_tent^T P_tent = I. */
ng_status ng_amg_tentative(int32_t n, const int32_t *agg, int32_t nagg, double *ptent);
/* -amg_coarse_nullspace carried (smoothed aggregation as Vanek, Mandel
 * and Brezina: the near-null vector goes down the levels): ptent[i] =
 * b[i] / ||b on agg[i]|| (b NULL: ones, the finest level) and bc[J] =
 * ||b on aggregate J||, the next level's b, so P_tent bc = b on the
 * aggregated rows. ng_amg_tentative is the same with b = ones on every
 * level (the default, -amg_coarse_nullspace constant). */
ng_status ng_amg_tentative_carried(int32_t n, const int32_t *agg, int32_t nagg, const double *b, double *ptent,
                                   double *bc);
/* rho(D^-1 A) by Rayleigh quotients of D^-1/2 A D^-1/2: `iters` power
 * iterations from a fixed start vector (deterministic: the update repeats
 * the setup's estimate exactly for unchanged values). */
ng_status ng_amg_spectral_radius(const ng_csr *A, int iters, double *rho);
/* The same for the finest level, on the context's memory (v: a context
 * vector of n; warm: start from v instead, unused since the update starts
 * cold too). */
ng_status ng_amg_spectral_radius_ctx(ng_matrix A, int iters, double *v, int warm, double *rho);
/* Pattern of P = (I - omega D^-1 A) P_tent (columns sorted); values by
 * ng_amg_smooth_values, which update() calls again on new values. A2 (or
 * NULL): more columns of A's rows, numbered after A's (a distributed
 * level's off-rank block: its two blocks side by side, not copied). */
ng_status ng_amg_smooth_pattern(const ng_csr *A, const ng_csr *A2, const int32_t *agg, int32_t nagg, ng_csr *P);
/* filter > 0 (-amg_filter): smooth with A_F, A without the couplings that
 * are not strong at threshold `filter` (sgn as ng_amg_strength), each added
 * to its row's diagonal (the pattern stays A's: filtered entries are 0).
 * lump (or NULL): a value per row added to its diagonal first, before the
 * filter's (an uncoupled distributed level: the row's off-rank couplings,
 * which P does not read, so that P keeps the constant; amg_dist_local.c). */
ng_status ng_amg_smooth_values(const ng_csr *A, const int32_t *agg, const double *ptent, double omega,
                               double filter, int sgn, const double *lump, ng_csr *P);
/* The rows of ng_amg_smooth_values with sd (sqrt |a_jj| of every column
 * of [A | A2], read when filter > 0) given: A2 as in ng_amg_smooth_pattern
 * (the distributed P: own rows over own and halo columns,
 * amg_dist_prolong.c). Returns the first row with a zero diagonal, or -1. */
int32_t ng_amg_smooth_rows(const ng_csr *A, const ng_csr *A2, const int32_t *agg, const double *ptent, double omega,
                           double filter, int sgn, const double *sd, const double *lump, ng_csr *P);
/* T = A^T (pattern and values; rows of T sorted by column); perm (A->nnz
 * entries, may be NULL) receives where each entry of A went. */
ng_status ng_csr_transpose(const ng_csr *A, ng_csr *T, int64_t *perm);
/* Values of T = A^T again through perm, after A's values changed. */
void ng_csr_transpose_values(const ng_csr *A, const int64_t *perm, ng_csr *T);

/* Sparse-sparse product C = A B (amg_galerkin.c), pattern and values in one
 * pass (rows sorted by column when sorted); numeric recomputes the values
 * when A and B have new values in the same patterns. */
ng_status ng_spgemm(const ng_csr *A, const ng_csr *B, ng_csr *C, int sorted);
ng_status ng_spgemm_numeric(const ng_csr *A, const ng_csr *B, ng_csr *C);
/* The same with A's rows continued by A2's (columns numbered after A's;
 * NULL: A alone), as ng_amg_smooth_pattern's A2; B2 (or NULL) holds the
 * rows of B for A2's columns (B's rows after A's columns when NULL; C as
 * wide as the wider of B and B2). */
ng_status ng_spgemm2(const ng_csr *A, const ng_csr *A2, const ng_csr *B, const ng_csr *B2, ng_csr *C, int sorted);
ng_status ng_spgemm2_numeric(const ng_csr *A, const ng_csr *A2, const ng_csr *B, const ng_csr *B2, ng_csr *C);

/* Non-Galerkin sparsification (amg_sparsify.c): A = G without the
 * off-diagonal entries |g_ij| < tau min(|g_ii|, |g_jj|), each added to its
 * row's diagonal (row sums kept); map (G->nnz) says where every entry of G
 * went, for the values of an update. hybrid: as |g_ij| where either row is
 * a hybrid row (ng_amg_hybrid_row: its positive off-diagonal entries sum
 * past NG_AMG_HYBRID_POS |g_ii|), so that the sparsified operator stays
 * above the Galerkin one there (the W- and K-cycles: ng_amg_hybrid). */
#define NG_AMG_HYBRID_POS 0.05
int ng_amg_hybrid_row(const ng_csr *G, int32_t i, double gii);
ng_status ng_amg_sparsify(const ng_csr *G, double tau, int hybrid, ng_csr *A, int64_t **map);
void ng_amg_sparsify_values(const ng_csr *G, const int64_t *map, ng_csr *A);

/* -amg_sparsify_lump path (amg_sparsify_path.c): the same dropping, but a
 * weak negative coupling moves onto a path i - q - j of kept couplings
 * (A >= G: positive definite, row sums kept); paths: the terms an update
 * re-adds (src: the entry of G, at: 4 positions in A per term). */
typedef struct {
  int64_t n;
  int64_t *src, *at;
} ng_amg_lump_paths;
ng_status ng_amg_sparsify_path(const ng_csr *G, double tau, ng_csr *A, int64_t **map, ng_amg_lump_paths *paths);
void ng_amg_sparsify_path_values(const ng_csr *G, const int64_t *map, const ng_amg_lump_paths *paths, ng_csr *A);
void ng_amg_lump_paths_free(ng_amg_lump_paths *L);

/* Dense SPD inverse by Cholesky; for a symmetric matrix whose Cholesky
 * meets a (relatively) zero pivot, the pseudo-inverse of a positive
 * semidefinite matrix (dense_pinv.c); Gauss-Jordan with partial pivoting
 * otherwise (dense_chol.c). a is n x n row-major, overwritten by the inverse. */
ng_status ng_dense_inverse(int32_t n, double *a);
/* A Cholesky pivot s_i counts as zero when s_i <= NG_DENSE_PIVOT_RTOL a_ii
 * (a singular matrix's last pivot is round-off: about n eps a_ii). */
#define NG_DENSE_PIVOT_RTOL 1e-10
/* Moore-Penrose pseudo-inverse of a symmetric positive semidefinite a in
 * place (dense_pinv.c); *nullity: the null space's dimension found.
 * NG_ERR_NUMERIC (a untouched) when a is indefinite. */
ng_status ng_dense_pinv_semidefinite(int32_t n, double *a, int32_t *nullity);
/* Its steps, for a caller that spreads the row loops over ranks: the
 * factor L (1 when a is symmetric and positive definite), or its row i's
 * entries [j0, j1) (0: a diagonal not positive), rows [j0, j1) of
 * U = L^-T, rows [i0, i1) of U U^T (their parts j <= i, row i at a + (i -
 * i0) n), the mirror of the lower part; Gauss-Jordan in place otherwise. */
#define NG_DENSE_SPREAD_MIN 128 /* fewer rows or as many: the row loops on one thread, one rank */
/* 1 when a = a^T to rounding (relative 1e-8), made exactly symmetric; 0 (a untouched) otherwise */
int ng_dense_symmetrize(int32_t n, double *a);
int ng_dense_chol_row(int32_t n, const double *ai, double *L, int32_t i, int32_t j0, int32_t j1);
void ng_dense_chol_u(int32_t n, const double *L, double *U, int32_t j0, int32_t j1);
void ng_dense_chol_a(int32_t n, const double *U, double *a, int32_t i0, int32_t i1);
void ng_dense_mirror(int32_t n, double *a);
ng_status ng_dense_gauss_jordan(int32_t n, double *a);

/* Classical (Ruge-Stueben type) coarsening, -amg_coarsening classical
 * (one-rank host setup). Strength (amg_classical_strength.c): S_i = the j
 * that strongly influence i, -a_ij >= theta max_{k != i} (-a_ik); positive
 * couplings are weak. Not symmetric in general. */
ng_status ng_amg_classical_strength(const ng_csr *A, double theta, ng_graph *S);
/* T = S^T (who depends on each point), rows sorted. */
ng_status ng_graph_transpose(const ng_graph *S, ng_graph *T);
/* C/F splitting (amg_pmis.c): cf[i] = 1 (C) or -1 (F), *nc the C points.
 * PMIS (De Sterck, Yang, Heys 2006) with the measure |S^T_i| plus a hash of
 * i in [0, 1) (reproducible): the undecided local maxima over S + S^T become
 * C, then the undecided that depend strongly on a C point become F. A point
 * that influences and depends on nobody is F at once; a point left with no
 * undecided neighbour and no C influence becomes C, so every F point but the
 * isolated ones has a C point in S_i. */
ng_status ng_amg_pmis(const ng_graph *S, int8_t *cf, int32_t *nc);
/* HMIS on one rank (amg_hmis.c): the Ruge-Stueben first pass, greedy by
 * lambda_i = undecided + 2 F points depending on i; the same guarantees. */
ng_status ng_amg_hmis(const ng_graph *S, int8_t *cf, int32_t *nc);
/* The hash part of the PMIS measure of point i, in [0, 1). */
double ng_amg_pmis_random(int32_t i);
/* Interpolation from a C/F splitting (columns sorted, C points the
 * identity): extended+i (De Sterck, Falgout, Nolting, Yang 2008; hypre's
 * interp type 6, amg_interp_ext.c) or direct (Stueben, positive and
 * negative couplings apart, amg_interp_direct.c). pmax > 0: at most pmax
 * entries a row, the largest, scaled to the row's sum (amg_interp_rows.c). */
ng_status ng_amg_interp_extended(const ng_csr *A, const ng_graph *S, const int8_t *cf, int pmax, ng_csr *P);
/* Rows [0, nrows) of the extended+i P over a square A whose other rows
 * (a distributed level's halo rows, amg_dist_classical.c) serve as
 * neighbours only: cf and cidx (the coarse column of each C point) over all
 * of A's indices, nc P's columns, row0 the first row's global number (the
 * truncation's tie order). */
ng_status ng_amg_interp_extended_rows(const ng_csr *A, const ng_graph *S, const int8_t *cf, const int32_t *cidx,
                                     int32_t nrows, int64_t row0, int32_t nc, int pmax, ng_csr *P);
ng_status ng_amg_interp_direct(const ng_csr *A, const ng_graph *S, const int8_t *cf, int pmax, ng_csr *P);
/* Row building for both: cidx[i], the coarse index of C point i (-1 on F
 * points); truncate and sort one row's n entries in place, returning how
 * many are kept (equal weights ordered by a hash of row and column). */
ng_status ng_amg_coarse_index(int32_t n, const int8_t *cf, int32_t **cidx, int32_t *nc);
int ng_amg_interp_truncate(int32_t row, int32_t *col, double *val, int n, int pmax);
/* A P under construction: rows appended in order (buffers grow). */
typedef struct {
  ng_csr P;
  int64_t cap;
} ng_csr_builder;
ng_status ng_csr_builder_init(ng_csr_builder *B, int32_t n, int32_t nc, int64_t guess);
ng_status ng_csr_builder_append(ng_csr_builder *B, int32_t i, const int32_t *col, const double *val, int m);

/* One level of the hierarchy. Level 0's operator is the user's matrix.
 * s: what the smoother works on (smoother/level.h): the rows s.n, the
 * cycle's operator table s.Aops / s.Adata (level 0: none, or its own copy
 * of the matrix, amg_fine.c), s.rho, s.omega, the smoother's diagonal
 * s.dinv = omega / a_ii, the residual vector s.r and the smoother's state
 * s.sdata. */
typedef struct {
  ng_smoother_level s;
  ng_csr A;                      /* host operator (levels > 0; level 0 uses the matrix) */
  ng_csr G; int64_t *smap;       /* -amg_sparsify: the Galerkin product before sparsification
                                    and where its entries went in A (amg_sparsify.c) */
  ng_amg_lump_paths spaths;      /* -amg_sparsify_lump path: the path terms (amg_sparsify_path.c) */
  /* transfer to the next level (absent on the coarsest) */
  int32_t *agg; int32_t nagg;
  double *ptent;
  double *nullvec;               /* -amg_coarse_nullspace carried: this level's near-null vector (host;
                                    NULL on the finest: ones), from the level above (amg_prolong.c) */
  int64_t *rperm;                /* entry k of P is entry rperm[k] of R */
  double *lump;                  /* uncoupled distributed level: each own row's off-rank couplings
                                    summed, added to P's diagonal term (host; amg_dist_local.c) */
  ng_csr P, R, AP;               /* host; AP = A P kept for update */
  const ng_spmv_ops *Pops, *Rops; void *Pdata, *Rdata;
  double *x, *b;                 /* work vectors, context memory (unused on level 0) */
  double wscale, wlambda;        /* -amg_cycle w: the weight of the second coarse correction from
                                    this level and the lambda_max(B G) it came from (amg_wcycle.c); 1, 0 for V */
  double *kw[4];                 /* -amg_cycle k: the K-step's v1, r~, c2, v2 on this level (amg_kcycle.c) */
  int pre, post;                 /* smoothing sweeps (coarsest without -amg_coarse_solver direct: pre) */
  double seconds;                /* profiling: time spent on this level in cycles */
  double t_update[3];            /* profiling: the last update's rho, transfer and finish seconds */
  int gpu;                       /* aggregates, P, R, next A built on the GPU (amg_setup_cuda.cu) */
  int host_stale;                /* levels made by a GPU level: 1, A's host values are the setup's
                                    (an update refreshed only the device copy); 2, A has its sizes
                                    but no arrays (the setup did not download it: a GPU level reads
                                    the device copy). ng_amg_level_host makes the host copy current. */
  int host_taken;                /* an uncoupled distributed level's product: its host copy was taken
                                    by the coarse distributed matrix, whose update downloads the
                                    values into that matrix itself (amg_dist_local.c): the GPU
                                    update makes no host copy of its own */
} ng_amg_level;

/* -amg_dist_aggregation; auto: uncoupled on a GPU context while every rank
 * holds at least NG_AMG_UNCOUPLED_MIN_ROWS rows of the level */
enum { NG_AMG_DIST_AUTO, NG_AMG_DIST_COUPLED, NG_AMG_DIST_UNCOUPLED };
/* The sparsification's hybrid lumping (ng_amg_sparsify) for the cycles with
 * a second coarse correction: -amg_cycle w and k. */
#define ng_amg_hybrid(M) ((M)->cycle_gamma > 1 || (M)->kcycle)
#define NG_AMG_UNCOUPLED_MIN_ROWS 20000
/* -amg_telescope_rows -1 with the GPU setup: the first coarse level of at
 * most this many rows in all is gathered onto rank 0 (amg_dist_telescope.c) */
#define NG_AMG_TELESCOPE_GPU_ROWS 2000000

typedef struct {
  int nlevels, max_levels;
  int32_t coarse_size;
  ng_amg_level *L;               /* max_levels entries */
  ng_smoother_opts sopts;        /* -amg_smoother (sopts.ops, smoother.h) and its options */
  double theta, omega_opt;
  int classical;                 /* -amg_coarsening classical (amg_classical.c) */
  /* -amg_coarsening auto (amg.c's amg_adapt): aggregation, rebuilt as
   * classical when CG's mean reduction of ||r||_M^-1 per iteration over
   * the second half of its first auto_its iterations is above auto_rate
   * ((r, M^-1 r) < 0 counts as 1);
   * seen: CG's report (its 0: none yet); auto_switched: this classical
   * hierarchy is auto's */
  int coarsening_auto, auto_its, auto_switched;
  double auto_rate;
  ng_precond_report seen;
  ng_options saved_opts;         /* auto or classical: the setup's options, for a rebuild (amg.c) */
  double classical_theta;        /* -amg_classical_theta */
  int classical_pmax;            /* -amg_classical_pmax (0: no truncation) */
  int classical_direct;          /* -amg_classical_interp direct (else extended+i) */
  int classical_hmis;            /* -amg_classical_split hmis (else pmis) */
  double sparsify;               /* -amg_sparsify: coarse entries below this (relative) are lumped */
  int sparsify_path;             /* -amg_sparsify_lump path: onto paths of kept couplings (amg_sparsify_path.c) */
  int carry_nullspace;           /* -amg_coarse_nullspace carried: P_tent from the fine constant's coarse
                                    representation, not each level's constant (ng_amg_tentative_carried) */
  int strength_signed;           /* -amg_strength signed */
  int filter;                    /* -amg_filter: P smoothed with the filtered matrix */
  double theta_coarse;           /* -amg_theta_coarse: strength threshold of the levels after the finest (<0: theta) */
  int cycle_gamma;               /* -amg_cycle: coarse corrections per level, 1 (V) or 2 (W) */
  int kcycle;                    /* -amg_cycle k: the coarse corrections to levels >= 1 by FCG (amg_kcycle.c) */
  int coarse_direct;             /* coarsest by dense inverse (else smoother sweeps) */
  int coarse_sweeps;
  ng_csr coarse_inv;             /* dense inverse as a full CSR (host; the operator itself when the
                                    inverse is made on the GPU: amg_coarse_cuda.cu) */
  const ng_spmv_ops *Cops; void *Cdata;
  double *eigvec0;               /* finest level: power iteration buffer in context memory (when not on the device path) */
  char format[32];
  char fine_format[32];          /* -amg_fine_format: the finest level's operator in the cycle (amg_fine.c) */
  char fine_used[32];            /* the format L[0].Aops holds ("" when the cycle uses the matrix) */
  void *fine_dcsr;               /* GPU: the view of the matrix's device CSR it was converted from (amg_fine_cuda.cu) */
  ng_matrix fine_of;             /* the matrix L[0].Aops was made or refreshed from, and its values_seq then */
  uint64_t fine_seq;
  int profile;                   /* sync and time each level's cycle and update work (benchmarks only) */
  double setup_seconds, update_seconds;
  /* setup phases (seconds): strength + aggregation, rho estimates, smoothed
   * P and R, Galerkin products, dense coarse inverse + copies to the context */
  double t_aggregate, t_rho, t_prolong, t_galerkin, t_finish;
  int gpu_setup;                 /* big levels' setup on the GPU (-amg_setup gpu on a GPU context) */
  int32_t gpu_min_rows;          /* levels after the finest: on the GPU from this many rows */
  int host_threads;              /* OpenMP threads of the host setup / update (0: unchanged) */
  void *gpu;                     /* device state per level (amg_setup_cuda.cu) */
  double *rho_work;              /* device buffer of the rho estimates, kept for updates (amg_rho_cuda.cu) */
  int64_t rho_work_n;
  void *dist;                    /* several ranks: ng_amg_dlevel per level (amg_dist.h) */
  int64_t agglomerate_rows;      /* several ranks: fewest coarse rows per active rank */
  int dist_aggregation;          /* several ranks: NG_AMG_DIST_* (-amg_dist_aggregation, amg_dist_local.c) */
  int64_t telescope_rows;        /* several ranks: -amg_telescope_rows (0: never) */
  void *telescope;               /* several ranks: the levels gathered onto rank 0 (amg_dist_telescope.c), or NULL */
  ng_options opts;               /* during the setup only: its options (the gathered levels' AMG takes a copy) */
  double t_gpu;                  /* seconds of the setup (or last update) in the GPU part */
  int single;                    /* -amg_precision single: the cycle in FP32 (amg_single.c) */
  void *fp32;                    /* its float copies of the hierarchy (amg_single.c) */
  const struct ng_amg_value_ops *values; /* the cycle's value type, chosen once (ng_amg_values_*) */
  int use_graph;                 /* V-cycle as a CUDA graph (-amg_cuda_graph, one-rank GPU context) */
  void *graphs;                  /* the captured cycles (amg_graph_cuda.cu) */
} ng_amg;

/* Level l's transfer by classical coarsening (amg_classical.c): the C/F
 * splitting, P, R = P^T, A P and the Galerkin L[l + 1].A; *nc = 0 or
 * *nc > 0.9 n: no useful coarsening (nothing built). */
ng_status ng_amg_classical_level(ng_amg *M, const ng_csr *A, int l, int32_t *nc);

/* One V-cycle z = M(r) on the context's memory (amg_cycle.c). */
typedef ng_status (*ng_amg_cycle_fn)(ng_precond P, ng_amg *M, const double *r, double *z);

#ifdef NG_HAVE_CUDA
/* amg_setup_cuda.cu: level l on the GPU (level 0: the matrix's device CSR,
 * else level l - 1's device Galerkin product). aggregate: strength and MIS(2)
 * on the device (L[l].agg, .nagg: identical to the host's); transfer: P, R
 * (device SpMV tables of level l) and A_c (its host copy L[l + 1].A only
 * on demand: ng_amg_level_host), values only when refresh (the levels'
 * device state: amg_gpu_level.h). */
ng_status ng_amg_gpu_aggregate(ng_amg *M, ng_matrix A, int l);
ng_status ng_amg_gpu_transfer(ng_amg *M, ng_matrix A, int l, int refresh);
/* part 1: P and R (and their tables at the setup), part 2: the Galerkin
 * products, 3: both (ng_amg_gpu_transfer) */
ng_status ng_amg_gpu_transfer_part(ng_amg *M, ng_matrix A, int l, int refresh, int part);
/* part 2 on a thread of its own (the caller's device), joined by _wait,
 * which returns its status and message; the caller makes no CUDA call on
 * the context's stream in between */
ng_status ng_amg_gpu_products_start(ng_amg *M, ng_matrix A, int l, int refresh, void **job);
ng_status ng_amg_gpu_products_wait(void *job);
/* L->agg (host) from level l's device aggregates (the GPU setup keeps them on the device only). */
ng_status ng_amg_gpu_aggregates(ng_amg *M, int l);
/* rho(D^-1 A) of level l on the device by power iteration from the fixed
 * start vector: level 0 when the matrix is one rank's device CSR, a level
 * after a GPU level from that level's device product; *done = 0 otherwise. */
ng_status ng_amg_gpu_rho(ng_amg *M, ng_matrix A, int l, int iters, double *rho, int *done);
/* Forget level l's device state (the host builds it after NG_ERR_UNSUPPORTED). */
void ng_amg_gpu_drop(ng_amg *M, int l);
/* For the finest rho estimate: s = |a_ii|^-1/2 and (v != NULL) the start
 * vector on the device; *done = 0 when the matrix is not a device CSR. */
ng_status ng_amg_gpu_rho_init(ng_matrix A, double *s, double *v, int *done);
/* Setup: level l's A table (l > 0) as a device CSR copied from level l - 1's
 * device product; *done = 0 when -amg_format is not csr (make it from the host). */
ng_status ng_amg_gpu_coarse_table(ng_amg *M, int l, const ng_spmv_ops **ops, void **data, int *done);
/* Update: level l's A table (l > 0) from level l - 1's device product;
 * *done = 0 when not possible (the caller uploads the host copy). */
ng_status ng_amg_gpu_coarse_values(ng_amg *M, int l, const ng_spmv_ops *ops, void *data, int *done);
ng_status ng_amg_gpu_coarse_values_host(ng_amg *M, int l, double *val, int64_t nnz, int *done);
/* Level l's row offsets (nrows + 1, widened) from level l - 1's device product. */
ng_status ng_amg_gpu_coarse_rowptr(ng_amg *M, int l, int64_t *rowptr);
/* dinv = omega / a_ii of a GPU-built level, on the device */
ng_status ng_amg_gpu_dinv(ng_amg *M, int l, double omega, double *dinv);
/* amg_coarse_cuda.cu: the coarsest operator A's dense inverse computed on
 * the device into M->Cops / M->Cdata (a device CSR of the full pattern, made
 * when absent); *done = 0 when not done there (CPU context, several ranks,
 * -amg_format not csr, A not symmetric positive definite): the host's. */
ng_status ng_amg_gpu_coarse_inverse(ng_context ctx, ng_amg *M, const ng_csr *A, int *done);
/* Level l's host A from GPU level l - 1's device product (ng_amg_level_host). */
ng_status ng_amg_gpu_level_host(ng_amg *M, int l);
/* An uncoupled distributed level (amg_dist_local.c): lump, a value per row of
 * level l added to P's diagonal term, on the device (0 but vals[k] at
 * rows[k]; set before the transfer); prows: rows[0..cnt) of level l's device P into the host CSR
 * *out (made here; local coarse columns). */
ng_status ng_amg_gpu_lump(ng_amg *M, int l, const int32_t *rows, const double *vals, int32_t cnt);
/* amg_dist_offrank_cuda.cu: an uncoupled level's off-rank block of A_c
 * (rows nc + 1 offsets, global columns ascending, values: the host's
 * interface() in amg_dist_local.c) with everything level-sized on the
 * device; *state NULL: the setup, which makes it; else the values into its
 * patterns (an update). Collective; st: the caller's status, agreed. */
typedef struct ng_amg_doff ng_amg_doff;
ng_status ng_amg_gpu_offrank(ng_amg *M, int l, ng_matrix A, int64_t cbegin, int32_t nc, ng_status st,
                             ng_amg_doff **state, int64_t **orp, int64_t **ogc, double **oval);
void ng_amg_gpu_offrank_free(ng_amg_doff *S);
void ng_amg_gpu_free(ng_amg *M);
/* The distributed setup's local products T = C (A B) of host CSRs on the
 * device (T allocated at the first call, values only when *state exists:
 * the device keeps the patterns). NG_ERR_UNSUPPORTED: do it on the host. */
ng_status ng_amg_gpu_triple(ng_context ctx, const ng_csr *A, const ng_csr *B, const ng_csr *C, ng_csr *T, void **state);
void ng_amg_gpu_triple_free(void *state);
/* The same with A the level's device rows of the distributed GPU setup
 * (amg_dist_dx.cuh; their values refilled before an update's call). */
ng_status ng_amg_gpu_triple_dx(ng_context ctx, const void *dx, const ng_csr *B, const ng_csr *C, ng_csr *T,
                               void **state);
/* amg_graph_cuda.cu: run body(P, M, r, z) as a CUDA graph, captured on the
 * first call for this (r, z) and replayed after; *done = 0 when the cycle
 * cannot be captured (the caller runs it). free: drop the graphs (update,
 * destroy); the captured graphs: amg_graph.h. */
ng_status ng_amg_graph_cycle(ng_precond P, ng_amg *M, const double *r, double *z, ng_amg_cycle_fn body, int *done);
void ng_amg_graph_free(ng_amg *M);
#endif

/* amg_fine.c: level 0's own operator for the cycle (L[0].Aops) in
 * -amg_fine_format, or none (the matrix); refresh: its values again (in
 * place on the GPU, else converted again). */
ng_status ng_amg_fine_table(ng_context ctx, ng_amg *M, ng_matrix A, int refresh);
#ifdef NG_HAVE_CUDA
/* amg_fine_cuda.cu: a table in spec from the matrix's device CSR; the new
 * values of such a table from it in place (*done = 0: the table cannot,
 * convert again); the kept device CSR view freed. */
ng_status ng_amg_fine_create_dev(ng_context ctx, ng_amg *M, ng_matrix A, const char *spec, const ng_spmv_ops **ops,
                                 void **data);
ng_status ng_amg_fine_refresh_dev(ng_context ctx, ng_amg *M, ng_matrix A, const ng_spmv_ops *ops, void *data,
                                  int *done);
void ng_amg_fine_free_dev(ng_amg *M);
#endif

/* The cycle's arithmetic in one value type. amg_cycle.c runs one cycle
 * (V, W, K) over such a table; vectors are the type's, passed as void *.
 * double: the level tables and the smoother (amg_cycle.c); float
 * (-amg_precision single): the float copies of amg_single.c. M->values
 * holds the one chosen at the options. */
enum { NG_AMG_VEC_B, NG_AMG_VEC_X, NG_AMG_VEC_R };
typedef struct ng_amg_value_ops {
  const char *name;
  /* level 0's right-hand side and correction in this type: b holds r on
   * return, x is where the cycle writes z (the double table hands r and z
   * through, the float one converts r into its level-0 vectors) */
  ng_status (*enter)(ng_precond P, ng_amg *M, const double *r, double *z, const void **b, void **x);
  /* z from the cycle's x (nothing to do for double) */
  ng_status (*leave)(ng_precond P, ng_amg *M, const void *x, double *z);
  /* level l's smoother: post 0: x = S^sweeps b from x = 0; post 1: sweeps
   * more on x in the adjoint order */
  ng_status (*smooth)(ng_precond P, ng_amg *M, int l, int post, int sweeps, const void *b, void *x);
  /* the coarsest level's direct solve (M->coarse_direct): x = A_c^-1 b */
  ng_status (*coarsest)(ng_precond P, ng_amg *M, const void *b, void *x);
  /* r = b - A x on level l */
  ng_status (*residual)(ng_precond P, ng_amg *M, int l, const void *b, const void *x, void *r);
  /* bc = R r (level l to l + 1); x += w P xc (level l + 1 to l) */
  ng_status (*restrict_to)(ng_precond P, ng_amg *M, int l, const void *r, void *bc);
  ng_status (*prolong_add)(ng_precond P, ng_amg *M, int l, double w, const void *xc, void *x);
  /* level l's work vector NG_AMG_VEC_* */
  void *(*vec)(ng_amg *M, int l, int which);
  int kcycle; /* 1: -amg_cycle k's K-steps run in this type (double only) */
} ng_amg_value_ops;
extern const ng_amg_value_ops ng_amg_values_double, ng_amg_values_float;

/* amg_single.c (-amg_precision single): float copies of every level's A,
 * P, R, dinv and work vectors, made (again: refresh) from the double
 * hierarchy after its setup / update, for ng_amg_values_float. */
ng_status ng_amg_single_build(ng_context ctx, ng_amg *M, ng_matrix A);
void ng_amg_single_free(ng_context ctx, ng_amg *M);

/* amg_setup.c: level l's host operator L[l].A made current (downloaded when
 * the GPU setup left it on the device, host_stale above); every host reader
 * of a level l > 0 operator calls it first. */
ng_status ng_amg_level_host(ng_amg *M, int l);
/* The same as the smoother level's host_current (owner: the ng_amg). */
ng_status ng_amg_level_host_cb(void *M, int l);
/* amg_setup.c: an SpMV table for a host CSR in -amg_format (CSR when the
 * format refuses it); the coarsest operator's dense inverse as a full CSR
 * (_dense: the operator itself, dense, in M->coarse_inv). */
ng_status ng_amg_make_spmv(ng_context ctx, ng_amg *M, const ng_csr *X, const ng_spmv_ops **ops, void **data);
/* amg_setup.c: level l's smoothed P, R and Galerkin product L[l + 1].A on the
 * host from L[l].agg, .ptent (values only when refresh). */
ng_status ng_amg_host_transfer(ng_amg *M, const ng_csr *A, int l, int refresh);
/* level l's P and R tables from its host P and R (values only when refresh) */
ng_status ng_amg_transfer_tables(ng_context ctx, ng_amg *M, int l, int refresh);
ng_status ng_amg_coarse_inverse(ng_amg *M, const ng_csr *A);
ng_status ng_amg_coarse_dense(ng_amg *M, const ng_csr *A);
/* amg_setup.c: the smoother's dinv = omega / a_ii of level l in context
 * memory (allocated on the first call); also the distributed levels'. */
ng_status ng_amg_smoother_diagonal(ng_context ctx, ng_amg *M, int l, const ng_csr *A);
/* amg_setup.c: the strength threshold of level l (-amg_theta, -amg_theta_coarse after the finest) */
double ng_amg_level_theta(const ng_amg *M, int l);
/* amg_setup.c: NG_AMG_TRACE=1 (read once: ng_smoother_trace_on); ng_amg_trace waits for the
 * context's device, prints on rank 0 the milliseconds of level l's step
 * `what` since *t (stderr) and restarts *t; nothing when tracing is off. */
int ng_amg_trace_on(void);
void ng_amg_trace(ng_context ctx, const char *what, int l, double *t);
/* amg_setup.c: build the whole hierarchy for A / recompute its values. */
ng_status ng_amg_build(ng_precond P, ng_amg *M, ng_matrix A);
/* amg.c: the -amg_view memory line(s) into buf (chars written, at most len):
 * the matrix's storage, the hierarchy (P->mem_held) and the setup's peak
 * (P->mem_peak) in MB and bytes per unknown, this rank's (rank 0's in the
 * view). */
size_t ng_amg_describe_memory(ng_precond P, char *buf, size_t len);
ng_status ng_amg_refresh(ng_precond P, ng_amg *M, ng_matrix A);
void ng_amg_free(ng_context ctx, ng_amg *M);
/* amg_setup.c: drop the smoother's early level 0 work if setup did not take it */
void ng_amg_early_free(ng_amg *M);
/* amg_cycle.c: r = b - A x and y = alpha A x + beta y on level l (level 0:
 * the user's matrix), through the level's smoother view (smoother/level.h). */
ng_status ng_amg_residual(ng_precond P, ng_amg *M, int l, const double *b, const double *x, double *r);
ng_status ng_amg_level_apply(ng_precond P, ng_amg *M, int l, double alpha, const double *x, double beta, double *y);
/* amg_cycle.c: z = V-cycle(r) (a W-cycle with -amg_cycle w), context memory. */
ng_status ng_amg_vcycle(ng_precond P, ng_amg *M, const double *r, double *z);
/* amg_cycle.c: x = cycle(b) from level l down (x overwritten), on the
 * context's memory through level l's work vectors and those below. */
ng_status ng_amg_cycle_level(ng_precond P, ng_amg *M, int l, const double *b, double *x);
/* amg_wcycle.c: with -amg_cycle w, the weight of each level's second
 * coarse correction, L[l].wscale = min(1, 0.5 / (lambda_max(B G) - 1))
 * (the W-cycle stays positive definite with non-Galerkin coarse
 * operators); 1 everywhere for V. After the setup, after every update.
 * Collective under MPI. */
ng_status ng_amg_w_weights(ng_precond P, ng_amg *M);
/* amg_kcycle.c (-amg_cycle k): whether the correction to level l is a
 * K-step (l >= 1, not the coarsest); its work vectors allocated (after
 * the setup; nothing when not K) and freed; e = K-step(r) on level l: at
 * most two FCG iterations on A_l e = r preconditioned by the cycle from
 * level l. Collective under MPI. */
int ng_amg_k_level(const ng_amg *M, int l);
ng_status ng_amg_k_setup(ng_precond P, ng_amg *M);
void ng_amg_k_free(ng_context ctx, ng_amg *M);
ng_status ng_amg_k_step(ng_precond P, ng_amg *M, int l, const double *r, double *e);
/* amg_cycle.c: how many coarse corrections the cycle makes from level l,
 * 1 or 2. */
int ng_amg_coarse_visits(const ng_amg *M, int l);

/* For benchmarks and tests: the hierarchy behind an "amg" preconditioner
 * (NULL for another kind), and per-level cycle timing (syncs each level). */
void *ng_amg_of(ng_precond P);
ng_status ng_amg_describe(ng_precond P, char *buf, size_t len);
/* The options of amg/ (amg_options.c). */
extern const ng_option_table ng_amg_strength_options, ng_amg_hierarchy_options, ng_amg_cycle_options;

#ifdef __cplusplus
}
#endif
#endif
