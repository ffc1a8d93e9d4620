/* spmv/autotune.h: what "-format auto" shares between spmv/autotune.c (the
 * choice), spmv/autotune_predict.c (the structural profile and the lower
 * bounds on each format's traffic), spmv/autotune_cuda.cu (the profile on the
 * device, CUDA-event clocks), bench/formats.c and the tests.
 *
 * The choice in three steps (doc/performance.md, "auto"):
 *  1. profile A (row lengths, distinct diagonals) where it lives: on the
 *     device from the device CSR, on the host from the host CSR;
 *  2. for each format, refuse it when the profile shows its converter would
 *     (the same rules), else compute a lower bound on the bytes one SpMV
 *     moves in it;
 *  3. time CSR (on the GPU the matrix's own CSR instance: no conversion),
 *     then the others in increasing lower bound, skipping ("pruned") every
 *     format whose lower bound, moved at slack x the best bandwidth measured
 *     so far, would still be slower than the best time so far. Blocks whose
 *     CSR is under -format_auto_prune_mb (256 MB) may live in the caches,
 *     where time does not follow bytes: there every format that fits is
 *     timed. */
#ifndef NG_SPMV_AUTOTUNE_H
#define NG_SPMV_AUTOTUNE_H
#include "formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Structure of a CSR block, the same numbers on host and device. */
typedef struct {
  int64_t n, ncols, nnz;
  int64_t max_row;     /* longest row */
  int64_t nnz_lower;   /* entries with col <= row */
  int32_t ndiag;       /* distinct diagonals (col - row) over all entries; -1 when not square */
  int32_t ndiag_lower; /* of them, those with col - row <= 0 */
  int32_t diag_symmetric; /* 1 when diagonal +k is present exactly when -k is (square only) */
} ng_spmv_profile;

ng_status ng_spmv_profile_host(const ng_csr *A, ng_spmv_profile *p);

/* Lower bound on one SpMV's memory traffic in format `name` (the default
 * limits, -dia_max_diags ..., as "auto" creates it): the format's stored
 * bytes that every SpMV reads at least once, plus x (8 ncols) and y (8 n).
 * Returns 1 and writes why (a short reason) when the profile shows the
 * format's converter would refuse A with those options; 0 otherwise. An
 * unknown name gets 0 bytes (always worth timing). */
int ng_spmv_predict(const ng_spmv_profile *p, const char *name, double *lo_bytes, char *why, size_t len);

/* One candidate of an auto choice. state: "timed", "pruned" (bound too slow,
 * not converted), "refused" (by the profile, not converted),
 * "does-not-fit", "out-of-memory", "unsupported" (refused by its converter). */
#define NG_AUTO_MAXCAND 12
typedef struct {
  char name[16];
  const char *state;
  double lo_bytes;   /* the lower bound of ng_spmv_predict */
  double bytes;      /* stored bytes + x + y once converted, else 0 */
  double convert_ms; /* creation from the CSR (0 for a CSR instance given) */
  double spmv_ms;    /* median SpMV; 0 unless timed */
  char why[80];      /* the profile's reason for "refused" */
} ng_auto_cand;

typedef struct {
  int ncand;
  ng_auto_cand cand[NG_AUTO_MAXCAND];
  int from_device;     /* 1: started from a CSR instance already on ctx's memory (no upload) */
  int all;             /* 1: "auto:all", every format timed (no pruning) */
  int pruning;         /* 1: the pruning rule was applied (not "all", block not under -format_auto_prune_mb) */
  double slack;        /* bandwidth slack of the pruning rule */
  double csr_ms;       /* making the CSR instance (upload) when none was given, else 0 */
  double view_ms;      /* the converters' view of the device CSR (64-bit row offsets) */
  double profile_ms;   /* the structural profile */
  double total_ms;     /* everything, from the call to the choice */
  char chosen[16];
} ng_auto_breakdown;

/* The choice from a CSR instance `base` of A that already lives on ctx's
 * memory (base_ops NULL, or not ctx's "csr" table: none; then A is
 * uploaded once). opt: "" or tokens "all" (time every format), "slack=F"
 * (default -format_auto_slack, 1.3); -format_auto_prune_mb says which blocks
 * are pruned (ng_spmv_get_defaults). On success *ops / *data is the winner;
 * when the winner is base itself, *ops == base_ops and *data == base_data
 * (the caller decides who owns it). bd (may be NULL) gets the breakdown. */
ng_status ng_spmv_select_from(ng_context ctx, const ng_csr *A, const ng_spmv_ops *base_ops, void *base_data,
                              const char *opt, const ng_spmv_ops **ops, void **data, ng_auto_breakdown *bd);

/* The "auto" table's create from a base as above: *base_taken = 1 when the
 * new instance holds base_data (the caller must then not destroy it). */
ng_status ng_spmv_auto_create_from(ng_context ctx, const ng_csr *A, const ng_spmv_ops *base_ops, void *base_data,
                                   const char *opt, void **data, int *base_taken);
/* The breakdown behind an "auto" instance (NULL unless ops is an auto table). */
const ng_auto_breakdown *ng_spmv_auto_breakdown(const ng_spmv_ops *ops, const void *data);
/* The breakdown as the body of a JSON object (no braces): "total_ms":..,
 * "profile_ms":.., ..., "candidates":[{"format":..,"state":..,...}],
 * "chosen":"..". Truncated (still NUL-terminated) when len is short. */
void ng_auto_breakdown_json(const ng_auto_breakdown *bd, char *buf, size_t len);

/* Clocks for the breakdown: CUDA events on ctx's stream on the GPU (so the
 * time is the device's, queued work included), the wall clock on the host. */
typedef struct {
  ng_context ctx;
  void *ev[2];
  double t0;
} ng_clock;
ng_status ng_clock_start(ng_context ctx, ng_clock *c);
ng_status ng_clock_ms(ng_clock *c, double *ms); /* since start; the clock keeps running */
void ng_clock_free(ng_clock *c);

#ifdef NG_HAVE_CUDA
ng_status ng_spmv_profile_cuda(ng_context ctx, const void *dcsr, ng_spmv_profile *p);
ng_status ng_clock_start_cuda(ng_clock *c);
ng_status ng_clock_ms_cuda(ng_clock *c, double *ms);
void ng_clock_free_cuda(ng_clock *c);
/* A converters' view (spmv/convert_cuda.h ng_dcsr) of the device arrays of a
 * GPU "csr" instance of A: columns and values borrowed, row offsets too in
 * the 64-bit layout, else widened to 64 bits on the device. NG_ERR_ARGUMENT, without a message, when ops is
 * not the GPU csr table. Free with ng_dcsr_destroy (borrowed arrays stay). */
ng_status ng_dcsr_view(ng_context ctx, const ng_spmv_ops *ops, void *data, const ng_csr *A, void **dcsr);
#endif

#ifdef __cplusplus
}
#endif
#endif /* NG_SPMV_AUTOTUNE_H */
