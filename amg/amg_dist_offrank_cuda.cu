/* amg/amg_dist_offrank_cuda.cu: an uncoupled level's off-rank block of A_c
 * on the device (amg_dist_local.c's interface() is the host's):
 *   A_c,off = P(I,:)^T (A_off(I,:) P_halo),
 * I the rows with off-rank couplings, P_halo the neighbours' P rows of this
 * rank's halo columns. Everything level-sized stays on the device: P's
 * rows of the halo plan's send list are gathered there and sent device to
 * device (a plan over their entries, comm/halo_rows_plan.c: NVLink through
 * CUDA IPC on one node; columns travel as doubles, exact below 2^53), the
 * distinct coarse columns of P_halo come from a radix sort on the device,
 * P(I,:)^T from a stable radix sort of its entries by column (so its rows
 * list I in order: the sums' order is fixed), and both products from the
 * setup's SpGEMM (amg_galerkin_cuda.cu). Only the rows' lengths, the
 * distinct columns (a boundary's worth) and the block itself cross to the
 * host. The state keeps every pattern: an update gathers P's values, sends
 * them through the same plan, uploads A_off's values and multiplies into
 * the kept patterns. On 4 H200s this step was 42 of the 95 ms of
 * lap27:256's setup as a host algorithm (doc/performance.md). */
#include "amg_setup_cuda.cuh"
#include "../comm/halo.h"
#include <cub/cub.cuh>
#include "amg_kernels_cuda.cuh"

struct ng_amg_doff {
  amg_gpu g;                   /* ctx and the SpGEMM's overflow flag */
  struct ng_halo_plan *plan;   /* P's sent rows' entries (NULL: no neighbours here) */
  int32_t nI, nsend, nh_rows, nc, ncm;
  int64_t send_nnz, nh, pi_nnz;
  int32_t *dI;                 /* I (device) */
  int64_t *srp, *irp;          /* offsets of P's sent rows and of P(I,:) in the gathered arrays (device) */
  double *sval, *ival;         /* their values, gathered (device) */
  double *hbuf;                /* the plan's receive buffer: P_halo's values (device) */
  int32_t *Yrp, *Ycol;         /* P_halo over the distinct coarse columns (device; values: hbuf) */
  int32_t *Xrp, *Xcol;         /* A_off(I,:) (device) */
  double *Xval;
  int32_t *Trp, *Tcol, *perm;  /* P(I,:)^T and the P(I,:) entry of each of its slots (device) */
  double *Tval;
  int32_t *Wrp, *Wcol, *Zrp, *Zcol; /* the products (device, pooled) */
  double *Wval, *Zval;
  int64_t nnzW, nnzZ;
  int hcW, hcZ;
  int64_t *zrp, *zgc;          /* Z's rows and global columns (host), copied out at every call */
};

#define CK(call, what)                                                                                     \
  do {                                                                                                     \
    cudaError_t e_ = (call);                                                                               \
    if (e_ != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG off-rank block on the GPU: %s: %s", what,     \
                                           cudaGetErrorString(e_));                                        \
  } while (0)

extern "C" void ng_amg_gpu_offrank_free(ng_amg_doff *S)
{
  if (!S) return;
  struct ng_cuda *cu = S->g.ctx->cuda;
  ng_halo_plan_destroy(S->plan);
  if (S->hbuf) S->g.ctx->vops->free(S->g.ctx, S->hbuf);
  void *dev[] = {S->dI, S->srp, S->irp, S->sval, S->ival, S->Yrp, S->Ycol, S->Xrp, S->Xcol, S->Xval,
                 S->Trp, S->Tcol, S->perm, S->Tval, S->Wrp, S->Wcol, S->Wval, S->Zrp, S->Zcol, S->Zval, S->g.flag};
  for (size_t k = 0; k < sizeof(dev) / sizeof(dev[0]); k++) ng_cuda_tmp_free(cu, dev[k]);
  ng_free(S->zrp);
  ng_free(S->zgc);
  ng_free(S);
}

/* ---- kernels -------------------------------------------------------------- */
static __global__ void k_rows_len(int32_t cnt, const int32_t *rows, const int32_t *Prp, int64_t *len)
{
  ROW_LOOP(cnt) len[i] = Prp[rows[i] + 1] - Prp[rows[i]];
}
/* the rows' entries at their offsets: columns (as global doubles, gcol != NULL,
 * or local, col != NULL) and values */
static __global__ void k_rows_copy(int32_t cnt, const int32_t *rows, const int32_t *Prp, const int32_t *Pcol,
                            const double *Pval, const int64_t *off, int32_t *col, double *gcol, int64_t cbegin,
                            double *val)
{
  ROW_LOOP(cnt) {
    int64_t o = off[i];
    for (int32_t p = Prp[rows[i]]; p < Prp[rows[i] + 1]; p++, o++) {
      if (col) col[o] = Pcol[p];
      if (gcol) gcol[o] = (double)(cbegin + Pcol[p]);
      val[o] = Pval[p];
    }
  }
}
static __global__ void k_to_int64(int64_t n, const double *x, int64_t *y)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = (int64_t)x[i];
}
/* hcc[p] = the index of g[p] among the m sorted distinct columns cm */
static __global__ void k_lower_bound(int64_t n, const int64_t *g, const int64_t *cm, int32_t m, int32_t *hcc)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int32_t lo = 0, hi = m;
    while (lo < hi) {
      int32_t mid = lo + (hi - lo) / 2;
      if (cm[mid] < g[i]) lo = mid + 1;
      else hi = mid;
    }
    hcc[i] = lo;
  }
}
static __global__ void k_iota(int64_t n, int32_t *v)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    v[i] = (int32_t)i;
}
static __global__ void k_count_cols(int64_t n, const int32_t *col, int64_t *cnt)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    atomicAdd((unsigned long long *)&cnt[col[i]], 1ull);
}
/* the row k of every entry of P(I,:) */
static __global__ void k_row_of(int32_t cnt, const int64_t *off, int32_t *row)
{
  ROW_LOOP(cnt) for (int64_t p = off[i]; p < off[i + 1]; p++) row[p] = i;
}
/* P(I,:)^T's slot t: the row of entry perm[t] (col), its value (val) */
static __global__ void k_gather_i32(int64_t n, const int32_t *perm, const int32_t *src, int32_t *dst)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    dst[i] = src[perm[i]];
}
static __global__ void k_gather_f64(int64_t n, const int32_t *perm, const double *src, double *dst)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    dst[i] = src[perm[i]];
}
static __global__ void k_narrow_off(int64_t n, const int64_t *in, int32_t *out)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i <= n; i += (int64_t)gridDim.x * blockDim.x)
    out[i] = (int32_t)in[i];
}

/* ---- steps ---------------------------------------------------------------- */
/* Offsets (device *off, cnt + 1; host copy hoff when wanted) of P's rows
 * rows[0..cnt) (device) and the total. */
static ng_status rows_offsets(ng_amg_doff *S, const amg_gpu *P, int32_t cnt, const int32_t *rows, int64_t **off,
                              int64_t *hoff, int64_t *total)
{
  struct ng_cuda *cu = S->g.ctx->cuda;
  cudaStream_t s = cu->stream;
  int64_t *len = NULL;
  void *tmp = NULL;
  size_t tb = 0;
  ng_status st = NG_SUCCESS;
  NG_CHECK(NG_CUDA_TMP(cu, *off, (size_t)cnt + 1));
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, len, (size_t)cnt + 1), out);
  {
    cudaError_t e = cudaMemsetAsync(len, 0, ((size_t)cnt + 1) * sizeof(int64_t), s);
    if (e == cudaSuccess && cnt) {
      k_rows_len<<<blocks(cnt), TPB, 0, s>>>(cnt, rows, P->Prp, len);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cub::DeviceScan::ExclusiveSum(NULL, tb, len, *off, cnt + 1, s);
    if (e == cudaSuccess) {
      NG_CHECK_GOTO(st, ng_cuda_tmp_malloc(cu, &tmp, tb ? tb : 1, "AMG off-rank block scan buffer"), out);
      e = cub::DeviceScan::ExclusiveSum(tmp, tb, len, *off, cnt + 1, s);
    }
    if (e == cudaSuccess && hoff) e = cudaMemcpyAsync(hoff, *off, ((size_t)cnt + 1) * sizeof(int64_t), cudaMemcpyDeviceToHost, s);
    else if (e == cudaSuccess) e = cudaMemcpyAsync(total, *off + cnt, sizeof(int64_t), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG off-rank block on the GPU: P's row offsets: %s", cudaGetErrorString(e));
    if (!st && hoff) *total = hoff[cnt];
  }
out:
  ng_cuda_tmp_free(cu, tmp);
  ng_cuda_tmp_free(cu, len);
  return st;
}

/* P's rows rows[0..cnt) at off: values (and columns into col or, global, gcol) */
static ng_status rows_gather(ng_amg_doff *S, const amg_gpu *P, int32_t cnt, const int32_t *rows, const int64_t *off,
                             int32_t *col, double *gcol, int64_t cbegin, double *val)
{
  if (!cnt) return NG_SUCCESS;
  k_rows_copy<<<blocks(cnt), TPB, 0, S->g.ctx->cuda->stream>>>(cnt, rows, P->Prp, P->Pcol, P->Pval, off, col, gcol,
                                                               cbegin, val);
  CK(cudaGetLastError(), "gathering P's rows");
  return NG_SUCCESS;
}

/* The distinct coarse columns of P_halo (global, sorted: S->ncm of them,
 * host copy *cm) and Ycol, P_halo's columns among them. */
static ng_status coarse_columns(ng_amg_doff *S, const int64_t *hgc, int64_t **cm)
{
  struct ng_cuda *cu = S->g.ctx->cuda;
  cudaStream_t s = cu->stream;
  int64_t nh = S->nh, *sorted = NULL, *dcm = NULL;
  int32_t *nsel = NULL, m = 0;
  void *tmp = NULL;
  size_t tb = 0, tb2 = 0;
  ng_status st = NG_SUCCESS;
  NG_CHECK(NG_CUDA_TMP(cu, S->Ycol, nh ? nh : 1));
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, sorted, nh ? nh : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, dcm, nh ? nh : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, nsel, 1), out);
  {
    cudaError_t e = cub::DeviceRadixSort::SortKeys(NULL, tb, hgc, sorted, (int)nh, 0, 64, s);
    if (e == cudaSuccess) e = cub::DeviceSelect::Unique(NULL, tb2, sorted, dcm, nsel, (int)nh, s);
    if (e == cudaSuccess) {
      NG_CHECK_GOTO(st, ng_cuda_tmp_malloc(cu, &tmp, (tb > tb2 ? tb : tb2) + 1, "AMG off-rank block sort buffer"), out);
      tb = tb2 = (tb > tb2 ? tb : tb2) + 1;
      if (nh) e = cub::DeviceRadixSort::SortKeys(tmp, tb, hgc, sorted, (int)nh, 0, 64, s);
    }
    if (e == cudaSuccess && nh) e = cub::DeviceSelect::Unique(tmp, tb2, sorted, dcm, nsel, (int)nh, s);
    if (e == cudaSuccess && nh) e = cudaMemcpyAsync(&m, nsel, sizeof(int32_t), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
      st = NG_ERROR(NG_ERR_CUDA, "AMG off-rank block on the GPU: P_halo's coarse columns: %s", cudaGetErrorString(e));
      goto out;
    }
    S->ncm = m;
    NG_CHECK_GOTO(st, NG_MALLOC(*cm, m ? m : 1), out);
    if (m) e = cudaMemcpyAsync(*cm, dcm, (size_t)m * sizeof(int64_t), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess && nh) {
      k_lower_bound<<<blocks(nh), TPB, 0, s>>>(nh, hgc, dcm, m, S->Ycol);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG off-rank block on the GPU: P_halo's coarse columns: %s", cudaGetErrorString(e));
  }
out:
  ng_cuda_tmp_free(cu, tmp);
  ng_cuda_tmp_free(cu, sorted);
  ng_cuda_tmp_free(cu, dcm);
  ng_cuda_tmp_free(cu, nsel);
  return st;
}

/* P(I,:)^T (S->nc rows) from P(I,:) at S->irp (columns pcol, values
 * S->ival): a stable radix sort of the entries by column, so that each
 * row lists I in order; S->perm keeps each slot's entry for the updates. */
static ng_status transpose_rows(ng_amg_doff *S, const int32_t *pcol)
{
  struct ng_cuda *cu = S->g.ctx->cuda;
  cudaStream_t s = cu->stream;
  int64_t n = S->pi_nnz, *cnt = NULL, *off = NULL;
  int32_t *iota = NULL, *skeys = NULL, *row = NULL;
  void *tmp = NULL;
  size_t tb = 0, tb2 = 0;
  ng_status st = NG_SUCCESS;
  int bits = 1;
  while (bits < 31 && ((int64_t)1 << bits) <= S->nc) bits++;
  NG_CHECK(NG_CUDA_TMP(cu, S->perm, n ? n : 1));
  NG_CHECK(NG_CUDA_TMP(cu, S->Tcol, n ? n : 1));
  NG_CHECK(NG_CUDA_TMP(cu, S->Tval, n ? n : 1));
  NG_CHECK(NG_CUDA_TMP(cu, S->Trp, (size_t)S->nc + 1));
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, iota, n ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, skeys, n ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, row, n ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, cnt, (size_t)S->nc + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, off, (size_t)S->nc + 1), out);
  {
    cudaError_t e = cudaMemsetAsync(cnt, 0, ((size_t)S->nc + 1) * sizeof(int64_t), s);
    if (e == cudaSuccess && n) {
      k_iota<<<blocks(n), TPB, 0, s>>>(n, iota);
      k_count_cols<<<blocks(n), TPB, 0, s>>>(n, pcol, cnt);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess && S->nI) {
      k_row_of<<<blocks(S->nI), TPB, 0, s>>>(S->nI, S->irp, row);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cub::DeviceRadixSort::SortPairs(NULL, tb, pcol, skeys, iota, S->perm, (int)n, 0, bits, s);
    if (e == cudaSuccess) e = cub::DeviceScan::ExclusiveSum(NULL, tb2, cnt, off, S->nc + 1, s);
    if (e == cudaSuccess) {
      size_t big = (tb > tb2 ? tb : tb2) + 1;
      NG_CHECK_GOTO(st, ng_cuda_tmp_malloc(cu, &tmp, big, "AMG off-rank block transpose buffer"), out);
      tb = tb2 = big;
      if (n) e = cub::DeviceRadixSort::SortPairs(tmp, tb, pcol, skeys, iota, S->perm, (int)n, 0, bits, s);
    }
    if (e == cudaSuccess) e = cub::DeviceScan::ExclusiveSum(tmp, tb2, cnt, off, S->nc + 1, s);
    if (e == cudaSuccess) {
      k_narrow_off<<<blocks((int64_t)S->nc + 1), TPB, 0, s>>>(S->nc, off, S->Trp);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess && n) {
      k_gather_i32<<<blocks(n), TPB, 0, s>>>(n, S->perm, row, S->Tcol);
      k_gather_f64<<<blocks(n), TPB, 0, s>>>(n, S->perm, S->ival, S->Tval);
      e = cudaGetLastError();
    }
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG off-rank block on the GPU: P(I,:)^T: %s", cudaGetErrorString(e));
  }
out:
  ng_cuda_tmp_free(cu, tmp);
  ng_cuda_tmp_free(cu, iota);
  ng_cuda_tmp_free(cu, skeys);
  ng_cuda_tmp_free(cu, row);
  ng_cuda_tmp_free(cu, cnt);
  ng_cuda_tmp_free(cu, off);
  return st;
}

/* A_off(I,:): the off-rank block's rows with entries are exactly I, in
 * order, so its columns and values are A_off's arrays as they are, its
 * offsets those of the rows I (values only when values_only) */
static ng_status x_upload(ng_amg_doff *S, ng_matrix A, int values_only)
{
  const ng_csr *O = &A->offrank;
  struct ng_cuda *cu = S->g.ctx->cuda;
  cudaStream_t s = cu->stream;
  int64_t nnz = S->nI ? O->nnz : 0;
  if (!values_only) {
    if (nnz > INT32_MAX) return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG off-rank block on the GPU: %lld off-rank entries", (long long)nnz);
    int32_t *rp = NULL;
    const int32_t *I = NULL;
    int32_t nI = 0;
    NG_CHECK(ng_matrix_coupled_rows(A, &I, &nI));
    NG_CHECK(NG_MALLOC(rp, (size_t)S->nI + 1));
    for (int32_t k = 0; k < S->nI; k++) rp[k] = (int32_t)(O->rowptr[I[k]] - O->rowptr[I[0]]);
    rp[S->nI] = (int32_t)nnz;
    ng_status st = NG_CUDA_TMP(cu, S->Xrp, (size_t)S->nI + 1);
    if (!st) st = NG_CUDA_TMP(cu, S->Xcol, nnz ? nnz : 1);
    if (!st) st = NG_CUDA_TMP(cu, S->Xval, nnz ? nnz : 1);
    cudaError_t e = cudaSuccess;
    if (!st) e = cudaMemcpyAsync(S->Xrp, rp, ((size_t)S->nI + 1) * sizeof(int32_t), cudaMemcpyHostToDevice, s);
    if (!st && e == cudaSuccess && nnz)
      e = cudaMemcpyAsync(S->Xcol, O->col + O->rowptr[I[0]], (size_t)nnz * sizeof(int32_t), cudaMemcpyHostToDevice, s);
    if (!st && e == cudaSuccess) e = cudaStreamSynchronize(s); /* rp: pageable, freed below */
    ng_free(rp);
    NG_CHECK(st);
    CK(e, "uploading A_off's rows");
  }
  if (nnz) {
    const int32_t *I = NULL;
    int32_t nI = 0;
    NG_CHECK(ng_matrix_coupled_rows(A, &I, &nI));
    CK(cudaMemcpyAsync(S->Xval, O->val + O->rowptr[I[0]], (size_t)nnz * sizeof(double), cudaMemcpyHostToDevice, s),
       "uploading A_off's values");
  }
  return NG_SUCCESS;
}

/* Z's rows (S->zrp, S->zgc kept on the host at the setup) and values out */
static ng_status z_out(ng_amg_doff *S, int setup, const int64_t *cm, int64_t **orp, int64_t **ogc, double **oval)
{
  cudaStream_t s = S->g.ctx->cuda->stream;
  int64_t nnz = S->nnzZ;
  if (setup) {
    int32_t *rp = NULL, *col = NULL;
    NG_CHECK(NG_MALLOC(S->zrp, (size_t)S->nc + 1));
    NG_CHECK(NG_MALLOC(S->zgc, nnz ? nnz : 1));
    NG_CHECK(NG_MALLOC(rp, (size_t)S->nc + 1));
    ng_status st = NG_MALLOC(col, nnz ? nnz : 1);
    cudaError_t e = cudaSuccess;
    if (!st && S->Zrp) e = cudaMemcpyAsync(rp, S->Zrp, ((size_t)S->nc + 1) * sizeof(int32_t), cudaMemcpyDeviceToHost, s);
    if (!st && e == cudaSuccess && nnz) e = cudaMemcpyAsync(col, S->Zcol, (size_t)nnz * sizeof(int32_t), cudaMemcpyDeviceToHost, s);
    if (!st && e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (!st && e == cudaSuccess) {
      for (int32_t i = 0; i <= S->nc; i++) S->zrp[i] = S->Zrp ? rp[i] : 0;
      for (int64_t p = 0; p < nnz; p++) S->zgc[p] = cm[col[p]];
    }
    ng_free(rp);
    ng_free(col);
    NG_CHECK(st);
    CK(e, "downloading the off-rank block");
  }
  NG_CHECK(NG_MALLOC(*orp, (size_t)S->nc + 1));
  NG_CHECK(NG_MALLOC(*ogc, nnz ? nnz : 1));
  NG_CHECK(NG_MALLOC(*oval, nnz ? nnz : 1));
  memcpy(*orp, S->zrp, ((size_t)S->nc + 1) * sizeof(int64_t));
  memcpy(*ogc, S->zgc, (size_t)nnz * sizeof(int64_t));
  if (nnz) {
    CK(cudaMemcpyAsync(*oval, S->Zval, (size_t)nnz * sizeof(double), cudaMemcpyDeviceToHost, s), "downloading the off-rank block");
    CK(cudaStreamSynchronize(s), "downloading the off-rank block");
  }
  return NG_SUCCESS;
}

/* Both products: W = X Y (nI rows), Z = T W (nc rows, sorted); patterns at the setup */
static ng_status products(ng_amg_doff *S, int setup)
{
  if (!S->nI || !S->nh || !S->pi_nnz) return NG_SUCCESS; /* Z has no entries (S->Zrp NULL) */
  NG_CHECK(ng_amg_gpu_spgemm32(&S->g, S->nI, S->Xrp, S->Xcol, S->Xval, S->Yrp, S->Ycol, S->hbuf, S->nh_rows, S->nh,
                               &S->Wrp, &S->Wcol, &S->Wval, &S->nnzW, 0, &S->hcW, "the off-rank A_off P_halo"));
  NG_CHECK(ng_amg_gpu_spgemm32(&S->g, S->nc, S->Trp, S->Tcol, S->Tval, S->Wrp, S->Wcol, S->Wval, S->nI, S->nnzW,
                               &S->Zrp, &S->Zcol, &S->Zval, &S->nnzZ, 1, &S->hcZ, "the off-rank P(I,:)^T W"));
  if (!setup) {
    int over = 0;
    NG_CHECK(ng_amg_gpu_read_flag(&S->g, &over));
    if (over) return NG_ERROR(NG_ERR_INTERNAL, "AMG update: an off-rank product row outgrew its hash table");
  }
  return NG_SUCCESS;
}

/* Setup: every step above, the plan made; collective (agreed). */
static ng_status offrank_setup(ng_amg_doff *S, amg_gpu *P, ng_matrix A, int l, int64_t cbegin, ng_status st,
                               int64_t **orp, int64_t **ogc, double **oval)
{
  double tt = ng_wtime();
  ng_context ctx = S->g.ctx;
  struct ng_cuda *cu = ctx->cuda;
  const struct ng_halo_plan *h = A->halo;
  struct ng_halo_plan hp;
  int64_t *hsrp = NULL, *hrp = NULL, *cm = NULL, *hgc = NULL;
  int32_t *iota = NULL, *Yrp32 = NULL, *pcol = NULL;
  double *gsend = NULL;
  const int32_t *I = NULL;
  S->nsend = h ? h->n_send : 0;
  S->nh_rows = A->n_halo;
  if (!st) st = ng_matrix_coupled_rows(A, &I, &S->nI);
  if (!st) st = NG_CUDA_TMP(cu, S->g.flag, 1);
  if (!st) st = cudaMemsetAsync(S->g.flag, 0, sizeof(int), cu->stream) == cudaSuccess ? NG_SUCCESS
                 : NG_ERROR(NG_ERR_CUDA, "AMG off-rank block on the GPU: clearing the flag failed");
  if (!st) st = NG_CUDA_TMP(cu, S->dI, S->nI ? S->nI : 1);
  if (!st && S->nI)
    st = cudaMemcpyAsync(S->dI, I, (size_t)S->nI * sizeof(int32_t), cudaMemcpyHostToDevice, cu->stream) == cudaSuccess
             ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "AMG off-rank block on the GPU: uploading I failed");
  /* P's sent rows: offsets (host copy for the plan), global columns, values */
  if (!st) st = NG_MALLOC(hsrp, (size_t)S->nsend + 1);
  if (!st) st = rows_offsets(S, P, S->nsend, h ? h->send_idx : NULL, &S->srp, hsrp, &S->send_nnz);
  if (!st) st = NG_CUDA_TMP(cu, S->sval, S->send_nnz ? S->send_nnz : 1);
  if (!st) st = NG_CUDA_TMP(cu, gsend, S->send_nnz ? S->send_nnz : 1);
  if (!st) st = rows_gather(S, P, S->nsend, h ? h->send_idx : NULL, S->srp, NULL, gsend, cbegin, S->sval);
  /* the halo rows' lengths (host), through A's plan with its send list numbered 0.. */
  if (!st && h) {
    hp = *h;
    st = NG_MALLOC(iota, h->n_send ? h->n_send : 1);
    for (int32_t k = 0; !st && k < h->n_send; k++) iota[k] = k;
    hp.send_idx_host = iota;
  }
  if (!st) st = NG_MALLOC(hrp, (size_t)A->n_halo + 1);
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_halo_rows_lengths(ctx, h ? &hp : NULL, hsrp, hrp);
  st = ng_comm_agree(ctx, st);
  S->nh = !st && A->n_halo ? hrp[A->n_halo] : 0;
  if (!st && S->nh > INT32_MAX) st = NG_ERROR(NG_ERR_UNSUPPORTED, "AMG off-rank block on the GPU: %lld halo entries", (long long)S->nh);
  /* context memory, not the setup's stream-ordered temporaries: it outlives this setup (the update moves values into it) */
  if (!st) st = ctx->vops->alloc(ctx, &S->hbuf, (int32_t)(S->nh ? S->nh : 1));
  ng_amg_trace(ctx, "uncoupled (GPU): P's sent rows gathered, their lengths exchanged", l, &tt);
  st = ng_halo_rows_plan_create(ctx, st, h, hsrp, hrp, S->hbuf, &S->plan); /* agreed there */
  ng_amg_trace(ctx, "uncoupled (GPU): the plan of P's halo rows", l, &tt);
  /* the columns, then the values (the values stay in hbuf: Y's) */
  if (!st && S->plan) st = ng_halo_plan_run(S->plan, gsend, S->hbuf);
  if (!st) st = NG_CUDA_TMP(cu, hgc, S->nh ? S->nh : 1);
  if (!st && S->nh) {
    k_to_int64<<<blocks(S->nh), TPB, 0, cu->stream>>>(S->nh, S->hbuf, hgc);
    if (cudaGetLastError() != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG off-rank block on the GPU: P_halo's columns");
  }
  if (!st && S->plan) st = ng_halo_plan_run(S->plan, S->sval, S->hbuf);
  st = ng_comm_agree(ctx, st);
  ng_amg_trace(ctx, "uncoupled (GPU): P's halo rows moved", l, &tt);
  /* local from here: Y, X, P(I,:)^T, the products */
  if (!st) st = coarse_columns(S, hgc, &cm);
  if (!st) st = NG_CUDA_TMP(cu, S->Yrp, (size_t)A->n_halo + 1);
  if (!st) st = NG_MALLOC(Yrp32, (size_t)A->n_halo + 1);
  for (int32_t i = 0; !st && i <= A->n_halo; i++) Yrp32[i] = (int32_t)hrp[i];
  if (!st)
    st = cudaMemcpyAsync(S->Yrp, Yrp32, ((size_t)A->n_halo + 1) * sizeof(int32_t), cudaMemcpyHostToDevice, cu->stream) == cudaSuccess &&
                 cudaStreamSynchronize(cu->stream) == cudaSuccess
             ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "AMG off-rank block on the GPU: uploading P_halo's offsets failed");
  if (!st) st = x_upload(S, A, 0);
  if (!st) st = rows_offsets(S, P, S->nI, S->dI, &S->irp, NULL, &S->pi_nnz);
  if (!st) st = NG_CUDA_TMP(cu, S->ival, S->pi_nnz ? S->pi_nnz : 1);
  if (!st) st = NG_CUDA_TMP(cu, pcol, S->pi_nnz ? S->pi_nnz : 1);
  if (!st) st = rows_gather(S, P, S->nI, S->dI, S->irp, pcol, NULL, 0, S->ival);
  if (!st) st = transpose_rows(S, pcol);
  ng_amg_trace(ctx, "uncoupled (GPU): coarse columns, A_off(I,:), P(I,:)^T", l, &tt);
  if (!st) st = products(S, 1);
  if (!st) st = z_out(S, 1, cm, orp, ogc, oval);
  ng_amg_trace(ctx, "uncoupled (GPU): P(I,:)^T (A_off P_halo), downloaded", l, &tt);
  ng_free(hsrp);
  ng_free(hrp);
  ng_free(cm);
  ng_free(iota);
  ng_free(Yrp32);
  ng_cuda_tmp_free(cu, gsend);
  ng_cuda_tmp_free(cu, hgc);
  ng_cuda_tmp_free(cu, pcol);
  return ng_comm_agree(ctx, st);
}

/* Update: values into the kept patterns; collective (agreed). */
static ng_status offrank_values(ng_amg_doff *S, amg_gpu *P, ng_matrix A, ng_status st, int64_t **orp, int64_t **ogc,
                                double **oval)
{
  ng_context ctx = S->g.ctx;
  const struct ng_halo_plan *h = A->halo;
  if (!st && (S->nsend != (h ? h->n_send : 0) || S->nh_rows != A->n_halo))
    st = NG_ERROR(NG_ERR_INTERNAL, "AMG update: the off-rank block's halo changed");
  if (!st) st = rows_gather(S, P, S->nsend, h ? h->send_idx : NULL, S->srp, NULL, NULL, 0, S->sval);
  st = ng_comm_agree(ctx, st);
  if (!st && S->plan) st = ng_halo_plan_run(S->plan, S->sval, S->hbuf);
  st = ng_comm_agree(ctx, st);
  if (!st) st = x_upload(S, A, 1);
  if (!st) st = rows_gather(S, P, S->nI, S->dI, S->irp, NULL, NULL, 0, S->ival);
  if (!st && S->pi_nnz) {
    k_gather_f64<<<blocks(S->pi_nnz), TPB, 0, ctx->cuda->stream>>>(S->pi_nnz, S->perm, S->ival, S->Tval);
    if (cudaGetLastError() != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG off-rank block on the GPU: P(I,:)^T's values");
  }
  if (!st) st = products(S, 0);
  if (!st) st = z_out(S, 0, NULL, orp, ogc, oval);
  return ng_comm_agree(ctx, st);
}

extern "C" ng_status ng_amg_gpu_offrank(ng_amg *M, int l, ng_matrix A, int64_t cbegin, int32_t nc, ng_status st,
                                        ng_amg_doff **state, int64_t **orp, int64_t **ogc, double **oval)
{
  amg_gpu *P = M->gpu ? ng_amg_gpu_levels(M)[l] : NULL;
  ng_amg_doff *S = *state;
  *orp = *ogc = NULL;
  *oval = NULL;
  if (!st && (!P || !P->Prp)) st = NG_ERROR(NG_ERR_INTERNAL, "AMG off-rank block on the GPU: level %d has no device P", l);
  if (!S) {
    ng_amg_doff none; /* where the state cannot be had: the collectives still run, failed */
    memset(&none, 0, sizeof(none));
    ng_status sa = NG_CALLOC(S, 1);
    if (!st) st = sa;
    ng_amg_doff *T = S ? S : &none;
    T->g.ctx = A->ctx;
    T->nc = nc;
    st = offrank_setup(T, P, A, l, cbegin, st, orp, ogc, oval); /* agreed there */
    if (st) {
      if (S) ng_amg_gpu_offrank_free(S);
      else ng_cuda_tmp_free(A->ctx->cuda, none.g.flag);
      S = NULL;
    }
    *state = S;
  } else
    st = offrank_values(S, P, A, st, orp, ogc, oval); /* agreed there */
  if (st) {
    ng_free(*orp);
    ng_free(*ogc);
    ng_free(*oval);
    *orp = *ogc = NULL;
    *oval = NULL;
  }
  return st;
}
