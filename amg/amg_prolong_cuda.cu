/* amg/amg_prolong_cuda.cu: the GPU setup's prolongation phase (the host's
 * is amg_prolong.c): the tentative P, the smoothed P (k_prow: its pattern,
 * then its values, bit for bit the host's) and R = P^T by a stable radix
 * sort of P's entries by column; an update recomputes the values only. */
#include "amg_setup_cuda.cuh"
#include <cub/cub.cuh>
#include <limits.h>
#include <math.h>
#include "amg_kernels_cuda.cuh"

/* An update: P's new values into R through rperm (entry k of P is entry rperm[k] of R). */
__global__ void k_rvalues(int64_t nnz, const int32_t *rperm, const double *Pval, double *Rval)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
    Rval[rperm[k]] = Pval[k];
}
/* R = P^T (transpose_p): entry numbers 0..nnz-1, the entries per column of
 * P (R's row lengths), the row of each entry, and R's columns, values and
 * rperm from the entries stably sorted by column */
__global__ void k_iota(int64_t nnz, int32_t *idx)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
    idx[k] = (int32_t)k;
}
__global__ void k_col_count(int64_t nnz, const int32_t *col, int64_t *cnt)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
    atomicAdd((unsigned long long *)&cnt[col[k]], 1ull);
}
__global__ void k_entry_row(int32_t n, const int32_t *rp, int32_t *row)
{
  ROW_LOOP(n) for (int32_t p = rp[i]; p < rp[i + 1]; p++) row[p] = i;
}
__global__ void k_transpose_fill(int64_t nnz, const int32_t *sorted, const int32_t *row, const double *Pval,
                                 int32_t *Rcol, double *Rval, int32_t *rperm)
{
  for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < nnz; j += (int64_t)gridDim.x * blockDim.x) {
    int32_t k = sorted[j];
    Rcol[j] = row[k];
    Rval[j] = Pval[k];
    rperm[k] = (int32_t)j;
  }
}

/* R = P^T with its rows sorted (R's row offsets, columns and values, and
 * rperm for the updates), without cuSPARSE: its csr2csc cost about 30 ms at
 * its first call in a process (a cold setup's whole R = P^T at lap7:128).
 * P's entry numbers, in P's row order, are sorted by column with a radix
 * sort, which is stable: within each column (a row of R) the entries stay in
 * P's row order, so R's columns come out ascending, as the host's. */
static ng_status transpose_p(amg_gpu *g)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int32_t n = g->n, nagg = g->nagg, *keys = NULL, *idx = NULL, *sorted = NULL, *row = NULL;
  int64_t nnz = g->nnzP, *cnt = NULL, total = 0;
  void *tmp = NULL;
  size_t tb = 0;
  int bits = 1;
  ng_status st = NG_SUCCESS;
  cudaError_t e = cudaSuccess;
  while (bits < 31 && ((int64_t)1 << bits) < nagg) bits++;
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, cnt, (size_t)nagg + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, g->rperm, nnz ? nnz : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, keys, nnz ? nnz : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, idx, nnz ? nnz : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, sorted, nnz ? nnz : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, row, nnz ? nnz : 1), out);
  e = cudaMemsetAsync(cnt, 0, ((size_t)nagg + 1) * sizeof(int64_t), cu->stream);
  if (e == cudaSuccess && nnz) {
    k_col_count<<<blocks(nnz), TPB, 0, cu->stream>>>(nnz, g->Pcol, cnt);
    k_iota<<<blocks(nnz), TPB, 0, cu->stream>>>(nnz, idx);
    k_entry_row<<<blocks(n), TPB, 0, cu->stream>>>(n, g->Prp, row);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cub::DeviceRadixSort::SortPairs(NULL, tb, g->Pcol, keys, idx, sorted, (int)nnz, 0, bits, cu->stream);
    if (e == cudaSuccess) {
      st = ng_cuda_tmp_malloc(cu, &tmp, tb ? tb : 1, "AMG transpose sort buffer");
      if (st != NG_SUCCESS) goto out;
      e = cub::DeviceRadixSort::SortPairs(tmp, tb, g->Pcol, keys, idx, sorted, (int)nnz, 0, bits, cu->stream);
    }
  }
  if (e != cudaSuccess) {
    st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: sorting P's entries for R = P^T failed: %s", cudaGetErrorString(e));
    goto out;
  }
  NG_CHECK_GOTO(st, ng_amg_gpu_scan_rowptr(g, cnt, nagg, &g->Rrp, &total, "the restriction", 0), out);
  if (total != nnz) {
    st = NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: R = P^T has %lld entries, P %lld", (long long)total, (long long)nnz);
    goto out;
  }
  if (nnz) {
    k_transpose_fill<<<blocks(nnz), TPB, 0, cu->stream>>>(nnz, sorted, row, g->Pval, g->Rcol, g->Rval, g->rperm);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream);
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: R = P^T failed: %s", cudaGetErrorString(e));
  }
out:
  ng_cuda_tmp_free(cu, tmp); /* after the stream's work on them */
  ng_cuda_tmp_free(cu, cnt);
  ng_cuda_tmp_free(cu, keys);
  ng_cuda_tmp_free(cu, idx);
  ng_cuda_tmp_free(cu, sorted);
  ng_cuda_tmp_free(cu, row);
  return st;
}

/* g->pgroup: the lanes a row of k_prow, 16 or 32, the fewer that hold the
 * longest row of A; 0 (the lane-a-row kernels) past 32 entries or up to 8. */
static ng_status prow_group(amg_gpu *g)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int *d = NULL, len = 0;
  NG_CHECK(NG_CUDA_TMP(cu, d, 1));
  cudaError_t e = cudaMemsetAsync(d, 0, sizeof(int), cu->stream);
  if (e == cudaSuccess && g->n) {
    k_max_row<<<blocks(g->n), TPB, 0, cu->stream>>>(g->n, g->Arp, d);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&len, d, sizeof(int), cudaMemcpyDeviceToHost, cu->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream);
  ng_cuda_tmp_free(cu, d);
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: the longest row of A: %s", cudaGetErrorString(e));
  /* rows of at most 8 (lap7) are read well enough a lane a row: the group's
   * ballots and shuffles cost more there (prolong 24 against 20 ms at lap7:256) */
  g->pgroup = len <= 8 ? 0 : len <= 16 ? 16 : len <= 32 ? 32 : 0;
  return NG_SUCCESS;
}

/* k_prow<g->pgroup> over A's rows (mode: 0 counts into cnt, 1 columns and
 * values, 2 values) */
static ng_status prow_launch(amg_gpu *g, int mode, double omega, const double *sd, double f, int sgn, int64_t *cnt)
{
  cudaStream_t s = g->ctx->cuda->stream;
  int nb = blocks((int64_t)g->n * g->pgroup);
#define PROW(G)                                                                                  \
  k_prow<G><<<nb, TPB, 0, s>>>(mode, g->n, g->Arp, g->Acol, g->Aval, g->agg, g->ptent, omega, sd, f, sgn, g->lump, cnt, \
                               g->Prp, g->Pcol, g->Pval, g->flag)
  if (g->pgroup == 8) PROW(8);
  else if (g->pgroup == 16) PROW(16);
  else PROW(32);
#undef PROW
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG GPU prolongator kernel failed: %s", cudaGetErrorString(e));
  return NG_SUCCESS;
}

/* Part 1 of a level's transfer: P (its pattern unless refresh, its values)
 * and R = P^T (an update: R's values through rperm). */
ng_status ng_amg_gpu_prolong(amg_gpu *g, ng_amg *M, ng_amg_level *L, int refresh, double filter)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int32_t n = g->n;
  int bad = 0;
  double omega_p = 4.0 / (3.0 * L->s.rho), t = ng_wtime();
  double tt = t;
  if (!refresh) {
    int32_t *size = NULL, *scratch = NULL;
    int64_t *cnt = NULL;
    ng_status st = NG_SUCCESS;
    NG_CHECK(NG_CUDA_TMP(cu, g->ptent, n));
    NG_CHECK(prow_group(g));
    NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, size, g->nagg ? g->nagg : 1), tfail);
    NG_CHECK_GOTO(st, cudaMemsetAsync(size, 0, (size_t)g->nagg * sizeof(int32_t), cu->stream) == cudaSuccess ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "cudaMemsetAsync failed"), tfail);
    k_agg_size<<<blocks(n), TPB, 0, cu->stream>>>(n, g->agg, size);
    k_ptent<<<blocks(n), TPB, 0, cu->stream>>>(n, g->agg, size, g->ptent);
    NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, cnt, (size_t)n + 1), tfail);
    if (g->pgroup) { /* the counts only; columns and values below in one pass */
      NG_CHECK_GOTO(st, prow_launch(g, 0, omega_p, NULL, 0.0, M->strength_signed, cnt), tfail);
    } else {
      NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, scratch, g->nnzA ? g->nnzA : 1), tfail);
      k_ppattern<<<blocks(n), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->agg, scratch, cnt, NULL, NULL);
    }
    NG_CHECK_GOTO(st, cudaGetLastError() == cudaSuccess ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "AMG GPU P pattern kernel failed"), tfail);
    NG_CHECK_GOTO(st, ng_amg_gpu_scan_rowptr(g, cnt, n, &g->Prp, &g->nnzP, "the prolongator", 0), tfail);
    NG_CHECK_GOTO(st, NG_CUDA_MALLOC(g->Pcol, g->nnzP ? g->nnzP : 1), tfail);
    NG_CHECK_GOTO(st, NG_CUDA_MALLOC(g->Pval, g->nnzP ? g->nnzP : 1), tfail);
    if (!g->pgroup)
      k_ppattern<<<blocks(n), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->agg, scratch, NULL, g->Prp, g->Pcol);
    NG_CHECK_GOTO(st, cudaGetLastError() == cudaSuccess ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "AMG GPU P pattern kernel failed"), tfail);
    NG_CHECK_GOTO(st, NG_CUDA_MALLOC(g->Rcol, g->nnzP ? g->nnzP : 1), tfail);
    NG_CHECK_GOTO(st, NG_CUDA_MALLOC(g->Rval, g->nnzP ? g->nnzP : 1), tfail);
  tfail: /* freed in the stream's order, after the kernels above */
    ng_cuda_tmp_free(cu, size);
    ng_cuda_tmp_free(cu, scratch);
    ng_cuda_tmp_free(cu, cnt);
    NG_CHECK(st);
  }
  ng_amg_gpu_trace(g, "transfer: P pattern", &tt);
  if (filter > 0) { /* -amg_filter: sqrt |a_ii| for the filter's strength test */
    if (!g->sd) NG_CHECK(NG_CUDA_TMP(cu, g->sd, n ? n : 1));
    if (refresh || !g->sd_fresh) /* the setup's own from the aggregation, else new values */
      k_sqrt_diag_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->Aval, g->sd, g->flag);
    g->sd_fresh = 0;
    NG_CUDA_LAUNCH_CHECK();
  }
  if (g->pgroup) /* the setup's columns with the values, or an update's values */
    NG_CHECK(prow_launch(g, refresh ? 2 : 1, omega_p, filter > 0 ? g->sd : NULL, filter, M->strength_signed, NULL));
  else
    k_pvalues<<<blocks(n), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->Aval, g->agg, g->ptent, omega_p,
                                                 filter > 0 ? g->sd : NULL, filter, M->strength_signed, g->lump,
                                                 g->Prp, g->Pcol, g->Pval, g->flag);
  cudaError_t pe = cudaGetLastError();
  if (pe != cudaSuccess) return NG_ERROR(NG_ERR_CUDA, "AMG GPU prolongator kernel failed: %s", cudaGetErrorString(pe));
  ng_amg_gpu_trace(g, "transfer: P values", &tt);
  if (!refresh) {
    NG_CHECK(transpose_p(g));
  } else if (g->nnzP) {
    k_rvalues<<<blocks(g->nnzP), TPB, 0, cu->stream>>>(g->nnzP, g->rperm, g->Pval, g->Rval);
    NG_CUDA_LAUNCH_CHECK();
  }
  ng_amg_gpu_trace(g, "transfer: R = P^T", &tt);
  NG_CHECK(ng_amg_gpu_read_flag(g, &bad)); /* also waits for P and R (the phase times) */
  if (bad) return NG_ERROR(NG_ERR_NUMERIC, "AMG: the finest matrix has a zero or missing diagonal entry");
  M->t_prolong += ng_wtime() - t;
  return NG_SUCCESS;
}
