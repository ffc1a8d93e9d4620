/* spmv/autotune_profile_cuda.cu: the structural profile of "auto"
 * (spmv/autotune.h) computed on the device from the converters' device CSR,
 * the same numbers as ng_spmv_profile_host: longest row and lower entries by
 * reductions over rows, distinct diagonals by a mark array of 2n-1 bytes
 * (as the dia converter), counted and checked for +k/-k symmetry. A few
 * passes over the column indices: about a millisecond at 256^3. */
#include "convert_cuda.h"
#include "autotune.h"
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

namespace {

const int TPB = 256;

struct row_len {
  const int64_t *rp;
  __host__ __device__ int64_t operator()(int64_t i) const { return rp[i + 1] - rp[i]; }
};
struct row_lower { /* entries of row i with col <= i */
  const int64_t *rp;
  const int32_t *col;
  __device__ int64_t operator()(int64_t i) const
  {
    int64_t c = 0;
    for (int64_t p = rp[i]; p < rp[i + 1]; p++) c += col[p] <= i;
    return c;
  }
};
struct asymmetric { /* diagonal +k present and -k not, or the reverse */
  const unsigned char *mark;
  int64_t n;
  __device__ bool operator()(int64_t k) const { return mark[n - 1 + k] != mark[n - 1 - k]; }
};

__global__ void k_mark(int64_t n, const int64_t *rp, const int32_t *col, unsigned char *mark)
{
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
    unsigned char *m = mark + (col[p] - i + n - 1);
    if (!*m) *m = 1; /* read first: every row hits the same few bytes */
  }
}

} // namespace

#define PROFILE_TRY(call, label)                                                                                      \
  do {                                                                                                                \
    try {                                                                                                             \
      call;                                                                                                           \
    } catch (std::exception & e) {                                                                                   \
      st = NG_ERROR(NG_ERR_CUDA, "auto profile: %s failed on the device: %s", label, e.what());                        \
      goto done;                                                                                                      \
    }                                                                                                                 \
  } while (0)

extern "C" ng_status ng_spmv_profile_cuda(ng_context ctx, const void *dcsr, ng_spmv_profile *p)
{
  const ng_dcsr *A = (const ng_dcsr *)dcsr;
  cudaStream_t s = ctx->cuda->stream;
  auto pol = thrust::cuda::par.on(s);
  int64_t n = A->n;
  unsigned char *mark = NULL;
  ng_status st = NG_SUCCESS;
  thrust::counting_iterator<int64_t> k0(0);
  memset(p, 0, sizeof(*p));
  p->n = n;
  p->ncols = A->ncols;
  p->nnz = A->nnz;
  p->ndiag = -1;
  if (n == 0) {
    if (A->ncols == 0) p->ndiag = 0, p->diag_symmetric = 1;
    return NG_SUCCESS;
  }
  PROFILE_TRY(p->max_row = thrust::transform_reduce(pol, k0, k0 + n, row_len{A->rp}, (int64_t)0,
                                                    thrust::maximum<int64_t>()),
              "longest row");
  PROFILE_TRY(p->nnz_lower = thrust::transform_reduce(pol, k0, k0 + n, row_lower{A->rp, A->col}, (int64_t)0,
                                                      thrust::plus<int64_t>()),
              "lower entries");
  if (A->ncols != n) return NG_SUCCESS;
  NG_CHECK(ng_cuda_malloc((void **)&mark, (size_t)(2 * n - 1), "auto profile: diagonal marks"));
  {
    cudaError_t e = cudaMemsetAsync(mark, 0, (size_t)(2 * n - 1), s);
    if (e == cudaSuccess) {
      k_mark<<<(unsigned)((n + TPB - 1) / TPB), TPB, 0, s>>>(n, A->rp, A->col, mark);
      e = cudaGetLastError();
    }
    if (e != cudaSuccess) {
      st = NG_ERROR(NG_ERR_CUDA, "auto profile: marking diagonals failed: %s", cudaGetErrorString(e));
      goto done;
    }
  }
  {
    int64_t nall = 0, nlow = 0, asym = 0;
    PROFILE_TRY(nall = thrust::count(pol, mark, mark + 2 * n - 1, (unsigned char)1), "diagonal count");
    PROFILE_TRY(nlow = thrust::count(pol, mark, mark + n, (unsigned char)1), "lower diagonal count");
    if (n > 1) PROFILE_TRY(asym = thrust::count_if(pol, k0 + 1, k0 + n, asymmetric{mark, n}), "diagonal symmetry");
    p->ndiag = (int32_t)(nall < INT32_MAX ? nall : INT32_MAX);
    p->ndiag_lower = (int32_t)(nlow < INT32_MAX ? nlow : INT32_MAX);
    p->diag_symmetric = asym == 0;
  }
done:
  ng_cuda_free(mark);
  return st;
}
