/* smoother/level.h: what a smoother works on and what it is told (issue 33,
 * item 2). ng_smoother_level: one level of a hierarchy as the smoothers see
 * it (its operator, diagonal, weight, work vector, the smoother's own
 * state); amg/'s ng_amg_level holds one (its field s). ng_smoother_opts:
 * -amg_smoother and its tunables, read by ng_smoother_read_options
 * (smoother_options.c; the options themselves are defined in
 * core/options.c). The level's operator helpers are in smoother_level.c.
 * Also ng_graph, the adjacency pattern of the colorings (and of amg/'s
 * strength graphs). */
#ifndef NG_SMOOTHER_LEVEL_H
#define NG_SMOOTHER_LEVEL_H
#include "../precond/precond.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Adjacency pattern (strength graph): no values. */
typedef struct {
  int32_t n;
  int64_t *rowptr;
  int32_t *col;
} ng_graph;
void ng_graph_free(ng_graph *G);

struct ng_smoother_ops;

/* One level. The hierarchy fills everything but sdata (the smoother's) and
 * early (prepare's). */
typedef struct ng_smoother_level {
  int level;                     /* index in the hierarchy, 0 the finest */
  int coarsest;                  /* 1 on the last level (set by the setup's finish) */
  int32_t n;                     /* rows (this rank's) */
  ng_matrix matrix;              /* level 0: the user's matrix, the operator while Aops is NULL */
  const ng_spmv_ops *Aops;       /* the level's operator table (level 0: its own copy, amg_fine.c, or NULL) */
  void *Adata;
  double rho, omega;             /* rho(D^-1 A) estimate, the smoother's weight */
  double *dinv;                  /* omega / a_ii, context memory */
  double *r;                     /* work vector, context memory */
  void *sdata;                   /* the smoother's state of this level */
  void *early;                   /* level 0: the smoother's work started before the hierarchy (prepare), until setup */
  void (*early_free)(void *early);
  /* The level's own host operator (levels > 0; level 0's is the matrix's
   * block) and how to make either current (a GPU setup, or a gathered
   * level's device-only matrix, may have left it on the device):
   * host_current(owner, level). */
  const ng_csr *host_A;
  ng_status (*host_current)(void *owner, int level);
  void *owner;
} ng_smoother_level;

/* The smoothers' options (smoother_options.c). */
typedef struct ng_smoother_opts {
  const struct ng_smoother_ops *ops; /* -amg_smoother (auto: by -solver and -amg_precision) */
  double omega;                  /* -amg_omega (0: the smoother's default) */
  double mmcgs_theta;            /* -amg_mmcgs_theta: strong couplings that the mmcgs colors separate */
  int coloring;                  /* -amg_coloring: the finest level's coloring order (NG_COLOR_* of smoother.h) */
  int mcgs_coarse_strong;        /* -amg_mcgs_coarse mmcgs: mcgs colors the strong couplings only below the finest */
  int host_setup;                /* -amg_smoother_setup host: mcgs/mmcgs built on the host on a GPU context too */
  int mcgs_single;               /* -amg_mcgs_values single: FP32 values in the GPU's per-color-launch blocks */
  int mcgs_coop_entries;         /* -amg_mcgs_coop_entries: the GPU's largest level swept in one cooperative launch */
  int cheby_degree;              /* -amg_cheby_degree */
  double cheby_ratio;            /* -amg_cheby_ratio: Chebyshev interval [lmax / ratio, lmax] */
} ng_smoother_opts;

/* The options above from the database, checked (NG_ERR_ARGUMENT names the
 * option and the values it takes). */
ng_status ng_smoother_read_options(ng_options opts, ng_smoother_opts *o);

/* Level operator helpers (smoother_level.c), on the context's memory:
 * r = b - A x (ops: the smoother in use, whose residual() answers on a
 * level without a table; may be NULL), y = alpha A x + beta y, and y = x +
 * dinv .* (b - A x) in one pass when the table has the fused entry (*done =
 * 1; else *done = 0 and nothing ran). */
ng_status ng_smoother_residual(ng_context ctx, const struct ng_smoother_ops *ops, ng_smoother_level *S,
                               const double *b, const double *x, double *r);
ng_status ng_smoother_apply(ng_context ctx, ng_smoother_level *S, double alpha, const double *x, double beta,
                            double *y);
ng_status ng_smoother_jacobi_fused(ng_smoother_level *S, const double *b, const double *x, double *y, int *done);
/* The host operator A made current when it is the level's own (setup, update). */
ng_status ng_smoother_level_host(ng_smoother_level *S, const ng_csr *A);
/* Drop level S's early work if setup did not take it. */
void ng_smoother_early_free(ng_smoother_level *S);
/* NG_AMG_TRACE=1 (read once): the setups' step timings on stderr. */
int ng_smoother_trace_on(void);

#ifdef __cplusplus
}
#endif
#endif
