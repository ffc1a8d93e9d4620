/* amg/amg_aggregate_cuda.cu: the GPU setup's aggregation phase (the host's
 * is amg_aggregate.c): strength of connection and the deterministic MIS(2)
 * aggregation, the same keys, hash and rounds as the host's, so the
 * aggregates are identical; the late rounds run over the undecided rows
 * only (k_max1_listed, k_decide_listed). */
#include "amg_setup_cuda.cuh"
#include <cub/cub.cuh>
#include <limits.h>
#include <math.h>
#include "amg_kernels_cuda.cuh"

/* MIS(2)'s undecided count: zeroed before a round, read after it (the read
 * waits for the round). */
static ng_status zero_count(struct ng_cuda *cu, int *dund)
{
  if (cudaMemsetAsync(dund, 0, sizeof(int), cu->stream) != cudaSuccess)
    return NG_ERROR(NG_ERR_CUDA, "AMG GPU aggregation: resetting the undecided count failed");
  return NG_SUCCESS;
}
static ng_status read_count(struct ng_cuda *cu, const int *dund, int *undecided)
{
  if (cudaMemcpyAsync(undecided, dund, sizeof(int), cudaMemcpyDeviceToHost, cu->stream) != cudaSuccess ||
      cudaStreamSynchronize(cu->stream) != cudaSuccess)
    return NG_ERROR(NG_ERR_CUDA, "AMG GPU aggregation: reading the undecided count failed");
  return NG_SUCCESS;
}

/* Strength graph on the device and MIS(2) aggregation: agg on the device
 * only (ng_amg_gpu_aggregates copies it to L->agg when the host needs it:
 * a copy into fresh pageable memory cost 50 ms at 256^3, page faults mostly). */
ng_status ng_amg_gpu_aggregate_level(amg_gpu *g, ng_amg *M, ng_amg_level *L, double theta)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int32_t n = g->n, *Scol = NULL, *step = NULL;
  int64_t *Srp = NULL; /* 64-bit: S has as many entries as A */
  int64_t *cnt = NULL, nnzS = 0, total = 0;
  double *s = NULL;
  uint64_t *T = NULL, *M1 = NULL, *M2 = NULL;
  int bad = 0, undecided = 0, *dund = NULL;
  ng_status st = NG_SUCCESS;
  double tt = ng_wtime();
  int rounds = 0;
#define K_CHECK() NG_CHECK_GOTO(st, cudaGetLastError() == cudaSuccess ? NG_SUCCESS : NG_ERROR(NG_ERR_CUDA, "AMG GPU aggregation kernel failed: %s", cudaGetErrorString(cudaGetLastError())), out)
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, s, n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, cnt, (size_t)n + 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, dund, 1), out);
  k_sqrt_diag_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->Aval, s, g->flag);
  K_CHECK();
  NG_CHECK_GOTO(st, ng_amg_gpu_read_flag(g, &bad), out);
  if (bad) {
    st = NG_ERROR(NG_ERR_NUMERIC, "AMG: the finest matrix has a zero or missing diagonal entry");
    goto out;
  }
  ng_amg_gpu_trace(g, "aggregate: sqrt diagonal", &tt);
  k_strength_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->Aval, s, theta, M->strength_signed, cnt, NULL, NULL);
  K_CHECK();
  NG_CHECK_GOTO(st, ng_amg_gpu_scan_offsets64(g, cnt, n, &Srp, &nnzS, "the strength graph"), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, Scol, nnzS ? nnzS : 1), out);
  ng_amg_gpu_trace(g, "aggregate: strength count, scan, alloc", &tt);
  k_strength_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, g->Arp, g->Acol, g->Aval, s, theta, M->strength_signed, NULL, Srp, Scol);
  K_CHECK();
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, T, n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, M1, n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, M2, n), out);
  k_init_keys<<<blocks(n), TPB, 0, cu->stream>>>(n, 0, Srp, T);
  K_CHECK();
  ng_amg_gpu_trace(g, "aggregate: strength fill, key alloc", &tt);
  /* the host's rounds, the same decisions: over every row, then, once few
   * are undecided, over a list of those only (cnt, free until the
   * numbering, holds the list and the next one) */
  for (int round = 0, listed = 0, nu = 0;; round++) {
    int32_t *list = (int32_t *)cnt + (round & 1) * (int64_t)n, *next = (int32_t *)cnt + (~round & 1) * (int64_t)n;
    NG_CHECK_GOTO(st, zero_count(cu, dund), out);
    if (!listed) {
      k_max_neighbours_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, Srp, Scol, T, M1);
      k_max_neighbours_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, Srp, Scol, M1, M2);
      k_decide<<<blocks(n), TPB, 0, cu->stream>>>(n, 0, T, M2, dund);
    } else {
      k_max1_listed<<<blocks((int64_t)nu * GL), TPB, 0, cu->stream>>>(nu, list, Srp, Scol, T, M1);
      k_decide_listed<<<blocks((int64_t)nu * GL), TPB, 0, cu->stream>>>(nu, list, Srp, Scol, M1, T, next, dund);
    }
    K_CHECK();
    NG_CHECK_GOTO(st, read_count(cu, dund, &undecided), out);
    if (!undecided) break;
    rounds++;
    if (round > n) {
      st = NG_ERROR(NG_ERR_INTERNAL, "MIS(2) aggregation did not finish after %d rounds", round);
      goto out;
    }
    if (!listed && (double)undecided * ((double)nnzS / n + 1.0) <= (double)n) {
      NG_CHECK_GOTO(st, zero_count(cu, dund), out); /* the next round's list: the undecided rows */
      k_list_undecided<<<blocks(n), TPB, 0, cu->stream>>>(n, T, next, dund);
      K_CHECK();
      listed = 1;
    }
    nu = undecided;
  }
  /* roots numbered in index order, then the two joining steps, then leftovers */
  if (ng_amg_trace_on()) {
    char what[64];
    snprintf(what, sizeof(what), "aggregate: MIS(2), %d rounds", rounds + 1);
    ng_amg_gpu_trace(g, what, &tt);
  }
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, g->agg, n), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, step, n), out);
  k_is_root<<<blocks(n), TPB, 0, cu->stream>>>(n, T, cnt);
  K_CHECK();
  {
    /* positions by a scan of the flags (M1 is free: it holds them) */
    void *tmp = NULL;
    size_t tb = 0;
    int64_t *pos = (int64_t *)M1, last[2] = {0, 0}, extra[2] = {0, 0};
    cudaError_t e = cub::DeviceScan::ExclusiveSum(NULL, tb, cnt, pos, n, cu->stream);
    if (e == cudaSuccess) {
      st = ng_cuda_tmp_malloc(cu, &tmp, tb ? tb : 1, "AMG scan buffer");
      if (st != NG_SUCCESS) goto out;
      e = cub::DeviceScan::ExclusiveSum(tmp, tb, cnt, pos, n, cu->stream);
    }
    if (e == cudaSuccess && n > 0) e = cudaMemcpyAsync(last, pos + n - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream);
    if (e == cudaSuccess && n > 0) e = cudaMemcpyAsync(last + 1, cnt + n - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream);
    if (e == cudaSuccess) {
      k_number_roots<<<blocks(n), TPB, 0, cu->stream>>>(n, T, pos, g->agg);
      k_step_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, Srp, Scol, T, g->agg, step);
      k_join_g<<<blocks((int64_t)n * GL), TPB, 0, cu->stream>>>(n, Srp, Scol, step, g->agg);
      k_is_leftover<<<blocks(n), TPB, 0, cu->stream>>>(n, Srp, g->agg, cnt);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream); /* last[] is read below */
    total = last[0] + last[1];
    if (e == cudaSuccess) e = cub::DeviceScan::ExclusiveSum(tmp, tb, cnt, pos, n, cu->stream);
    if (e == cudaSuccess) {
      k_number_leftover<<<blocks(n), TPB, 0, cu->stream>>>(n, Srp, pos, (int32_t)total, g->agg);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess && n > 0) e = cudaMemcpyAsync(extra, pos + n - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream);
    if (e == cudaSuccess && n > 0) e = cudaMemcpyAsync(extra + 1, cnt + n - 1, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream);
    ng_cuda_tmp_free(cu, tmp);
    if (e != cudaSuccess) {
      st = NG_ERROR(NG_ERR_CUDA, "AMG GPU aggregation failed: %s", cudaGetErrorString(e));
      goto out;
    }
    L->nagg = g->nagg = (int32_t)(total + extra[0] + extra[1]);
  }
#undef K_CHECK
  ng_amg_gpu_trace(g, "aggregate: numbering", &tt);
out:
  /* -amg_filter: P's values test strength with the same sqrt |a_ii| */
  if (st == NG_SUCCESS && M->filter && theta > 0 && !g->sd) {
    g->sd = s;
    g->sd_fresh = 1;
    s = NULL;
  }
  ng_cuda_tmp_free(cu, s);
  ng_cuda_tmp_free(cu, cnt);
  ng_cuda_tmp_free(cu, dund);
  ng_cuda_tmp_free(cu, Srp);
  ng_cuda_tmp_free(cu, Scol);
  ng_cuda_tmp_free(cu, T);
  ng_cuda_tmp_free(cu, M1);
  ng_cuda_tmp_free(cu, M2);
  ng_cuda_tmp_free(cu, step);
  ng_amg_gpu_trace(g, "aggregate: frees", &tt);
  return st;
}
