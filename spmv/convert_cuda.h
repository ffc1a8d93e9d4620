/* spmv/convert_cuda.h: what the GPU converters share (spmv/convert_cuda.cu,
 * spmv/codsell_cuda.cu): a CSR on the device with 64-bit row offsets, the
 * stable length sort inside sigma windows that SELL and CoD-SELL start from,
 * and the converters of dia, dia_half, ell, ellr, sell and CoD-SELL (the
 * last in spmv/codsell_cuda.cu). The device CSR is either an upload of a
 * host CSR (ng_dcsr_upload) or a view of a GPU csr instance's arrays
 * (ng_dcsr_view, spmv/autotune.h: no upload). Each converter
 * builds on the device exactly the arrays its host converter (spmv/dia.c,
 * ell.c, sell.c) builds, with the same refusals; the host container it fills
 * holds the metadata (sizes, options, dia offsets, sell slice offsets) and
 * NULL for the big arrays, which stay on the device. C++ (CUDA) only. */
#ifndef NG_SPMV_CONVERT_CUDA_H
#define NG_SPMV_CONVERT_CUDA_H
#include "cuda_internal.h"
#include "formats.h"

struct ng_dcsr {
  int64_t n = 0, ncols = 0, nnz = 0;
  int64_t *rp = NULL; /* n + 1 */
  int32_t *col = NULL;
  double *val = NULL;
  bool borrowed = false;    /* col and val belong to a CSR instance (ng_dcsr_view): not freed here */
  bool borrowed_rp = false; /* rp too (a 64-bit csr instance) */
  ng_dcsr() = default;
  ng_dcsr(const ng_dcsr &) = delete;
  ng_dcsr &operator=(const ng_dcsr &) = delete;
  ~ng_dcsr()
  {
    if (!borrowed_rp) ng_cuda_free(rp);
    if (!borrowed) {
      ng_cuda_free(col);
      ng_cuda_free(val);
    }
  }
};
/* Copies A to the device (on ctx's stream, synchronised). */
ng_status ng_dcsr_upload(ng_context ctx, const ng_csr *A, ng_dcsr *d);

/* pos[t] = row at sorted position t: longest first inside windows of sigma
 * rows, ties in row order (the order of spmv/sell.c's qsort). pos: device, n. */
ng_status ng_length_sort_cuda(ng_context ctx, const ng_dcsr *A, int sigma, int32_t *pos);

/* Converters: on success the device arrays are the caller's (cudaFree). */
ng_status ng_dia_convert_cuda(ng_context ctx, const ng_dcsr *A, int half, const ng_spmv_opts *o, ng_dia *meta,
                              double **val);
ng_status ng_dia_fill_cuda(ng_context ctx, const ng_dcsr *A, const ng_dia *meta, double *val);
ng_status ng_ell_convert_cuda(ng_context ctx, const ng_dcsr *A, int ellr, const ng_spmv_opts *o, ng_ell *meta,
                              int32_t **col, double **val, int32_t **rl);
ng_status ng_ell_fill_cuda(ng_context ctx, const ng_dcsr *A, const ng_ell *meta, int32_t *col, double *val,
                           int32_t *rl);
ng_status ng_sell_convert_cuda(ng_context ctx, const ng_dcsr *A, const ng_spmv_opts *o, ng_sell *meta,
                               int64_t **sptr, int32_t **col, double **val, int32_t **perm);
ng_status ng_sell_fill_cuda(ng_context ctx, const ng_dcsr *A, const ng_sell *meta, const int64_t *sptr,
                            const int32_t *perm, int32_t *col, double *val);
/* CoD-SELL's (spmv/codsell_cuda.cu): D gets the metadata and the arrays,
 * which are on the device (the caller's, ng_cuda_free). */
ng_status ng_codsell_convert_cuda(ng_context ctx, const ng_dcsr *A, const ng_spmv_opts *o, ng_codsell *D);
#endif /* NG_SPMV_CONVERT_CUDA_H */
