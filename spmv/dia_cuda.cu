/* spmv/dia_cuda.cu: CUDA tables "dia" and "dia_half" (seed 000). The host
 * converter of dia.c builds the diagonals; they are uploaded as one nd x n
 * array, the offsets travel as a kernel parameter (uniform across a warp,
 * served by the constant cache). One thread per row. Conversion and value
 * refills run on the GPU (spmv/convert_cuda.cu); only the offsets stay on
 * the host. Variants of seed 000's
 * table: the diagonal loop unrolled at compile time for 7/27 diagonals (full)
 * and 4/14 (half) or a plain loop ("nounroll"), and x read through the
 * read-only cache with __ldg or with plain loads ("noldg"; the pointers are
 * not __restrict__, so the compiler cannot turn those into LDG.NC itself).
 * The fused entry (AMG smoother and residual in one pass) shares the row sums.
 *
 * Half storage: row i needs A(i, i+k) for k > 0, which is the stored lower
 * entry of row i+k, val[d][i+k] with off[d] = -k. Those reads are coalesced
 * (shifted by k) and, for the FEM/stencil offsets (k <= nx*ny + nx + 1), the
 * same lines are read again by the blocks of rows i+k a few MB of traffic
 * later, so they come from L2: the matrix crosses DRAM about once, at half
 * the bytes of full storage. */
#include "convert_cuda.h"

namespace {

struct dia_offs {
  int off[NG_DIA_MAXD];
};

struct dia_cuda {
  ng_context ctx;
  ng_dia h;       /* metadata and offsets (h.val is NULL: the values live on the device) */
  double *d_val;  /* nd * n, device */
  dia_offs offs;
};

template <bool LDG> __device__ __forceinline__ double load_x(const double *p)
{
  if (LDG) return __ldg(p);
  return *p;
}

/* Full storage: y_i = alpha sum_d val[d][i] x[i+off[d]] + beta y_i. Out-of-
 * matrix slots are selected away (no divergent branch; padding is 0). */
template <int ND, bool LDG>
__global__ void dia_full_kernel(int n, int nd_rt, dia_offs o, const double *val, const double *x, double alpha,
                                double beta, double *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  if (ND > 0) {
#pragma unroll
    for (int d = 0; d < (ND > 0 ? ND : 1); d++) {
      int j = i + o.off[d];
      bool ok = (unsigned)j < (unsigned)n;
      double a = val[(size_t)d * n + i], xv = load_x<LDG>(x + (ok ? j : i));
      s += ok ? a * xv : 0.0;
    }
  } else {
#pragma unroll 1
    for (int d = 0; d < nd_rt; d++) {
      int j = i + o.off[d];
      bool ok = (unsigned)j < (unsigned)n;
      double a = val[(size_t)d * n + i], xv = load_x<LDG>(x + (ok ? j : i));
      s += ok ? a * xv : 0.0;
    }
  }
  y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
}

/* Half storage, one diagonal d (off[d] = -k <= 0): the lower (or main)
 * entry of row i and, for k > 0, the mirrored upper entry A(i, i+k) =
 * val[d][i+k]. */
template <bool LDG>
__device__ __forceinline__ double dia_half_term(int i, int n, int k, const double *vd, const double *x)
{
  int j = i - k, r = i + k;
  bool lo = j >= 0, up = k > 0 && r < n;
  double a = vd[i], xl = load_x<LDG>(x + (lo ? j : i));
  double t = lo ? a * xl : 0.0;
  double b = vd[up ? r : i], xu = load_x<LDG>(x + (up ? r : i));
  return t + (up ? b * xu : 0.0);
}

template <int ND, bool LDG>
__global__ void dia_half_kernel(int n, int nd_rt, dia_offs o, const double *val, const double *x, double alpha,
                                double beta, double *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  if (ND > 0) {
#pragma unroll
    for (int d = 0; d < (ND > 0 ? ND : 1); d++) s += dia_half_term<LDG>(i, n, -o.off[d], val + (size_t)d * n, x);
  } else {
#pragma unroll 1
    for (int d = 0; d < nd_rt; d++) s += dia_half_term<LDG>(i, n, -o.off[d], val + (size_t)d * n, x);
  }
  y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
}

typedef void (*dia_kernel_t)(int, int, dia_offs, const double *, const double *, double, double, double *);

/* Row i's sum (A x)_i, full or half storage, as the SpMV kernels above. */
template <int ND, bool LDG, bool HALF>
__device__ __forceinline__ double dia_row_sum(int i, int n, int nd_rt, const dia_offs &o, const double *val,
                                              const double *x)
{
  double s = 0.0;
  if (ND > 0) {
#pragma unroll
    for (int d = 0; d < (ND > 0 ? ND : 1); d++) {
      if (HALF) s += dia_half_term<LDG>(i, n, -o.off[d], val + (size_t)d * n, x);
      else {
        int j = i + o.off[d];
        bool ok = (unsigned)j < (unsigned)n;
        double a = val[(size_t)d * n + i], xv = load_x<LDG>(x + (ok ? j : i));
        s += ok ? a * xv : 0.0;
      }
    }
  } else {
#pragma unroll 1
    for (int d = 0; d < nd_rt; d++) {
      if (HALF) s += dia_half_term<LDG>(i, n, -o.off[d], val + (size_t)d * n, x);
      else {
        int j = i + o.off[d];
        bool ok = (unsigned)j < (unsigned)n;
        double a = val[(size_t)d * n + i], xv = load_x<LDG>(x + (ok ? j : i));
        s += ok ? a * xv : 0.0;
      }
    }
  }
  return s;
}

/* The AMG smoother's one pass (the table's fused entry): y = x + dinv .*
 * (b - A x) (JAC) or y = b - A x. A Jacobi sweep as SpMV, xpay,
 * pointwise_mult and axpy moves A, x, then 9 vectors more (about 200 B a
 * row for dia_half 27-point); this moves A, x, b, dinv and y (144 B). */
template <int ND, bool LDG, bool HALF, bool JAC>
__global__ void dia_fused_kernel(int n, int nd_rt, dia_offs o, const double *val, const double *b, const double *x,
                                 const double *dinv, double *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double r = b[i] - dia_row_sum<ND, LDG, HALF>(i, n, nd_rt, o, val, x);
  y[i] = JAC ? x[i] + dinv[i] * r : r;
}

typedef void (*dia_fused_t)(int, int, dia_offs, const double *, const double *, const double *, const double *,
                            double *);
template <bool LDG, bool JAC> dia_fused_t pick_fused(int half, int nd, int unroll)
{
  if (half) {
    if (unroll && nd == 4) return dia_fused_kernel<4, LDG, true, JAC>;
    if (unroll && nd == 14) return dia_fused_kernel<14, LDG, true, JAC>;
    return dia_fused_kernel<0, LDG, true, JAC>;
  }
  if (unroll && nd == 7) return dia_fused_kernel<7, LDG, false, JAC>;
  if (unroll && nd == 27) return dia_fused_kernel<27, LDG, false, JAC>;
  return dia_fused_kernel<0, LDG, false, JAC>;
}

/* The instantiation for this matrix and variant. */
template <bool LDG> dia_kernel_t pick(int half, int nd, int unroll)
{
  if (half) {
    if (unroll && nd == 4) return dia_half_kernel<4, LDG>;
    if (unroll && nd == 14) return dia_half_kernel<14, LDG>;
    return dia_half_kernel<0, LDG>;
  }
  if (unroll && nd == 7) return dia_full_kernel<7, LDG>;
  if (unroll && nd == 27) return dia_full_kernel<27, LDG>;
  return dia_full_kernel<0, LDG>;
}

void dia_cuda_free(dia_cuda *D)
{
  if (!D) return;
  if (D->d_val) D->ctx->vops->free_raw(D->ctx, D->d_val);
  ng_dia_free(&D->h);
  ng_free(D);
}

ng_status dia_cuda_create(ng_context ctx, const ng_csr *A, const ng_dcsr *given, const char *opt, int half, void **data)
{
  ng_spmv_opts o;
  dia_cuda *D = NULL;
  ng_status st;
  NG_CHECK(ng_spmv_opts_parse(half ? "dia_half" : "dia", opt, &o));
  /* the kernels form i + off and i + k in int: |off| < n keeps them in
   * range while n <= 2^30 */
  if (A->nrows > (1 << 30))
    return NG_ERROR(NG_ERR_DOES_NOT_FIT, "%s on the GPU: %d rows, more than the 2^30 its 32-bit row + offset "
                    "arithmetic allows", half ? "dia_half" : "dia", (int)A->nrows);
  NG_CHECK(NG_CALLOC(D, 1));
  D->ctx = ctx;
  {
    ng_dcsr d;
    if (!given) NG_CHECK_GOTO(st, ng_dcsr_upload(ctx, A, &d), fail);
    NG_CHECK_GOTO(st, ng_dia_convert_cuda(ctx, given ? given : &d, half, &o, &D->h, &D->d_val), fail);
  }
  for (int d = 0; d < D->h.nd; d++) D->offs.off[d] = D->h.off[d];
  *data = D;
  return NG_SUCCESS;
fail:
  dia_cuda_free(D);
  return st;
}

ng_status dia_cuda_apply(void *data, double alpha, const double *x, double beta, double *y)
{
  dia_cuda *D = (dia_cuda *)data;
  int n = D->h.n;
  if (n == 0) return NG_SUCCESS;
  dia_kernel_t k = D->h.o.ldg ? pick<true>(D->h.half, D->h.nd, D->h.o.unroll)
                              : pick<false>(D->h.half, D->h.nd, D->h.o.unroll);
  k<<<(unsigned)(((int64_t)n + 255) / 256), 256, 0, D->ctx->cuda->stream>>>(n, D->h.nd, D->offs, D->d_val, x, alpha, beta, y);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

ng_status dia_cuda_fused(void *data, const double *b, const double *x, const double *dinv, double *y)
{
  dia_cuda *D = (dia_cuda *)data;
  int n = D->h.n, h = D->h.half, nd = D->h.nd, u = D->h.o.unroll;
  if (n == 0) return NG_SUCCESS;
  dia_fused_t k = D->h.o.ldg ? (dinv ? pick_fused<true, true>(h, nd, u) : pick_fused<true, false>(h, nd, u))
                             : (dinv ? pick_fused<false, true>(h, nd, u) : pick_fused<false, false>(h, nd, u));
  k<<<(n + 255) / 256, 256, 0, D->ctx->cuda->stream>>>(n, nd, D->offs, D->d_val, b, x, dinv, y);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

ng_status dia_cuda_update(void *data, const ng_csr *A)
{
  dia_cuda *D = (dia_cuda *)data;
  ng_dcsr d;
  NG_CHECK(ng_dcsr_upload(D->ctx, A, &d));
  NG_CHECK(ng_dia_fill_cuda(D->ctx, &d, &D->h, D->d_val));
  return NG_SUCCESS;
}

/* New values from a device CSR with the same pattern (AMG's finest level
 * refreshed from the matrix's own device copy). */
ng_status dia_cuda_update_dev(void *data, const void *dcsr)
{
  dia_cuda *D = (dia_cuda *)data;
  NG_CHECK(ng_dia_fill_cuda(D->ctx, (const ng_dcsr *)dcsr, &D->h, D->d_val));
  return NG_SUCCESS;
}

size_t dia_cuda_bytes(const void *data) { return ng_dia_bytes(&((const dia_cuda *)data)->h); }
void dia_cuda_destroy(void *data) { dia_cuda_free((dia_cuda *)data); }

ng_status dia_full_create_opt(ng_context c, const ng_csr *A, const char *opt, void **d)
{
  return dia_cuda_create(c, A, NULL, opt, 0, d);
}
ng_status dia_half_create_opt(ng_context c, const ng_csr *A, const char *opt, void **d)
{
  return dia_cuda_create(c, A, NULL, opt, 1, d);
}
ng_status dia_full_create_dev(ng_context c, const ng_csr *A, const void *g, const char *opt, void **d)
{
  return dia_cuda_create(c, A, (const ng_dcsr *)g, opt, 0, d);
}
ng_status dia_half_create_dev(ng_context c, const ng_csr *A, const void *g, const char *opt, void **d)
{
  return dia_cuda_create(c, A, (const ng_dcsr *)g, opt, 1, d);
}
ng_status dia_full_create(ng_context c, const ng_csr *A, void **d) { return dia_cuda_create(c, A, NULL, "", 0, d); }
ng_status dia_half_create(ng_context c, const ng_csr *A, void **d) { return dia_cuda_create(c, A, NULL, "", 1, d); }

ng_spmv_ops make_ops(const char *name, ng_status (*create)(ng_context, const ng_csr *, void **),
                     ng_status (*create_opt)(ng_context, const ng_csr *, const char *, void **),
                     ng_status (*create_dev)(ng_context, const ng_csr *, const void *, const char *, void **))
{
  ng_spmv_ops t = {};
  t.name = name;
  t.on_gpu = 1;
  t.create = create;
  t.apply = dia_cuda_apply;
  t.update_values = dia_cuda_update;
  t.update_dev = dia_cuda_update_dev;
  t.bytes = dia_cuda_bytes;
  t.destroy = dia_cuda_destroy;
  t.create_opt = create_opt;
  t.create_dev = create_dev;
  t.fused = dia_cuda_fused;
  return t;
}

} // namespace

extern "C" const ng_spmv_ops ng_spmv_dia_cuda = make_ops("dia", dia_full_create, dia_full_create_opt, dia_full_create_dev);
extern "C" const ng_spmv_ops ng_spmv_dia_half_cuda = make_ops("dia_half", dia_half_create, dia_half_create_opt, dia_half_create_dev);

/* The device arrays behind a dia / dia_half table (amg/amg_single.c
 * makes its float copy from them); NG_ERR_ARGUMENT (quiet) for another table. */
extern "C" ng_status ng_dia_cuda_arrays(const ng_spmv_ops *ops, void *data, const ng_dia **meta, const double **val)
{
  if ((ops != &ng_spmv_dia_cuda && ops != &ng_spmv_dia_half_cuda) || !data) return NG_ERR_ARGUMENT;
  dia_cuda *D = (dia_cuda *)data;
  *meta = &D->h;
  *val = D->d_val;
  return NG_SUCCESS;
}
