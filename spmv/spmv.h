/* spmv/spmv.h: the SpMV formats as seen from outside spmv/: the ops table
 * every format fills (one per format and memory space), the registry, the
 * off-rank block's row-skipping CSR, and the CSR device arrays behind a
 * CSR table. Format internals (conversions, autotuning) are in
 * spmv/formats.h. */
#ifndef NG_SPMV_H
#define NG_SPMV_H
#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- SpMV formats (spmv/) --------------------------------------------------
 * One table per format and memory space. create() converts a host CSR block
 * (refusing with NG_ERR_DOES_NOT_FIT and a reason when the format does not
 * suit it); apply() computes y = alpha A x + beta y on the table's memory. */
typedef struct ng_spmv_ops {
  const char *name;
  int on_gpu;
  ng_status (*create)(ng_context ctx, const ng_csr *A, void **data);
  ng_status (*apply)(void *data, double alpha, const double *x, double beta, double *y);
  /* same pattern, new values (A in the layout create() saw) */
  ng_status (*update_values)(void *data, const ng_csr *A);
  size_t (*bytes)(const void *data); /* exact storage footprint */
  void (*destroy)(void *data);
  /* Optional (NULL: none). create_opt: create() given the options part of a
   * format spec ("sell:32:256" -> "32:256", "" when none); describe: the name
   * to report for this instance ("auto:sell"). See spmv/formats.h. */
  ng_status (*create_opt)(ng_context ctx, const ng_csr *A, const char *opt, void **data);
  const char *(*describe)(const void *data);
  /* Optional (GPU tables): create_opt() from a copy of A already on the
   * device (dcsr from ng_dcsr_create, spmv/formats.h), so that converting to
   * several formats uploads A once. */
  ng_status (*create_dev)(ng_context ctx, const ng_csr *A, const void *dcsr, const char *opt, void **data);
  /* Optional (square tables; NULL: none), the AMG smoother's one-pass
   * kernels (amg/amg_cycle.c, smoother_jacobi.c): with dinv,
   * y = x + dinv .* (b - A x) (a damped Jacobi sweep), without (dinv NULL)
   * y = b - A x (the residual). y must not alias x; b may be y only when
   * dinv is NULL. The host tables are the reference of the GPU ones. */
  ng_status (*fused)(void *data, const double *b, const double *x, const double *dinv, double *y);
  /* Optional (GPU tables; NULL: none): update_values() from a copy of A on
   * the device (dcsr as for create_dev): nothing uploaded, nothing made. */
  ng_status (*update_dev)(void *data, const void *dcsr);
} ng_spmv_ops;
/* Host CSR visiting only its non-empty rows (spmv/csr_rows.c): a matrix's
 * off-rank block when most of its rows are empty (dist/matrix.c). */
extern const ng_spmv_ops ng_spmv_csr_rows_host;
#ifdef NG_HAVE_CUDA
extern const ng_spmv_ops ng_spmv_csr_rows_cuda; /* its GPU twin (spmv/csr_rows_cuda.cu) */
#endif
/* Registry lookup by name for a memory space (NULL when unknown). */
const ng_spmv_ops *ng_spmv_find(const char *name, int on_gpu);
/* Names registered for a memory space, NULL-terminated. */
const char *const *ng_spmv_names(int on_gpu);

/* spmv/csr_cuda.cu (CUDA builds only): the device arrays of a csr_cuda
 * table's data, 32-bit row offsets (_arrays) or 64-bit ones (_arrays64);
 * NG_ERR_UNSUPPORTED when ops is another table or the offsets are of the
 * other width (callers try one, then the other). */
ng_status ng_csr_cuda_arrays(const ng_spmv_ops *ops, void *data, int32_t **rowptr, int32_t **col, double **val);
ng_status ng_csr_cuda_arrays64(const ng_spmv_ops *ops, void *data, int64_t **rowptr, int32_t **col, double **val);
/* A csr_cuda table over device arrays made by the caller (32-bit row
 * offsets): it owns them on success, the caller keeps them on failure. */
ng_status ng_csr_cuda_adopt(ng_context ctx, int32_t nrows, int32_t ncols, int64_t nnz, int32_t *rowptr, int32_t *col,
                            double *val, void **data);

/* The options of spmv/ (spmv_options.c): -format, -csr_spmv_alg, the
 * formats' default limits and -format auto's pruning; the CSR algorithm in
 * force (1 or 2: the option, else NG_CUSPARSE_SPMV_ALG, else 1) and the
 * limits in force (the last ng_options_apply_spmv's, before it the table's
 * defaults; a format string's tokens override them per matrix). */
extern const ng_option_table ng_spmv_options;
int ng_spmv_csr_alg(void);
typedef struct {
  int dia_max_diags;    /* -dia_max_diags */
  double dia_max_fill;  /* -dia_max_fill */
  double ell_max_ratio; /* -ell_max_ratio */
  int sell_c;           /* -sell_c */
  int sell_sigma;       /* -sell_sigma */
  double auto_slack;    /* -format_auto_slack */
  double auto_prune_mb; /* -format_auto_prune_mb */
} ng_spmv_defaults;
const ng_spmv_defaults *ng_spmv_get_defaults(void);

#ifdef __cplusplus
}
#endif
#endif /* NG_SPMV_H */
