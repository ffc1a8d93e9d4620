/* test/formats_cuda_host.cu: the GPU converters of spmv/convert_cuda.cu and
 * spmv/codsell_cuda.cu run on a CSR uploaded from a host one, their device
 * arrays downloaded into host containers (test/formats_cuda_host.h); linked
 * into test_formats_gpu only, in CUDA builds. */
#include "formats_cuda_host.h"
#include "../spmv/convert_cuda.h"
#include <string.h>

namespace {

/* *h = a host copy of the count entries at d; d is freed either way. */
template <typename T> ng_status back(ng_context ctx, T **h, T *d, int64_t count)
{
  *h = NULL;
  ng_status st = NG_MALLOC(*h, count > 0 ? count : 1);
  if (st == NG_SUCCESS && count > 0) {
    cudaError_t e = cudaMemcpyAsync(*h, d, (size_t)count * sizeof(T), cudaMemcpyDeviceToHost, ctx->cuda->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx->cuda->stream);
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "downloading a converter's array failed: %s", cudaGetErrorString(e));
  }
  ng_cuda_free(d);
  return st;
}

} // namespace

extern "C" ng_status ng_ell_build_cuda_host(ng_context ctx, const ng_csr *A, int ellr, const ng_spmv_opts *o, ng_ell *E)
{
  ng_dcsr d;
  int32_t *col, *rl;
  double *val;
  NG_CHECK(ng_dcsr_upload(ctx, A, &d));
  NG_CHECK(ng_ell_convert_cuda(ctx, &d, ellr, o, E, &col, &val, &rl));
  ng_status st = back(ctx, &E->col, col, (int64_t)E->width * E->n);
  if (st == NG_SUCCESS) st = back(ctx, &E->val, val, (int64_t)E->width * E->n);
  else ng_cuda_free(val);
  if (ellr && st == NG_SUCCESS) st = back(ctx, &E->rl, rl, E->n);
  else ng_cuda_free(rl);
  if (st != NG_SUCCESS) ng_ell_free(E);
  return st;
}

extern "C" ng_status ng_sell_build_cuda_host(ng_context ctx, const ng_csr *A, const ng_spmv_opts *o, ng_sell *S)
{
  ng_dcsr d;
  int64_t *sptr;
  int32_t *col, *perm;
  double *val;
  NG_CHECK(ng_dcsr_upload(ctx, A, &d));
  NG_CHECK(ng_sell_convert_cuda(ctx, &d, o, S, &sptr, &col, &val, &perm));
  ng_cuda_free(sptr);
  int64_t total = S->sptr[S->nslices];
  ng_status st = back(ctx, &S->col, col, total);
  if (st == NG_SUCCESS) st = back(ctx, &S->val, val, total);
  else ng_cuda_free(val);
  if (st == NG_SUCCESS) st = back(ctx, &S->perm, perm, S->n);
  else ng_cuda_free(perm);
  if (st != NG_SUCCESS) ng_sell_free(S);
  return st;
}

extern "C" ng_status ng_dia_build_cuda_host(ng_context ctx, const ng_csr *A, int half, const ng_spmv_opts *o, ng_dia *D)
{
  ng_dcsr d;
  double *val;
  NG_CHECK(ng_dcsr_upload(ctx, A, &d));
  NG_CHECK(ng_dia_convert_cuda(ctx, &d, half, o, D, &val));
  ng_status st = back(ctx, &D->val, val, (int64_t)D->nd * D->n);
  if (st != NG_SUCCESS) ng_dia_free(D);
  return st;
}

extern "C" ng_status ng_codsell_build_cuda_host(ng_context ctx, const ng_csr *A, const ng_spmv_opts *o, ng_codsell *H)
{
  ng_dcsr d;
  ng_codsell D;
  memset(H, 0, sizeof(*H));
  NG_CHECK(ng_dcsr_upload(ctx, A, &d));
  NG_CHECK(ng_codsell_convert_cuda(ctx, &d, o, &D));
  *H = D;
  H->vptr = H->cptr = H->dptr = NULL;
  H->dict = H->col = H->perm = NULL;
  H->val = NULL;
  /* the pointer arrays first: their last entries size the others */
  int64_t ns = (int64_t)D.nslices + 1;
  ng_status st = back(ctx, &H->vptr, D.vptr, ns);
  if (st == NG_SUCCESS) st = back(ctx, &H->cptr, D.cptr, ns);
  else ng_cuda_free(D.cptr);
  if (st == NG_SUCCESS) st = back(ctx, &H->dptr, D.dptr, ns);
  else ng_cuda_free(D.dptr);
  if (st == NG_SUCCESS) st = back(ctx, &H->dict, D.dict, H->dptr[D.nslices]);
  else ng_cuda_free(D.dict);
  if (st == NG_SUCCESS) st = back(ctx, &H->col, D.col, H->cptr[D.nslices]);
  else ng_cuda_free(D.col);
  if (st == NG_SUCCESS) st = back(ctx, &H->val, D.val, H->vptr[D.nslices]);
  else ng_cuda_free(D.val);
  if (st == NG_SUCCESS) st = back(ctx, &H->perm, D.perm, (int64_t)D.n);
  else ng_cuda_free(D.perm);
  if (st != NG_SUCCESS) ng_codsell_free(H);
  return st;
}
