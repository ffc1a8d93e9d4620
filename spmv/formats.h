/* spmv/formats.h: the host side of the SpMV formats beyond CSR (METHODS.md
 * section 2): their options, host containers, converters from CSR (with the
 * refusal rules), value refills, host reference SpMVs and exact footprints.
 * The CUDA tables (spmv/<format>_cuda.cu) build the same host container and upload
 * it, so the layout below is the device layout too. Also the format-spec
 * entry used by matrix.c and the autotuner ("auto"). */
#ifndef NG_SPMV_FORMATS_H
#define NG_SPMV_FORMATS_H
#include "spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- options ----------------------------------------------------------------
 * A format spec is "name[:token[:token...]]". Tokens: "noldg" (x through plain
 * loads, not the read-only cache), "nounroll" (diagonal loop not unrolled),
 * "maxdiag=N", "maxfill=F", "maxratio=R", and plain numbers, which are C then
 * sigma for sell ("sell:32:256"). Defaults come from the options
 * -dia_max_diags, -dia_max_fill, -ell_max_ratio, -sell_c, -sell_sigma
 * (ng_spmv_get_defaults, spmv.h: the values below unless
 * ng_options_apply_spmv set others); the spec overrides them. */
#define NG_DIA_MAXD 128 /* hard cap on diagonals (kernel parameter table) */
typedef struct {
  int dia_max_diags;    /* refuse DIA with more distinct diagonals (default 64) */
  double dia_max_fill;  /* refuse DIA when stored slots > this x stored nonzeros (default 2.0) */
  double ell_max_ratio; /* refuse ELL/ELLR when longest row > this x mean row (default 3.0) */
  int sell_c;           /* SELL slice height (default 32) */
  int sell_sigma;       /* SELL sorting window in rows (default 256; 1 = no sorting) */
  int unroll, ldg;      /* DIA kernel variants (default on, on) */
  int codsell_seq;      /* codsell: 1 = sequential converter (Algorithm 5), 0 = parallel (default) */
  int codsell_force;    /* codsell: keep it even when the dictionaries save less than their pointers cost */
} ng_spmv_opts;
ng_status ng_spmv_opts_parse(const char *fmt, const char *opt, ng_spmv_opts *o);

/* ---- DIA / CDS (spmv/dia.c) -----------------------------------------------
 * val[d*n + i] = A(i, i + off[d]), zero where i + off[d] is outside the
 * matrix or the entry is absent. half: only off <= 0 stored; A(i, i+k) for
 * k > 0 is read as the stored A(i+k, i) = val[d*n + i + k] (off[d] = -k). */
typedef struct {
  int32_t n, nd, half;
  int32_t *off; /* nd, ascending */
  double *val;  /* nd * n */
  ng_spmv_opts o;
} ng_dia;
ng_status ng_dia_build(const ng_csr *A, int half, const ng_spmv_opts *o, ng_dia *D);
ng_status ng_dia_fill(ng_dia *D, const ng_csr *A); /* values, same pattern */
void ng_dia_spmv(const ng_dia *D, double alpha, const double *x, double beta, double *y);
/* y = x + dinv .* (b - A x), or b - A x when dinv is NULL, in one pass (the
 * tables' fused entry, spmv.h; y must not alias x). */
void ng_dia_fused(const ng_dia *D, const double *b, const double *x, const double *dinv, double *y);
size_t ng_dia_bytes(const ng_dia *D); /* nd*n*8 + nd*4 */
void ng_dia_free(ng_dia *D);

/* ---- ELL / ELLPACK-R (spmv/ell.c) -----------------------------------------
 * Column-major n x width: entry k of row i at k*n + i. Padding repeats a
 * valid column (the row's last, or 0) with value 0, so ELL needs no branch;
 * ELLR keeps row lengths rl[i] and each thread stops at its own row end. */
typedef struct {
  int32_t n, ncols, width, ellr;
  int32_t *col; /* width * n */
  double *val;  /* width * n */
  int32_t *rl;  /* n (ellr only) */
  ng_spmv_opts o;
} ng_ell;
ng_status ng_ell_build(const ng_csr *A, int ellr, const ng_spmv_opts *o, ng_ell *E);
ng_status ng_ell_fill(ng_ell *E, const ng_csr *A);
void ng_ell_spmv(const ng_ell *E, double alpha, const double *x, double beta, double *y);
size_t ng_ell_bytes(const ng_ell *E); /* width*n*12 (+ n*4 for ellr) */
void ng_ell_free(ng_ell *E);

/* ---- SELL-C-sigma (spmv/sell.c) -------------------------------------------
 * Rows sorted by length (descending, stable) inside windows of sigma rows;
 * sorted position t = s*C + r lies in slice s; its k-th entry is at
 * sptr[s] + k*C + r; slice width w_s = (sptr[s+1]-sptr[s])/C. perm[t] is the
 * original row, so y is written back in the caller's ordering. */
typedef struct {
  int32_t n, ncols, C, sigma, nslices;
  int64_t *sptr; /* nslices + 1 */
  int32_t *col;  /* sptr[nslices] */
  double *val;   /* sptr[nslices] */
  int32_t *perm; /* n */
  ng_spmv_opts o;
} ng_sell;
ng_status ng_sell_build(const ng_csr *A, const ng_spmv_opts *o, ng_sell *S);
ng_status ng_sell_fill(ng_sell *S, const ng_csr *A);
void ng_sell_spmv(const ng_sell *S, double alpha, const double *x, double beta, double *y);
size_t ng_sell_bytes(const ng_sell *S); /* total*12 + (nslices+1)*8 + n*4 */
void ng_sell_free(ng_sell *S);

/* ---- CoD-SELL (spmv/codsell.c, spmv/codsell_core.h) ---------------------------
 * SELL-C-sigma with dictionary-compressed column indices (seed 003). Final
 * position t = s*C + r lies in slice s, lane r; perm[t] is its row. Slice s
 * has width w_s = (vptr[s+1]-vptr[s])/C value slots per lane and a
 * dictionary of d_s = dptr[s+1]-dptr[s] distances dict[dptr[s]..]. With
 * d_s > 0: lane r's column slot 0 (col[cptr[s] + r]) is its base b, value
 * slots 1..d_s hold A(row, b + dict[k]), and the remaining columns follow
 * SELL-style in column slots 1.. and value slots d_s+1..; with d_s = 0 the
 * slice is plain SELL. Column slot k of lane r is col[cptr[s] + k*C + r],
 * value slot k is val[vptr[s] + k*C + r]. C is a power of two (1..1024). */
typedef struct {
  int32_t n, ncols, C, sigma, nslices;
  int64_t *vptr, *cptr, *dptr; /* nslices + 1 each */
  int32_t *col, *dict, *perm;
  double *val;
  ng_spmv_opts o;
} ng_codsell;
/* parallel: 0 = Algorithm 5 (greedy in order), 1 = matching rounds (OpenMP);
 * both share every other step. Refuses (NG_ERR_DOES_NOT_FIT) a row with a
 * repeated column, and, unless o->codsell_force, a matrix whose dictionaries
 * save fewer bytes than the two extra pointer arrays cost. */
ng_status ng_codsell_build(const ng_csr *A, const ng_spmv_opts *o, int parallel, ng_codsell *S);
ng_status ng_codsell_fill(ng_codsell *S, const ng_csr *A);
void ng_codsell_spmv(const ng_codsell *S, double alpha, const double *x, double beta, double *y);
size_t ng_codsell_bytes(const ng_codsell *S); /* (val 8 + col 4) slots + dict 4 + 3 (nslices+1) 8 + n 4 */
size_t ng_codsell_dict_saving(const ng_codsell *S); /* column bytes the dictionaries save over SELL */
void ng_codsell_free(ng_codsell *S);

#ifdef NG_HAVE_CUDA
/* A copy of A on the device for the tables' create_dev (spmv/convert_cuda.cu). */
ng_status ng_dcsr_create(ng_context ctx, const ng_csr *A, void **dcsr);
void ng_dcsr_destroy(void *dcsr);
#endif
/* ng_spmv_create from an instance *base_data of A in base_ops's format that
 * already lives on ctx's memory (the matrix's own, dist/matrix.c): on the
 * GPU a csr base's device arrays are what every converter starts from (no
 * upload); "csr" takes the base itself and "auto" may keep it as its choice.
 * On success *base_data is set to NULL when the new instance took the base
 * over (the caller must then not destroy it); on failure nothing changes.
 * base_ops NULL: as ng_spmv_create. */
ng_status ng_spmv_create_from(ng_context ctx, const char *spec, const ng_csr *A, const ng_spmv_ops *base_ops,
                              void **base_data, const ng_spmv_ops **ops, void **data);
/* ng_spmv_create from a device copy of A (dcsr may be NULL: as ng_spmv_create). */
ng_status ng_spmv_create_dev(ng_context ctx, const char *spec, const ng_csr *A, const void *dcsr,
                             const ng_spmv_ops **ops, void **data);

/* ---- spec entry and automatic choice (spmv/registry.c, spmv/autotune.c) ---- */
/* Parses "name[:options]", finds the table for ctx's memory and creates it. */
ng_status ng_spmv_create(ng_context ctx, const char *spec, const ng_csr *A, const ng_spmv_ops **ops, void **data);
/* Creates every registered format that fits A on ctx's memory, times a few
 * SpMVs of each (CUDA events on the GPU, wall clock on the host) and keeps the
 * fastest in *ops / *data. report (may be NULL) gets "name=ms ..." lines.
 * Usable for any CSR block, e.g. per AMG level. */
ng_status ng_spmv_select(ng_context ctx, const ng_csr *A, const ng_spmv_ops **ops, void **data, char *report,
                         size_t len);
/* (The host "csr" table keeps a pointer to A: keep A alive while the
 * instance lives. Every other table copies what it needs.) */
/* The timings behind an "auto" matrix: ng_spmv_autotune_report, dist/dist.h.
 * Those of one created instance ("" unless ops is an "auto" table). */
const char *ng_spmv_auto_report(const ng_spmv_ops *ops, const void *data);
/* Median milliseconds of one SpMV y = A x over reps runs after warmup runs,
 * cycling through ncopies x/y pairs (so caches do not hold x between runs). */
ng_status ng_spmv_time(ng_context ctx, const ng_spmv_ops *ops, void *data, int ncopies, double *const *x,
                       double *const *y, int warmup, int reps, double *median_ms);
#ifdef NG_HAVE_CUDA
ng_status ng_spmv_time_cuda(ng_context ctx, const ng_spmv_ops *ops, void *data, int ncopies, double *const *x,
                            double *const *y, int warmup, int reps, double *median_ms);
#endif

#ifdef __cplusplus
}
#endif
#endif /* NG_SPMV_FORMATS_H */
