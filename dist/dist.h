/* dist/dist.h: the distributed objects, where comm/ and spmv/ meet: the
 * structs behind ng_matrix and ng_vector (the context's is in core/core.h),
 * the matrix's halo plan (dist/matrix_halo.c) and the library's own matrix
 * calls (dist/matrix.c). */
#ifndef NG_DIST_H
#define NG_DIST_H
#include "core.h"
#include "../comm/comm.h"
#include "../spmv/spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ng_matrix_s {
  ng_context ctx;
  int64_t n_global, row_begin, nnz_global;
  int32_t n_local;
  /* Column ownership (the x this matrix reads): the rows' own for a square
   * matrix; its own ranges for a rectangular one (AMG's distributed P). */
  int64_t n_col_global, col_begin;
  int32_t n_col_local;
  ng_csr local;          /* host: owned rows x owned columns (local numbering) */
  ng_csr offrank;        /* host: owned rows x halo columns (0..n_halo-1) */
  int32_t n_halo;
  int64_t *halo_gcol;    /* global index of each halo column */
  struct ng_halo_plan *halo; /* NULL when there is no off-rank coupling */
  /* 1: the halo plan is not made yet (ng_matrix_create_blocks_deferred):
   * an AMG level that may be gathered onto one rank and never multiplied
   * here; ng_matrix_halo_ensure makes it, a product before that fails */
  int halo_deferred;
  /* input position -> slot (local: k, offrank: nnz_loc+k); NULL: the
   * identity without off-rank entries, else (every input row's global
   * columns ascended, as generated and most assembled rows do) each row's
   * two blocks merged by global column (ng_matrix_merged_row), with no map
   * held: 8 bytes an entry fewer on the host */
  int64_t *value_map;
  const ng_spmv_ops *spmv;     void *spmv_data;     /* local block in the chosen format */
  const ng_spmv_ops *spmv_off; void *spmv_off_data; /* off-rank block (CSR over its non-empty rows) */
  /* the local block's device CSR kept beside a faster spmv chosen by the
   * matrix itself (multi-rank GPU: dia_half / dia); NULL otherwise, when
   * spmv is the CSR (or the user's format). ng_matrix_csr_ops/_data give
   * the setups (AMG, coloring) the CSR either way. */
  const ng_spmv_ops *csr_ops; void *csr_data;
  double *halo_values;   /* n_halo received values, context memory */
  int32_t *coupled, n_coupled; /* own rows with off-rank entries, ascending (ng_matrix_coupled_rows; NULL: not made) */
  char format[32];
  int pinned;            /* local.val page-locked (ng_cuda_host_pin): 1 yes, -1 refused, 0 not tried */
  /* a device-only one-rank matrix (ng_matrix_adopt_device): 2 the host
   * block has its row offsets only, 1 its values are older than the
   * device's, 0 current; ng_matrix_host_current makes it current */
  int host_stale;
  /* counts ng_matrix_update_values calls: a copy of A made elsewhere (AMG's
   * finest-level table) is current while it saw the same count */
  uint64_t values_seq;
};

static inline const ng_spmv_ops *ng_matrix_csr_ops(const struct ng_matrix_s *A) { return A->csr_ops ? A->csr_ops : A->spmv; }
static inline void *ng_matrix_csr_data(const struct ng_matrix_s *A) { return A->csr_ops ? A->csr_data : A->spmv_data; }

struct ng_vector_s {
  ng_context ctx;
  int32_t n;        /* local length */
  int64_t n_global;
  double *data;     /* context memory (device pointer on the GPU) */
};

/* Halo plan (dist/matrix_halo.c): built once at setup from the global columns this
 * rank reads but does not own; begin/end move owned entries of x into
 * A->halo_values through the context's transport. */
/* Collective; starts: the column ranges' starts (size + 1); st: the
 * caller's status so far, agreed with the plan's own allocations (A may be
 * NULL where st failed). */
ng_status ng_halo_plan_create(ng_context ctx, ng_matrix A, const int64_t *starts, ng_status st);
ng_status ng_halo_begin(ng_matrix A, const double *x);
ng_status ng_halo_end(ng_matrix A);
/* (the plan destroyed: ng_halo_plan_destroy, comm/halo.h) */

/* The bytes A's own storage takes in each memory space (NG_MEM_HOST,
 * NG_MEM_DEVICE; core/core.h), counted from its arrays: the host blocks
 * (local, off-rank), the halo's column list and value map, its SpMV tables
 * (a host CSR table reads the block itself: not counted twice), the halo
 * values and the struct. The halo plan's buffers (a boundary's worth) are
 * not counted. */
void ng_matrix_memory(ng_matrix A, int64_t bytes[NG_MEM_SPACES]);
/* Internal matrix apply on raw context-memory arrays (halo exchange inside). */
ng_status ng_matrix_apply_raw(ng_matrix A, const double *x, double *y);
/* y = alpha A x + beta y, the same way (x: n_col_local entries, y: n_local). */
ng_status ng_matrix_apply_ab(ng_matrix A, double alpha, const double *x, double beta, double *y);
/* Collective: a rectangular distributed matrix (rows [row_begin, row_end) of
 * n_global, given with global columns of n_col_global, this rank owning the
 * columns [col_begin, col_end)), in CSR, with its halo plan over the columns'
 * ranges. ng_matrix_create_distributed is the square case. */
ng_status ng_matrix_create_rect(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                                int64_t n_col_global, int64_t col_begin, int64_t col_end, const int64_t *rowptr,
                                const int64_t *gcol, const double *val, ng_matrix *A);
/* The same matrix from compact columns: entry p's global column is
 * cmap[ccol[p]] (cmap: m columns, strictly ascending), as AMG's distributed
 * P holds them; the split into the blocks then needs no hash map. */
ng_status ng_matrix_create_rect_compact(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                                        int64_t n_col_global, int64_t col_begin, int64_t col_end,
                                        const int64_t *rowptr, const int32_t *ccol, const int64_t *cmap, int32_t m,
                                        const double *val, ng_matrix *A);

/* ng_matrix_create_distributed keeping CSR for the local block (AMG's
 * coarse levels); the public one may pick a faster format on the GPU. */
ng_status ng_matrix_create_distributed_csr(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                                           const int64_t *rowptr, const int64_t *gcol, const double *val,
                                           ng_matrix *A);
/* ng_matrix_create_blocks for a user's matrix (the fast format picked, as
 * ng_matrix_create_distributed does): the stencil generator's slabs
 * (generate_dist.c), split in place, whose rows ascend by global column
 * (so no value map is needed). Collective; st agreed. */
ng_status ng_matrix_adopt_blocks(ng_context ctx, ng_status st, int64_t n_global, int64_t row_begin, ng_csr *local,
                                 const int64_t *orp, const int64_t *ogc, const double *oval, ng_matrix *A);

/* A square distributed matrix from its blocks (AMG's uncoupled levels,
 * dist/matrix.c): the local block's host CSR taken over (and its SpMV table
 * ldata when not NULL), the off-rank block as rows (orp: n_local + 1) of
 * global columns. Collective; st: the caller's status, agreed. */
ng_status ng_matrix_create_blocks(ng_context ctx, ng_status st, int64_t n_global, int64_t row_begin, ng_csr *local,
                                  const int64_t *orp, const int64_t *ogc, const double *oval,
                                  const ng_spmv_ops *lops, void *ldata, ng_matrix *A);

/* ng_matrix_create_blocks without the halo plan (A->halo_deferred): AMG's
 * uncoupled coarse level, whose plan (its exchanges, the transport's IPC
 * handles) only a level set up across the ranks needs, not one gathered
 * onto rank 0. Collective; st agreed. */
ng_status ng_matrix_create_blocks_deferred(ng_context ctx, ng_status st, int64_t n_global, int64_t row_begin,
                                           ng_csr *local, const int64_t *orp, const int64_t *ogc, const double *oval,
                                           const ng_spmv_ops *lops, void *ldata, ng_matrix *A);
/* The deferred halo plan made (nothing when A has it or needs none).
 * Collective: every rank's A was made deferred together. */
ng_status ng_matrix_halo_ensure(ng_matrix A);

/* One rank: a matrix over the host CSR W itself (square; validated), W
 * emptied even on failure (dist/matrix.c): no copy of a big input. */
ng_status ng_matrix_adopt_local(ng_context ctx, ng_csr *W, ng_matrix *A);
/* The same for a W that this library made from checked matrices (rows
 * sorted, columns in range, values finite by construction: a gathered AMG
 * level), without the validation's pass (18 ms at 8.3M entries). */
ng_status ng_matrix_adopt_built(ng_context ctx, ng_csr *W, ng_matrix *A);
/* Collective (dist/matrix_gather.c): the square matrix A on rank 0 as one
 * CSR W over global columns, rows sorted (W empty elsewhere); st: the
 * caller's status so far, agreed before anything moves. The entries move
 * through a gather plan (the matrix transport: device to device on GPUs). */
ng_status ng_matrix_gather_csr(ng_matrix A, ng_status st, ng_csr *W);
/* The same kept for updates: a gatherer (the merge order and the plan) made
 * once, then the CSR, or the values alone into rank 0's val (W.nnz of
 * them, W's order) after A's values changed. Collective. */
typedef struct ng_matrix_gatherer ng_matrix_gatherer;
ng_status ng_matrix_gatherer_create(ng_matrix A, ng_status st, ng_matrix_gatherer **g);
ng_status ng_matrix_gather_csr_with(ng_matrix_gatherer *g, ng_matrix A, ng_status st, ng_csr *W);
ng_status ng_matrix_gather_values(ng_matrix_gatherer *g, ng_matrix A, double *val);
void ng_matrix_gatherer_destroy(ng_matrix_gatherer *g);
/* GPU contexts, collective: the gathered matrix made on rank 0's device,
 * as a device-only one-rank matrix on sub (rank 0's one-rank context; *A1
 * NULL elsewhere), when the gatherer merges on the device
 * (ng_matrix_gatherer_on_device); then its values alone after A's changed
 * (the host copy marked stale). */
int ng_matrix_gatherer_on_device(const ng_matrix_gatherer *g);
ng_status ng_matrix_gather_device(ng_matrix_gatherer *g, ng_matrix A, ng_status st, ng_context sub, ng_matrix *A1);
ng_status ng_matrix_gather_values_device(ng_matrix_gatherer *g, ng_matrix A, ng_matrix A1);
/* One rank (dist/matrix.c): a matrix over a device CSR table (ops, data:
 * taken, also on failure) whose host block W has the row offsets only
 * (taken); its columns and values come to the host when something asks
 * (ng_matrix_host_current: the host setups and smoothers that read them). */
ng_status ng_matrix_adopt_device(ng_context ctx, ng_csr *W, const ng_spmv_ops *ops, void *data, ng_matrix *A);
ng_status ng_matrix_host_current(ng_matrix A);
/* This rank's values in the order of its input at creation (the order
 * ng_matrix_update_values takes): nnz_local of them into val. */
ng_status ng_matrix_values_in_input_order(ng_matrix A, double *val);
/* The own rows with entries in the off-rank block, ascending: made on the
 * first call (a pass over the block's row offsets, 67 MB at 8.4M rows) and
 * kept with the matrix, whose pattern does not change (dist/matrix.c). */
ng_status ng_matrix_coupled_rows(ng_matrix A, const int32_t **rows, int32_t *cnt);
/* Row i's entries in global column order (dist/matrix.c): src[0, count)
 * names each one, k >= 0 the local block's entry k, k < 0 the off-rank
 * block's entry -1 - k; both blocks ascend in column (a row out of order,
 * not made by this library, is sorted). The device twin is
 * dist/matrix_rows_cuda.cuh. */
int64_t ng_matrix_merged_row(ng_matrix A, int32_t i, int64_t *src);
static inline int64_t ng_matrix_entry_gcol(const struct ng_matrix_s *A, int64_t s)
{
  return s >= 0 ? A->col_begin + A->local.col[s] : A->halo_gcol[A->offrank.col[-1 - s]];
}
static inline double ng_matrix_entry_val(const struct ng_matrix_s *A, int64_t s)
{
  return s >= 0 ? A->local.val[s] : A->offrank.val[-1 - s];
}
/* dist/matrix_gather_cuda.cu (CUDA builds): the merged rows on the device */
typedef struct ng_gather_dev ng_gather_dev;
ng_status ng_gather_dev_create(ng_matrix A, ng_gather_dev **d, int *ok);
void ng_gather_dev_destroy(ng_gather_dev *d);
ng_status ng_gather_dev_fill(ng_gather_dev *d, ng_matrix A, int cols, double *dst);
ng_status ng_gather_dev_fill_csr(ng_gather_dev *d, ng_matrix A, int32_t *col, double *val);
ng_status ng_gather_dev_cols(ng_context ctx, int64_t m, const double *src, int32_t *col);
ng_status ng_gather_dev_alloc_csr(ng_context ctx, const int64_t *rowptr, int32_t n, int64_t nnz, int32_t **rp,
                                  int32_t **col, double **val);
void ng_gather_dev_free_csr(int32_t *rp, int32_t *col, double *val);
ng_status ng_matrix_device_download(ng_matrix A, int cols);
/* This rank alone on the parent's device, sharing its stream and handles
 * (dist/context.c): the one-rank context of a gathered AMG level. */
ng_status ng_context_create_self(ng_context parent, ng_context *sub);

/* The timings behind an "auto" matrix's local block ("" when the matrix is
 * not auto; dist/matrix.c, over spmv/formats.h's ng_spmv_auto_report). */
const char *ng_spmv_autotune_report(ng_matrix A);

/* The options of dist/ (dist_options.c): -device. */
extern const ng_option_table ng_device_options;

#ifdef __cplusplus
}
#endif
#endif /* NG_DIST_H */
