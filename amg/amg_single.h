/* amg/amg_single.h: the FP32 V-cycle's matrices and kernels
 * (-amg_precision single; amg_single.c, host kernels there and CUDA ones
 * in amg_single_cuda.cu). A float matrix is CSR (the double table's row
 * offsets and columns borrowed, values converted to float) or DIA / DIA
 * half (the layout of spmv/formats.h with float values). Arithmetic is in
 * float throughout, so the host kernels are the GPU ones' reference to
 * float rounding. */
#ifndef NG_AMG_SINGLE_H
#define NG_AMG_SINGLE_H
#include "amg.h"
#include "../spmv/formats.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int dia;                 /* 0: CSR, 1: DIA */
  int32_t n, ncols;
  int64_t nnz;
  const int64_t *rp64;     /* CSR row offsets on the host (borrowed) */
  const int32_t *rp32;     /* CSR row offsets on the device (borrowed) */
  const int32_t *col;      /* CSR columns (borrowed) */
  int lanes;               /* GPU CSR: threads per row (4 or 32, by the mean row length) */
  int32_t nd, half;        /* DIA */
  int32_t off[NG_DIA_MAXD];
  float *val;              /* owned: nnz (CSR) or nd * n (DIA) floats in context memory */
} ng_fmat;

typedef struct ng_amg_fops {
  ng_status (*d2f)(ng_context ctx, int64_t n, const double *x, float *y); /* y = (float) x */
  ng_status (*f2d)(ng_context ctx, int64_t n, const float *x, double *y);
  ng_status (*pmult)(ng_context ctx, int32_t n, const float *d, const float *x, float *y); /* y = d .* x */
  ng_status (*copy)(ng_context ctx, int32_t n, const float *x, float *y);
  ng_status (*zero)(ng_context ctx, int32_t n, float *x);
  /* y = alpha A x + beta y (beta 0: y overwritten) */
  ng_status (*spmv)(ng_context ctx, const ng_fmat *A, float alpha, const float *x, float beta, float *y);
  /* y = x + dinv .* (b - A x), or b - A x with dinv NULL (y not x) */
  ng_status (*fused)(ng_context ctx, const ng_fmat *A, const float *b, const float *x, const float *dinv, float *y);
} ng_amg_fops;
extern const ng_amg_fops ng_amg_fops_host;
#ifdef NG_HAVE_CUDA
extern const ng_amg_fops ng_amg_fops_cuda;
/* The device arrays of a CUDA dia / dia_half table (spmv/dia_cuda.cu);
 * NG_ERR_ARGUMENT (quiet) for another table. */
ng_status ng_dia_cuda_arrays(const ng_spmv_ops *ops, void *data, const ng_dia **meta, const double **val);
#endif

#ifdef __cplusplus
}
#endif
#endif
