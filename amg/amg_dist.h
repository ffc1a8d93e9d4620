/* amg/amg_dist.h: smoothed-aggregation AMG as one hierarchy across MPI
 * ranks (METHODS.md sections 4 and 5), used when the context has more than
 * one rank. Every level is a distributed matrix with its own halo plan;
 * aggregates are found on the global strength graph (MIS(2) keyed by global
 * indices, so the aggregates are those of one rank) and owned by the rank of
 * their root; P is a rectangular distributed matrix whose halo fetches the
 * coarse values it reads (prolongation), R = P^T is P's two blocks
 * transposed plus the reverse exchange that adds contributions at the owners
 * (restriction); the Galerkin product R (A P) fetches the off-rank rows of P
 * once per setup (their values at an update) and sends each coarse row's
 * partial sums to its owner. Small levels are agglomerated onto fewer ranks
 * (coarse rows of each group of ranks owned by its first rank, the others
 * holding none), the coarsest one onto rank 0 for the dense solve. The level
 * operators, P and R are ng_spmv_ops tables (amg_dist_setup.c), so the
 * V-cycle (amg_cycle.c) is the one-rank code unchanged. Setup runs on the
 * host; the tables live in the context's memory (the GPU on a GPU context). */
#ifndef NG_AMG_DIST_H
#define NG_AMG_DIST_H
#include "amg.h"
#include "../comm/halo.h"

/* Galerkin product data of one level, kept for the update (amg_dist_galerkin.c). */
typedef struct ng_amg_dgalerkin ng_amg_dgalerkin;
typedef struct ng_amg_ucache ng_amg_ucache; /* amg_dist_local.c: an uncoupled level's off-rank block, kept for updates */

typedef struct {
  ng_matrix A;              /* operator (level 0: the user's matrix, not owned) */
  int64_t *cstarts;         /* size + 1: coarse row ranges of the next level */
  /* aggregation: global coarse row of each row's aggregate (-1: none) and
   * the tentative values, of the own rows, then of A's halo columns */
  int64_t *agg;
  double *ptent;
  /* A's two blocks side by side: own rows over own then halo columns
   * (prolongation and Galerkin product; values again at an update) */
  ng_csr Aext;
  /* the coarse columns this rank meets (sorted global coarse rows) and each
   * own row's and halo column's aggregate among them (-1: none) */
  int64_t *pcol;
  int32_t pm, *cagg;
  /* P (rows of this level x coarse columns): Pc over the compact columns
   * (the matrix's input, kept for updates) */
  ng_matrix P;
  ng_csr Pc;
  /* R = P^T: transposes of P's local and off-rank blocks, reverse exchange */
  ng_csr Rl, Ro;
  int64_t *rl_perm, *ro_perm;
  const ng_spmv_ops *Rl_ops, *Ro_ops;
  void *Rl_data, *Ro_data;
  struct ng_halo_plan *rev;
  double *contrib;          /* P->n_halo contributions to other ranks' coarse rows */
  ng_amg_dgalerkin *G;
  void *gx;                 /* GPU context: the level's device rows, P (amg_dist_dx.cuh), or NULL */
  int gather;               /* P is the identity onto rank 0 (a small level gathered for the dense solve) */
  int sgn;                  /* -amg_strength signed (strength and filter test, as ng_amg_strength) */
  double filter;            /* -amg_filter: P smoothed with A_F filtered at this threshold (0: A) */
  double *sd;               /* with a filter: the strength graph's sqrt |a_jj| (own rows, halo columns)
                             * kept for this setup's filter, which frees it (NULL at an update) */
  double sparsify;          /* -amg_sparsify of the product A_c made from this level (0: none) */
  int hybrid;               /* its hybrid lumping (the W- and K-cycles: ng_amg_hybrid, amg_sparsify.c) */
  int group;                /* agglomeration: rows held by ranks that are multiples of group */
  int uncoupled;            /* made by amg_dist_local.c: P, R block diagonal (M->L[l]'s one-rank tables) */
  ng_amg_ucache *ucache;    /* its off-rank block's operands and products (the update's values go into them) */
  struct ng_amg_doff *doff; /* on GPUs: the same on the device (amg_dist_offrank_cuda.cu) */
  /* report (gathered at setup, so that rank 0 alone can print it) */
  int active;               /* ranks that hold rows of this level */
  int64_t n_global, nnz_global, halo_total, halo_max;
  int64_t *gathered;        /* D[0] only: a value per rank, the report's gather (made with D, agreed there) */
} ng_amg_dlevel;

/* amg_dist_classical.c: -amg_coarsening classical on level A (strength,
 * PMIS, extended+i P as one rank makes them): D->cstarts (one block per
 * rank), D->Pc over the compact columns D->pcol / D->pm, *n_coarse
 * (global; P left unmade when 0 or above 0.9 of the rows). Collective. */
ng_status ng_amg_dist_classical(ng_matrix A, const ng_amg *M, ng_amg_dlevel *D, int64_t *n_coarse);
/* amg_dist_aggregate.c: MIS(2) aggregation of A's strength graph across
 * ranks; fills D->agg, D->cstarts (one block per rank, before
 * agglomeration) and *n_coarse (global). */
ng_status ng_amg_dist_aggregate(ng_matrix A, double theta, ng_amg_dlevel *D, int64_t *n_coarse);
/* amg_dist_aggregate_cuda.cu: the same on each rank's GPU (GPU context),
 * the same aggregates (D->agg, D->cstarts, D->sd as agg, cstarts and, with
 * keep_sd, sd); *done = 0 (on every rank) when it leaves the work to
 * ng_amg_dist_aggregate (an unsorted row, a zero diagonal, 2^32 rows). */
ng_status ng_amg_dist_aggregate_gpu(ng_matrix A, double theta, int sgn, int keep_sd, int64_t **agg, int64_t **cstarts,
                                    double **sd, int64_t *n_coarse, void **dx, int *done);
/* The level's device state that the GPU aggregation leaves in *dx
 * (amg_dist_dx.cuh): free; X's values from A's at an update; sqrt |a_jj|
 * (own and halo) from the host at an update (-amg_filter);
 * amg_dist_prolong_cuda.cu: P's pattern (setup) and values on the device,
 * into the host CSR Pc (*done = 0: the host's work). */
void ng_amg_dx_free(void *dx);
ng_status ng_amg_dx_values(void *dx, ng_matrix A);
ng_status ng_amg_dx_sd(void *dx, const double *sd);
ng_status ng_amg_dx_smooth(void *dx, const int32_t *cagg, int32_t pm, const double *ptent, double omega,
                           double filter, int sgn, int refresh, ng_csr *Pc, int *done);
/* amg_dist_prolong.c: D->Aext made when missing, else its values refilled
 * when values (the GPU's Galerkin products where the level has no device
 * rows). */
ng_status ng_amg_dist_aext(ng_matrix A, ng_amg_dlevel *D, int values);
/* A's off-rank block, the second block of the host's P and product (its
 * columns after the own ones: Aext's order without the copy), or NULL. */
static inline const ng_csr *ng_amg_dist_offrank(ng_matrix A) { return A->offrank.rowptr ? &A->offrank : NULL; }
/* *sd = sqrt |a_jj| of the own rows then the halo columns (n_local +
 * n_halo, exchanged; collective, agreed): the strength test's and the
 * filter's scale (amg_dist_aggregate.c). */
ng_status ng_amg_dist_sqrt_diagonal(ng_matrix A, double **sd);
/* amg_dist_prolong.c: tentative values (aggregate sizes summed over ranks)
 * and the smoothed P's pattern and values as a rectangular matrix over
 * D->cstarts; values only when refresh. */
ng_status ng_amg_dist_tentative(ng_matrix A, ng_amg_dlevel *D);
ng_status ng_amg_dist_prolong(ng_matrix A, ng_amg_dlevel *D, double omega, int refresh);
/* amg_dist_galerkin.c: A_c = P^T (A P) as a distributed matrix over
 * D->cstarts (*Ac made at setup, values updated when refresh). */
ng_status ng_amg_dist_galerkin(ng_matrix A, ng_amg_dlevel *D, int refresh, ng_matrix *Ac);
void ng_amg_dgalerkin_free(ng_amg_dgalerkin *G);
/* amg_dist_sparsify.c: *Ac made as the sparsified copy of the full product
 * rp, gc, val (this rank's rows of the row ranges starts, global columns;
 * hybrid: amg_sparsify.c's hybrid lumping);
 * *S keeps where each entry went; _values redoes S's values from new val.
 * st: the caller's status so far, agreed in the first collective. */
typedef struct ng_amg_dsparsify ng_amg_dsparsify;
ng_status ng_amg_dist_sparsify(ng_context ctx, ng_status st, double tau, int hybrid, const int64_t *starts, const int64_t *rp,
                               const int64_t *gc, const double *val, ng_matrix *Ac, ng_amg_dsparsify **S);
void ng_amg_dsparsify_values(const ng_amg_dsparsify *S, const double *val);
void ng_amg_dsparsify_free(ng_amg_dsparsify *S);
/* amg_dist_telescope.c: whether level l (built, not yet coarsened) moves
 * onto rank 0 (the same verdict on every rank); build: gathers it there and
 * builds the one-rank AMG that is its coarse solve (M->Cops; collective,
 * agreed); refresh: its values again and the one-rank update; describe:
 * the lines of -amg_view (rank 0 holds the nested hierarchy). */
int ng_amg_telescope_wanted(ng_amg *M, int l);
/* The same rule from a level's sizes, before its matrix exists. */
int ng_amg_telescope_fits(const ng_amg *M, ng_context ctx, int l, int64_t n_global, int64_t nnz_global);
ng_status ng_amg_telescope_build(ng_precond Pc, ng_amg *M, int l);
ng_status ng_amg_telescope_refresh(ng_precond Pc, ng_amg *M, int l);
ng_status ng_amg_telescope_describe(const ng_amg *M, char *buf, size_t len, size_t *k);
/* This rank's seconds in the gathered levels' two exchanges (0 without them). */
double ng_amg_telescope_comm_seconds(const ng_amg *M);
/* amg_dist_coarse.c: the coarsest level's dense inverse into M->coarse_inv
 * on the rank holding the level, the steps spread over all ranks
 * (collective; st: the caller's status, agreed in the first collective
 * unless the level is small: the caller agrees). */
ng_status ng_amg_dist_coarse_inverse(ng_context ctx, ng_amg *M, ng_matrix A, ng_status st);
/* 1 when the level's local products ran on the GPU. */
int ng_amg_dgalerkin_on_gpu(const ng_amg_dgalerkin *G);

/* amg_dist_local.c: level l as an uncoupled level (each rank's block
 * coarsened by the one-rank setup, A_c's off-rank block from the
 * boundary rows): wanted (collective: the same answer on every rank),
 * build (*stop: coarsening ends here; D[l + 1].A made) and values again. */
int ng_amg_uncoupled_wanted(ng_amg *M, int l);
ng_status ng_amg_uncoupled_build(ng_precond Pc, ng_amg *M, int l, int *stop);
ng_status ng_amg_uncoupled_refresh(ng_precond Pc, ng_amg *M, int l);
void ng_amg_ucache_free(ng_amg_ucache *U);
/* amg_dist_offrank.c: an uncoupled level's off-rank block of A_c on the
 * host (rows nc + 1 offsets, global columns ascending, values; *U: its
 * operands and products, made at the setup, refilled at an update);
 * collective, agreed; out_free: a failed call's outputs freed. */
ng_status ng_amg_offrank_host(ng_context ctx, ng_amg *M, int l, ng_matrix A, int64_t cbegin, int refresh, ng_status st,
                              ng_amg_ucache **U, int64_t **orp, int64_t **ogc, double **oval);
void ng_amg_offrank_out_free(int64_t **orp, int64_t **ogc, double **oval);
void ng_amg_dist_trace_level(int l);

/* ng_amg_trace with the level being built (amg_dist_setup.c), for the
 * steps in amg_dist_*.c that do not know it. */
void ng_amg_dist_trace(ng_context ctx, const char *what, double *t);
/* amg_dist_setup.c: the hierarchy (ng_amg_build / ng_amg_refresh call these
 * when the context has several ranks), its release and report. */
ng_status ng_amg_dist_build(ng_precond P, ng_amg *M, ng_matrix A);
ng_status ng_amg_dist_refresh(ng_precond P, ng_amg *M, ng_matrix A);
void ng_amg_dist_free(ng_context ctx, ng_amg *M);
ng_status ng_amg_dist_describe(ng_precond P, char *buf, size_t len);
/* Seconds of all AMG levels' exchanges (levels > 0, P and R) on this rank. */
double ng_amg_dist_comm_seconds(const ng_amg *M);
#endif
