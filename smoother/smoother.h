/* smoother/smoother.h: the AMG smoothers (METHODS.md section 4), one ops
 * table each, chosen by -amg_smoother (ng_smoother_opts of level.h) and
 * called on one level at a time (ng_smoother_level of level.h, its own state
 * in S->sdata):
 *   jacobi     damped Jacobi (smoother_jacobi.c), the former inline smoother
 *   mcgs       multicolor Gauss-Seidel (smoother_mcgs.c, kernels in
 *              smoother_mcgs_cuda.cu): colors of the level's graph, each
 *              color one coalesced ELL block, one launch per color; forward
 *              colors before the coarse correction, backward after it
 *   mmcgs      modified MCGS: colors of the strong couplings only
 *              (|a_ij| > -amg_mmcgs_theta |a_ii|), weak couplings inside a
 *              color read the values from before that color's update
 *   chebyshev  Chebyshev polynomial in D^-1 A (smoother_chebyshev.c), SpMV
 *              and vector ops only
 * On a GPU context (one rank) the mcgs / mmcgs setup runs on the device
 * from the level's device CSR (coloring, color grouping, per-color blocks);
 * the host builds them only when the level has no device CSR table.
 * Every call runs on the context's memory; pre() and post() allocate
 * nothing and do not wait. Under MPI every smoother works on the level's
 * distributed operator: Jacobi and Chebyshev through its SpMV (exact), the
 * Gauss-Seidel ones as processor-block hybrids (each rank colors its own
 * block, off-rank couplings read the halo exchanged once per sweep). */
#ifndef NG_SMOOTHER_H
#define NG_SMOOTHER_H
#include "level.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct ng_smoother_ops {
  const char *name;
  /* 1: one sweep is not symmetric by itself (Gauss-Seidel): the coarsest
   * level's smoother solve runs half its sweeps forward, half backward */
  int split_coarse;
  /* Level S's state from its host operator A (the local block under MPI;
   * dist: the level's distributed matrix when it has one, on one rank the
   * user's matrix for level 0, else NULL; halo != NULL only under MPI), after
   * the level's A table, S->dinv and S->rho exist. *data may stay NULL. */
  ng_status (*setup)(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, const ng_csr *A,
                     ng_matrix dist, void **data);
  /* New values in the same pattern: colors and orderings are kept. */
  ng_status (*update)(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, const ng_csr *A, void *data);
  /* x = S^sweeps b from x = 0 (x's entry values are not read). */
  ng_status (*pre)(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, int sweeps, const double *b,
                   double *x);
  /* sweeps more on x (the adjoint order of pre: AMG stays symmetric). */
  ng_status (*post)(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, int sweeps, const double *b,
                    double *x);
  /* colors of the level (0: not a coloring smoother); may be NULL */
  int (*colors)(const void *data);
  /* Optional: before the hierarchy is built, start level 0's work that
   * needs only A (on the GPU, beside the setup); left in S0->early (with
   * S0->early_free) for setup on level 0. Failing quietly is allowed: setup
   * then does it all. */
  void (*prepare)(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S0, ng_matrix A);
  void (*destroy)(ng_context ctx, void *data);
  /* Optional: r = b - A x on level S from the smoother's own copy of A
   * (*done = 1), else *done = 0 and nothing ran. ng_smoother_residual asks
   * for it on a level without a table of its own (level 0 on the matrix). */
  ng_status (*residual)(ng_context ctx, ng_smoother_level *S, const double *b, const double *x, double *r, int *done);
} ng_smoother_ops;

extern const ng_smoother_ops ng_smoother_jacobi, ng_smoother_mcgs, ng_smoother_mmcgs, ng_smoother_chebyshev;
/* by name; NULL when unknown */
const ng_smoother_ops *ng_smoother_find(const char *name);


/* ---- coloring (coloring.c, coloring_cuda.cu) ----------------------------
 * G: the symmetric adjacency (no diagonal) of A's pattern, or of its strong
 * couplings |a_ij| > theta |a_ii| (either direction) when theta > 0. */
ng_status ng_coloring_graph(const ng_csr *A, double theta, ng_graph *G);
/* Jones-Plassmann-Luby: in each round every uncolored vertex whose key is
 * larger than every uncolored neighbour's takes the smallest color none of
 * its colored neighbours has. That is the sequential greedy (first-fit)
 * coloring in decreasing key order, whatever the keys; the order decides the
 * number of colors:
 *   NG_COLOR_HASH     hashed index (random order)
 *   NG_COLOR_LDF      largest degree first, hash tie-break (Welsh-Powell:
 *                     irregular coarse levels)
 *   NG_COLOR_NATURAL  row index order (the seed's greedy coloring: 8 colors on
 *                     a 27-point grid, 2 x 2 x 2 pattern, where hashing takes
 *                     16-18). The host runs it sequentially; JPL rounds would be
 *                     as many as the longest chain of increasing indices, so
 *                     the GPU runs one sync-free kernel (coloring_cuda.cu).
 * The result depends on the graph only: the host and the GPU give the same
 * colors. color: n entries, *ncolors. */
enum { NG_COLOR_HASH = 0, NG_COLOR_LDF = 1, NG_COLOR_NATURAL = 2 };
uint64_t ng_coloring_key(int order, int64_t degree, uint32_t i);
typedef struct ng_coloring_ops {
  const char *name;
  ng_status (*color)(ng_context ctx, const ng_graph *G, int order, int32_t *color, int *ncolors);
} ng_coloring_ops;
extern const ng_coloring_ops ng_coloring_host;
#ifdef NG_HAVE_CUDA
extern const ng_coloring_ops ng_coloring_cuda;
/* The same colorings of a device CSR pattern (rp, col: n rows, on the
 * context's device), its diagonal left out and, when keep != NULL, the
 * entries k with keep[k] == 0 too; the kept pattern must be symmetric.
 * color: n entries on the device; *guessed (may be NULL): 1 when the
 * natural order's colors came from the stencil guess (coloring_cuda.cu). */
ng_status ng_coloring_cuda_csr(ng_context ctx, int32_t n, const int32_t *rp, const int32_t *col,
                               const unsigned char *keep, int order, int32_t *color, int *ncolors, int *guessed);
/* device ints the natural order's two halves share (coloring_cuda.cu) */
#define NG_COLORING_NATURAL_WORDS 8
#endif

/* ---- MCGS layout and kernels (smoother_mcgs.c, smoother_mcgs_cuda.cu) ---
 * Rows grouped by color; color c's rows rows[start[c] .. start[c + 1]) form
 * one ELL block of width[c] columns (the diagonal left out) and pad[c] rows
 * (a multiple of 32: 256-byte columns), entry j of the block's row k at
 * ell + off[c] + j * pad[c] + k; padding reads the row itself with value 0.
 * intra[c]: the block couples rows of color c (mmcgs only): its rows are
 * computed first and written after, so that they read the old values. */
typedef struct {
  int32_t n, ncolors;
  int32_t *start, *width, *pad, *intra; /* ncolors (+1 for start) */
  int64_t *off;                         /* ncolors + 1 */
  int32_t *rows;                        /* n */
  int32_t *ell_col;                     /* off[ncolors] */
  int64_t *ell_src;                     /* CSR index of each entry, -1: padding */
  int64_t *diag_src;                    /* CSR index of each row's diagonal (rows order) */
  int32_t max_rows;                     /* largest color */
} ng_mcgs_layout;

typedef struct ng_mcgs_kernels {
  const char *name;
  /* index arrays into the context's memory (o: the options the kernels
   * read, -amg_mcgs_values and -amg_mcgs_coop_entries on the GPU) */
  ng_status (*create)(ng_context ctx, const ng_smoother_opts *o, const ng_mcgs_layout *lay, void **dev);
  /* block values and 1 / a_ii from the host CSR (S: the level, whose host
   * values the kernels may first refresh from the device) */
  ng_status (*values)(void *dev, const ng_mcgs_layout *lay, ng_smoother_level *S, const ng_csr *A);
  /* color c's rows: x_i = (1 - omega) x_i + omega (t_i - sum_j a_ij x_j) / a_ii */
  ng_status (*color)(void *dev, const ng_mcgs_layout *lay, int c, double omega, const double *t, double *x);
  /* `sweeps` whole sweeps, colors forward (or backward), t fixed: the color
   * steps in order, in as few launches as the backend can (the GPU runs a
   * level's sweeps in one cooperative launch when it is small enough) */
  ng_status (*sweeps)(void *dev, const ng_mcgs_layout *lay, int sweeps, int backward, double omega, const double *t,
                      double *x);
  void (*destroy)(void *dev);
  /* Optional (NULL: none): colors and layout built from the level's device
   * CSR (ops, data: its SpMV table; n rows) on the device, no host copy of
   * the matrix read: lay gets its per-color arrays (start, width, pad,
   * intra, off, max_rows; rows and ell_* stay NULL), the colors stay on
   * the device (colors() below); values() then refreshes from the table *ops,
   * *data holds at that time (the pointers are the matrix's or the
   * level's own fields, so a table replaced later is followed). theta:
   * as ng_coloring_graph's; order: NG_COLOR_*. NG_ERR_UNSUPPORTED, quietly
   * (no message), when the table is no device CSR or its pattern is not
   * square, sorted and symmetric with every diagonal: the caller then builds
   * on the host. o: as create's (FP32 block values where the level sweeps a
   * launch per color with -amg_mcgs_values single). early: precolor's
   * result for this table (build owns it) or NULL. */
  ng_status (*build)(ng_context ctx, const ng_smoother_opts *o, const ng_spmv_ops *const *ops, void *const *data,
                     int32_t n, double theta, int order, void *early, ng_mcgs_layout *lay, void **dev);
  /* Optional, with build: the pattern's checks and the natural-order colors
   * of a device CSR table (n rows, every coupling) started on a stream of
   * their own, returned as *early for build (which then takes them over and
   * only waits for them) or for early_free. NG_ERR_UNSUPPORTED quietly when
   * the table is no device CSR. */
  ng_status (*precolor)(ng_context ctx, const ng_spmv_ops *ops, void *data, int32_t n, void **early);
  void (*early_free)(void *early);
  /* With build: the n row colors to the host (tests, on demand). */
  ng_status (*colors)(void *dev, int32_t n, int32_t *color);
  /* Optional: how the level's sweeps run ("cooperative, 8 lanes a row",
   * "color-DIA, a launch per color", ...; -amg_view and tests) */
  const char *(*kind)(void *dev);
  /* Optional: r = b - A x from the blocks and 1 / a_ii (every row is in
   * one color's block, with every off-diagonal entry; FP32 blocks give it
   * to FP32 rounding); *done = 0 when these kernels cannot. */
  ng_status (*residual)(void *dev, const ng_mcgs_layout *lay, const double *b, const double *x, double *r, int *done);
} ng_mcgs_kernels;
extern const ng_mcgs_kernels ng_mcgs_host;
#ifdef NG_HAVE_CUDA
extern const ng_mcgs_kernels ng_mcgs_cuda;
#endif
/* sweeps() by one color() call per color (host; the GPU's big levels). */
ng_status ng_mcgs_sweeps_by_color(void *dev, const ng_mcgs_layout *y, int sweeps, int backward, double omega,
                                  const double *t, double *x,
                                  ng_status (*color)(void *, const ng_mcgs_layout *, int, double, const double *, double *));
/* Block values and 1 / a_ii of the layout from the host CSR (both kernel tables). */
void ng_mcgs_gather_values(const ng_mcgs_layout *y, const ng_csr *A, double *ell_val, double *dinv);
/* -amg_view and tests: how level S's Gauss-Seidel sweeps run under the
 * smoother ops (the kernels' kind(), NULL for other smoothers and the host
 * kernels). */
const char *ng_smoother_sweep_kind(const ng_smoother_ops *ops, ng_smoother_level *S);
/* Tests: level S's row colors (host, NULL for a smoother without colors). */
const int32_t *ng_smoother_row_colors(const ng_smoother_ops *ops, ng_smoother_level *S, int *ncolors);
/* Tests: 1 when level S's colors and layout were built on the device (build above). */
int ng_smoother_built_on_device(const ng_smoother_ops *ops, ng_smoother_level *S);

/* The options of smoother/ (smoother_options.c). */
extern const ng_option_table ng_smoother_options, ng_smoother_damping_options;

#ifdef __cplusplus
}
#endif
#endif
