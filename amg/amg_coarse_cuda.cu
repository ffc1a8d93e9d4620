/* amg/amg_coarse_cuda.cu: the coarsest level's dense inverse on the GPU
 * (one-rank GPU context, -amg_coarse_solver direct, -amg_format csr).
 *
 * The host's Cholesky inverse (dense_chol.c) is serial in its factor and
 * took 3.5-4.6 ms of lap7:128's 38 ms setup (338 rows), and as much again at
 * every update. Here: Gauss-Jordan without pivoting, one launch per pivot
 * over the whole n x n matrix (a thread per entry, the step written to a
 * second buffer, so no entry is read after it changed), straight into the
 * values of the V-cycle's table: nothing of size n^2 crosses the bus after
 * the operator's own upload. Without pivoting only for a symmetric operator
 * (checked on the host copy the coarsest level has). Its pivots are Schur
 * complements: all positive for an SPD matrix, where no pivoting is needed.
 * A pivot whose size is not above NG_DENSE_PIVOT_RTOL times its original
 * diagonal's (a singular operator, such as a pure-Neumann problem's, whose
 * last pivot is round-off of either sign) sends the level to the host,
 * whose inverse handles it (the pseudo-inverse of a semidefinite matrix,
 * else pivoting) and reports (*done = 0). A negative pivot of fair size
 * (an indefinite operator: -amg_sparsify's diagonal lumping makes fem27:256's
 * 290-row coarsest one, one eigenvalue -8e-5 against 2.7e-3, where the
 * host's pivoting inverse took 23 ms of every setup and update) is kept,
 * and the result is checked: max |A X - I| above NG_GJ_CHECK (growth
 * without pivoting) sends the level to the host as well. The lower
 * triangle is mirrored at the end, so the inverse is exactly symmetric, as
 * the host's, and the V-cycle stays symmetric for CG. */
#include "cuda_internal.h"
#include "amg.h"
#include <math.h>

extern "C" ng_status ng_csr_cuda_make(ng_context ctx, int32_t nrows, int32_t ncols, int64_t nnz,
                                      ng_status (*fill)(void *arg, int32_t *rowptr, int32_t *col, double *val),
                                      void *arg, void **data);

#define TPB 256

#define NG_GJ_CHECK 1e-8 /* max |A X - I| an inverse with a negative pivot may have */

/* pivot k: b = a after the step (row k scaled by 1 / a_kk, column k
 * -a_ik / a_kk, the rest a_ij - a_ik (a_kj / a_kk): the host's gauss_jordan
 * without the row swaps); a row per blockIdx.y. flag[0]: a pivot too small
 * (or not finite), flag[1]: a negative one. */
__global__ void k_gj_step(int32_t n, int32_t k, const double *__restrict__ a, double *__restrict__ b,
                          const double *__restrict__ diag, int *flag)
{
  int32_t i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  double p = a[(int64_t)k * n + k];
  if (!(fabs(p) > NG_DENSE_PIVOT_RTOL * fabs(diag[k])) || !isfinite(p)) {
    if (i == 0 && j == 0) flag[0] = 1;
    return;
  }
  if (p < 0.0 && i == 0 && j == 0) flag[1] = 1;
  double r = 1.0 / p, v;
  if (i == k) v = j == k ? r : a[(int64_t)k * n + j] * r;
  else if (j == k) v = -a[(int64_t)i * n + k] * r;
  else v = a[(int64_t)i * n + j] - a[(int64_t)i * n + k] * (a[(int64_t)k * n + j] * r);
  b[(int64_t)i * n + j] = v;
}

/* After a negative pivot (flag[1]) only: entry (i, j) of A X - I (a the
 * operator, x its inverse), flag[0] = 2 where it is above NG_GJ_CHECK;
 * a row per blockIdx.y */
__global__ void k_gj_check(int32_t n, const double *__restrict__ a, const double *__restrict__ x, int *flag)
{
  int32_t i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n || !flag[1] || flag[0]) return;
  double s = i == j ? -1.0 : 0.0;
  for (int32_t k = 0; k < n; k++) s += a[(int64_t)i * n + k] * x[(int64_t)k * n + j];
  if (!(fabs(s) <= NG_GJ_CHECK)) flag[0] = 2;
}

/* d = the diagonal of the n x n row-major a (the pivots' references) */
__global__ void k_diag(int32_t n, const double *a, double *d)
{
  int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = a[(int64_t)i * n + i];
}

/* a_ji = a_ij for i > j: exactly symmetric */
__global__ void k_mirror(int32_t n, double *a)
{
  int32_t i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < i) a[(int64_t)j * n + i] = a[(int64_t)i * n + j];
}

/* the full n x n CSR pattern: row i's offsets i n, its columns 0..n-1 */
__global__ void k_dense_pattern(int32_t n, int32_t *rp, int32_t *col)
{
  int32_t i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) col[(int64_t)i * n + j] = j;
  if (j == 0) rp[i + 1] = (i + 1) * n;
  if (i == 0 && j == 0) rp[0] = 0;
}

/* the full n x n pattern into a new table's arrays (ng_csr_cuda_make's fill) */
typedef struct {
  cudaStream_t stream;
  int32_t n;
} dense_arg;

static ng_status fill_dense(void *arg, int32_t *rp, int32_t *col, double *val)
{
  dense_arg *a = (dense_arg *)arg;
  dim3 grid((a->n + TPB - 1) / TPB, a->n);
  (void)val;
  k_dense_pattern<<<grid, TPB, 0, a->stream>>>(a->n, rp, col);
  if (cudaGetLastError() != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG: the coarsest inverse's pattern kernel failed");
  return NG_SUCCESS;
}

/* M->Cops / M->Cdata: a device CSR of the full n x n pattern, values unset */
static ng_status make_table(ng_context ctx, ng_amg *M, int32_t n)
{
  dense_arg a = {ctx->cuda->stream, n};
  NG_CHECK(ng_csr_cuda_make(ctx, n, n, (int64_t)n * n, fill_dense, &a, &M->Cdata));
  M->Cops = ng_spmv_find("csr", 1);
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_coarse_inverse(ng_context ctx, ng_amg *M, const ng_csr *A, int *done)
{
  int32_t n = A->nrows, *rp, *col;
  const double *h;
  double *val = NULL, *work = NULL, *diag = NULL, *orig = NULL;
  int *dbad = NULL, bad = 0, made = 0;
  ng_status st = NG_SUCCESS;
  cudaStream_t s;
  *done = 0;
  if (!ctx->on_gpu || ctx->size > 1 || n == 0 || n > 4096 || ng_spmv_find(M->format, 1) != ng_spmv_find("csr", 1))
    return NG_SUCCESS;
  s = ctx->cuda->stream;
  double tt = ng_wtime();
  NG_CHECK(ng_amg_coarse_dense(M, A)); /* A densified into the host's M->coarse_inv */
  h = M->coarse_inv.val;
  if (!ng_dense_symmetrize(n, M->coarse_inv.val)) { /* the host's pivoting inverse */
    ng_amg_trace(ctx, "coarsest inverse: not symmetric, to the host", M->nlevels - 1, &tt);
    goto out;
  }
  ng_amg_trace(ctx, "coarsest inverse: densified, symmetric", M->nlevels - 1, &tt);
  if (!M->Cops) {
    NG_CHECK_GOTO(st, make_table(ctx, M, n), out);
    made = 1;
  }
  if (ng_csr_cuda_arrays(M->Cops, M->Cdata, &rp, &col, &val) != NG_SUCCESS) goto out; /* another table: the host's */
  NG_CHECK_GOTO(st, NG_CUDA_TMP(ctx->cuda, work, (size_t)n * n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(ctx->cuda, orig, (size_t)n * n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(ctx->cuda, dbad, 2), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(ctx->cuda, diag, n), out);
  {
    dim3 grid((n + TPB - 1) / TPB, n);
    double *src = val, *dst = work;
    cudaError_t e = cudaMemsetAsync(dbad, 0, 2 * sizeof(int), s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(val, h, (size_t)n * n * sizeof(double), cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(orig, val, (size_t)n * n * sizeof(double), cudaMemcpyDeviceToDevice, s);
    if (e == cudaSuccess) {
      k_diag<<<(n + TPB - 1) / TPB, TPB, 0, s>>>(n, val, diag);
      e = cudaGetLastError();
    }
    for (int32_t k = 0; e == cudaSuccess && k < n; k++) {
      k_gj_step<<<grid, TPB, 0, s>>>(n, k, src, dst, diag, dbad);
      e = cudaGetLastError();
      double *t = src;
      src = dst, dst = t;
    }
    if (e == cudaSuccess && src != val) e = cudaMemcpyAsync(val, src, (size_t)n * n * sizeof(double), cudaMemcpyDeviceToDevice, s);
    if (e == cudaSuccess) {
      k_mirror<<<grid, TPB, 0, s>>>(n, val);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) { /* returns at once unless a pivot was negative */
      k_gj_check<<<grid, TPB, 0, s>>>(n, orig, val, dbad);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(&bad, dbad, sizeof(int), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
      st = NG_ERROR(NG_ERR_CUDA, "AMG: the coarsest inverse on the GPU failed: %s", cudaGetErrorString(e));
      goto out;
    }
  }
  *done = !bad; /* a pivot too small, or growth: the host inverts it (and reports a singular one) */
  ng_amg_trace(ctx, bad == 1   ? "coarsest inverse: Gauss-Jordan (GPU) met a pivot too small, to the host"
                    : bad == 2 ? "coarsest inverse: Gauss-Jordan (GPU) failed its check, to the host"
                               : "coarsest inverse: Gauss-Jordan (GPU)",
               M->nlevels - 1, &tt);
out:
  if (made && (!*done)) { /* the host path makes its own table */
    M->Cops->destroy(M->Cdata);
    M->Cops = NULL;
    M->Cdata = NULL;
  }
  ng_cuda_tmp_free(ctx->cuda, work); /* the context's pool (stream-ordered) */
  ng_cuda_tmp_free(ctx->cuda, dbad);
  ng_cuda_tmp_free(ctx->cuda, orig);
  ng_cuda_tmp_free(ctx->cuda, diag);
  return st;
}
