/* precond/smoother_mcgs_cuda.cu: the MCGS / modified MCGS kernels of
 * smoother_mcgs.c on the GPU. One launch per color: a thread per row of the
 * color's ELL block (column-major, padded to 32 rows, so a warp reads 32
 * consecutive values and column indices of one block column), x and t read
 * through the block's row list. A color with couplings inside it (mmcgs)
 * writes its new values to a buffer, and a second launch copies them into
 * x, so its rows read the values from before the color's update: no race,
 * the same iterates at every run. Values come from the host CSR through
 * the layout's source indices (ng_mcgs_gather_values) and one upload; a
 * level whose host copy is stale (a GPU-built level refreshed on the device)
 * is downloaded first. */
#include "cuda_internal.h"
#include "smoother.h"

#define TPB 256

extern "C" ng_status ng_csr_cuda_arrays(const ng_spmv_ops *ops, void *data, int32_t **rowptr, int32_t **col,
                                        double **val);

typedef struct {
  ng_context ctx;
  int32_t *rows, *col; /* device */
  double *val, *dinv, *tmp;
  double *hval, *hdinv; /* host staging */
} mcgs_cuda;

__global__ void k_mcgs_color(int32_t m, int32_t pad, int32_t w, const int32_t *__restrict__ rows,
                             const int32_t *__restrict__ col, const double *__restrict__ val,
                             const double *__restrict__ dinv, double omega, const double *t, double *x, double *out)
{
  int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m) return;
  int32_t i = rows[k];
  double s = t[i];
  for (int32_t j = 0; j < w; j++) s -= val[(int64_t)j * pad + k] * x[col[(int64_t)j * pad + k]];
  double xn = omega == 1.0 ? s * dinv[k] : x[i] + omega * (s * dinv[k] - x[i]);
  if (out) out[k] = xn;
  else x[i] = xn;
}

__global__ void k_mcgs_write(int32_t m, const int32_t *rows, const double *in, double *x)
{
  int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < m) x[rows[k]] = in[k];
}

static void cuda_destroy(void *dev)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  if (!d) return;
  cudaFree(d->rows);
  cudaFree(d->col);
  cudaFree(d->val);
  cudaFree(d->dinv);
  cudaFree(d->tmp);
  ng_free(d->hval);
  ng_free(d->hdinv);
  ng_free(d);
}

static ng_status cuda_create(ng_context ctx, const ng_mcgs_layout *y, void **dev)
{
  mcgs_cuda *d;
  int64_t total = y->off[y->ncolors];
  NG_CHECK(NG_CALLOC(d, 1));
  *dev = d;
  d->ctx = ctx;
  NG_CHECK(NG_CUDA_MALLOC(d->rows, y->n ? y->n : 1));
  NG_CHECK(NG_CUDA_MALLOC(d->col, total ? total : 1));
  NG_CHECK(NG_CUDA_MALLOC(d->val, total ? total : 1));
  NG_CHECK(NG_CUDA_MALLOC(d->dinv, y->n ? y->n : 1));
  NG_CHECK(NG_CUDA_MALLOC(d->tmp, y->max_rows ? y->max_rows : 1));
  NG_CHECK(NG_MALLOC(d->hval, total ? total : 1));
  NG_CHECK(NG_MALLOC(d->hdinv, y->n ? y->n : 1));
  cudaStream_t s = ctx->cuda->stream;
  if (y->n) NG_CUDA_CHECK(cudaMemcpyAsync(d->rows, y->rows, (size_t)y->n * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  if (total) NG_CUDA_CHECK(cudaMemcpyAsync(d->col, y->ell_col, (size_t)total * sizeof(int32_t), cudaMemcpyHostToDevice, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s));
  return NG_SUCCESS;
}

static ng_status cuda_values(void *dev, const ng_mcgs_layout *y, ng_amg_level *L, const ng_csr *A)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  cudaStream_t s = d->ctx->cuda->stream;
  int64_t total = y->off[y->ncolors];
  if (L->host_stale && A == &L->A) { /* the update refreshed only the device copy of this level */
    int32_t *rp, *col;
    double *val;
    NG_CHECK(ng_csr_cuda_arrays(L->Aops, L->Adata, &rp, &col, &val));
    if (A->nnz) NG_CUDA_CHECK(cudaMemcpyAsync(L->A.val, val, (size_t)A->nnz * sizeof(double), cudaMemcpyDeviceToHost, s));
    NG_CUDA_CHECK(cudaStreamSynchronize(s));
    L->host_stale = 0;
  }
  ng_mcgs_gather_values(y, A, d->hval, d->hdinv);
  if (total) NG_CUDA_CHECK(cudaMemcpyAsync(d->val, d->hval, (size_t)total * sizeof(double), cudaMemcpyHostToDevice, s));
  if (y->n) NG_CUDA_CHECK(cudaMemcpyAsync(d->dinv, d->hdinv, (size_t)y->n * sizeof(double), cudaMemcpyHostToDevice, s));
  NG_CUDA_CHECK(cudaStreamSynchronize(s)); /* the staging buffers are reused by the next update */
  return NG_SUCCESS;
}

static ng_status cuda_color(void *dev, const ng_mcgs_layout *y, int c, double omega, const double *t, double *x)
{
  mcgs_cuda *d = (mcgs_cuda *)dev;
  int32_t s0 = y->start[c], m = y->start[c + 1] - s0;
  if (m == 0) return NG_SUCCESS;
  cudaStream_t s = d->ctx->cuda->stream;
  unsigned nb = (unsigned)((m + TPB - 1) / TPB);
  double *out = y->intra[c] ? d->tmp : NULL;
  k_mcgs_color<<<nb, TPB, 0, s>>>(m, y->pad[c], y->width[c], d->rows + s0, d->col + y->off[c], d->val + y->off[c],
                                  d->dinv + s0, omega, t, x, out);
  NG_CUDA_LAUNCH_CHECK();
  if (out) {
    k_mcgs_write<<<nb, TPB, 0, s>>>(m, d->rows + s0, out, x);
    NG_CUDA_LAUNCH_CHECK();
  }
  return NG_SUCCESS;
}

extern "C" const ng_mcgs_kernels ng_mcgs_cuda = {"cuda", cuda_create, cuda_values, cuda_color, cuda_destroy};
