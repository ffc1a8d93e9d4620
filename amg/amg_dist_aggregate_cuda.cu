/* amg/amg_dist_aggregate_cuda.cu: the distributed MIS(2) aggregation
 * (amg_dist_aggregate.c) on each rank's GPU, for GPU contexts with several
 * ranks (-amg_setup gpu). The same algorithm step by step, so the aggregates
 * are the host's bit for bit (hence the one-rank ones):
 *  - X, this rank's rows over [halo columns below | own columns | halo
 *    columns above] (extended numbering: own j < n, halo column h is n + h),
 *    which is global column order for sorted rows: the one-rank row kernels
 *    (amg_kernels_cuda.cuh) then read the strength graph and the MIS rounds'
 *    neighbours in the host's order;
 *  - keys by GLOBAL index; each round's maxima and every intermediate of the
 *    numbering (roots, steps, coarse ids, aggregates) have their halo entries
 *    exchanged through the matrix's own halo plan and transport (8-byte items
 *    moved as doubles: a copy, never arithmetic, so the bits travel as they
 *    are), the undecided count summed over ranks once per round;
 *  - the aggregates are downloaded into D->agg (own rows, then halo columns)
 *    for the host code that follows (tentative values); X, the blocks'
 *    patterns and sqrt |a_jj| stay on the device for P and the Galerkin
 *    product (amg_dist_dx.cuh; ng_amg_dx_values refills X at an update).
 * A row whose blocks are not sorted by column, or a zero diagonal, sends
 * every rank to the host code (*done = 0; the host sorts, or names the row). */
#include "cuda_internal.h"
#include "amg.h"
#include "../comm/halo.h" /* ng_comm_agree_min/_sum, ng_comm_starts (free of mpi.h) */
#include <cub/cub.cuh>
#include <math.h>
#include "amg_kernels_cuda.cuh"
#include "amg_dist_dx.cuh"
#include "../dist/matrix_rows_cuda.cuh"

/* ---- kernels (one thread per row unless the name ends in _g) ------------- */
static __global__ void k_xrp(int32_t n, const int64_t *Lrp, const int64_t *Orp, int64_t *Xrp)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i <= n; i += (int64_t)gridDim.x * blockDim.x)
    Xrp[i] = Lrp[i] + (Orp ? Orp[i] : 0);
}

/* Row i of X: halo columns below the own rows, own columns, halo columns
 * above (dist/matrix_rows_cuda.cuh); *unsorted = 1 when a block's row is
 * not ascending. */
static __global__ void k_xfill(int32_t n, int32_t nlow, const int64_t *Lrp, const int32_t *Lcol, const double *Lval,
                               const int64_t *Orp, const int32_t *Ocol, const double *Oval, int32_t *Xcol,
                               double *Xval, int *unsorted)
{
  ROW_LOOP(n) {
    bool sorted = ng_merged_row(i, nlow, Lrp, Lcol, Orp, Ocol, [=](int64_t p, int halo, int32_t c, int64_t k) {
      Xcol[p] = halo ? n + c : c;
      Xval[p] = halo ? Oval[k] : Lval[k];
    });
    if (!sorted) atomicExch(unsorted, 1);
  }
}

/* root[e] = global index of e when e is IN (own rows and halo), else -1 */
static __global__ void k_root(int32_t ne, int32_t n, int64_t base, const uint64_t *T, const int64_t *hgcol,
                              int64_t *root)
{
  ROW_LOOP(ne) root[i] = key_state(T[i]) == IN ? (i < n ? base + i : hgcol[i - n]) : -1;
}

/* First neighbour of i (global order) with v[e] >= 0, or -1. */
__device__ static int32_t first_with(const int64_t *Srp, const int32_t *Scol, int32_t i, const int64_t *v)
{
  for (int64_t k = Srp[i]; k < Srp[i + 1]; k++)
    if (v[Scol[k]] >= 0) return Scol[k];
  return -1;
}

/* step[i]: the root i belongs to after one step; isroot[i] (scan input) */
static __global__ void k_step1(int32_t n, const int64_t *Srp, const int32_t *Scol, const int64_t *root, int64_t *step,
                               int64_t *isroot)
{
  ROW_LOOP(n) {
    int32_t e = root[i] >= 0 ? i : first_with(Srp, Scol, i, root);
    step[i] = e >= 0 ? root[e] : -1;
    isroot[i] = root[i] >= 0;
  }
}

/* left over (nonsymmetric graphs only): neighbours, but none reached */
static __global__ void k_leftover(int32_t n, const int64_t *Srp, const int32_t *Scol, const int64_t *step,
                                  int64_t *left)
{
  ROW_LOOP(n) left[i] = step[i] < 0 && Srp[i + 1] > Srp[i] && first_with(Srp, Scol, i, step) < 0;
}

static __global__ void k_cid(int32_t n, const int64_t *root, const int64_t *rpos, const int64_t *left,
                             const int64_t *lpos, int64_t nroots, int64_t first, int64_t *cid)
{
  ROW_LOOP(n) cid[i] = root[i] >= 0 ? first + rpos[i] : left[i] ? first + nroots + lpos[i] : -1;
}

/* coarse row after one step: the root's (itself when IN, else its first IN
 * neighbour: the one step[] chose) */
static __global__ void k_stepc(int32_t n, const int64_t *Srp, const int32_t *Scol, const uint64_t *T,
                               const int64_t *step, const int64_t *cid, int64_t *stepc)
{
  ROW_LOOP(n) {
    int64_t c = -1;
    if (step[i] >= 0) {
      int32_t e = key_state(T[i]) == IN ? i : -1;
      for (int64_t k = Srp[i]; e < 0 && k < Srp[i + 1]; k++)
        if (key_state(T[Scol[k]]) == IN) e = Scol[k];
      c = cid[e];
    }
    stepc[i] = c;
  }
}

static __global__ void k_agg2(int32_t n, const int64_t *Srp, const int32_t *Scol, const int64_t *stepc,
                              const int64_t *cid, int64_t *agg)
{
  ROW_LOOP(n) {
    int64_t a;
    if (stepc[i] >= 0) a = stepc[i];
    else if (cid[i] >= 0) a = cid[i];
    else {
      int32_t e = first_with(Srp, Scol, i, stepc);
      a = e >= 0 ? stepc[e] : -1;
    }
    agg[i] = a;
  }
}

/* ---- host side ------------------------------------------------------------ */
typedef struct {
  ng_matrix A;
  cudaStream_t s;
  int32_t n, nh, nlow;
  int64_t *Lrp, *Orp, *Xrp, *Srp, *hgcol, *cnt, *pos;
  int32_t *Lcol, *Ocol, *Xcol, *Scol;
  double *Lval, *Oval, *Xval, *sd;
  int borrowed;              /* Lcol, Lval are the matrix's own device CSR arrays (csr format): not ours to free */
  uint64_t *T, *M1, *M2;
  int64_t *root, *step, *cid, *agg, *left, *lpos;
  int *flag;
  void *tmp;
  size_t tmp_bytes;
} dagg;

/* The halo entries of a device array of 8-byte items (own rows first):
 * through the matrix's transport, landing in A->halo_values. */
static ng_status exchange(dagg *d, void *arr)
{
  ng_matrix A = d->A;
  if (!A->halo) return NG_SUCCESS;
  NG_CHECK(ng_halo_begin(A, (const double *)arr));
  NG_CHECK(ng_halo_end(A));
  if (d->nh)
    NG_CUDA_CHECK(cudaMemcpyAsync((char *)arr + (size_t)d->n * 8, A->halo_values, (size_t)d->nh * 8,
                                  cudaMemcpyDeviceToDevice, d->s));
  return NG_SUCCESS;
}

/* pos = exclusive scan of flags[0..n] (flags[n] is set to 0): pos[n] the total */
static ng_status scan(dagg *d, int64_t *flags, int64_t *pos, int64_t *total)
{
  int32_t n = d->n;
  NG_CUDA_CHECK(cudaMemsetAsync(flags + n, 0, sizeof(int64_t), d->s));
  NG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(d->tmp, d->tmp_bytes, flags, pos, n + 1, d->s));
  NG_CUDA_CHECK(cudaMemcpyAsync(total, pos + n, sizeof(int64_t), cudaMemcpyDeviceToHost, d->s));
  NG_CUDA_CHECK(cudaStreamSynchronize(d->s));
  return NG_SUCCESS;
}

static ng_status read_int(dagg *d, int *v)
{
  NG_CUDA_CHECK(cudaMemcpyAsync(v, d->flag, sizeof(int), cudaMemcpyDeviceToHost, d->s));
  NG_CUDA_CHECK(cudaStreamSynchronize(d->s));
  return NG_SUCCESS;
}

static void dagg_free(dagg *d)
{
  if (d->borrowed) d->Lcol = NULL, d->Lval = NULL;
  void *p[] = {d->Lrp, d->Orp, d->Xrp, d->Srp, d->hgcol, d->cnt, d->pos, d->Lcol, d->Ocol, d->Xcol, d->Scol,
               d->Lval, d->Oval, d->Xval, d->sd, d->T, d->M1, d->M2, d->root, d->step, d->cid, d->agg,
               d->left, d->lpos, d->flag, d->tmp};
  for (size_t k = 0; k < sizeof(p) / sizeof(p[0]); k++) ng_cuda_free(p[k]);
}

/* Allocations and uploads (each rank's own; the caller agrees). */
static ng_status upload(dagg *d)
{
  ng_matrix A = d->A;
  const ng_csr *L = &A->local, *O = &A->offrank;
  int32_t n = d->n, ne = d->n + d->nh;
  size_t e1 = (size_t)ne + 1;
  int64_t nnzX = L->nnz + (d->nh ? O->nnz : 0);
  /* the local block from the matrix's own device CSR when it has one (the
   * csr format), else uploaded from the host */
  int64_t *rp64 = NULL;
  int32_t *rp32 = NULL;
  NG_CHECK(NG_CUDA_MALLOC(d->Lrp, (size_t)n + 1));
  if (ng_csr_cuda_arrays64(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp64, &d->Lcol, &d->Lval) == NG_SUCCESS ||
      ng_csr_cuda_arrays(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp32, &d->Lcol, &d->Lval) == NG_SUCCESS) {
    ng_error_clear();
    d->borrowed = 1;
    if (rp64) NG_CUDA_CHECK(cudaMemcpyAsync(d->Lrp, rp64, ((size_t)n + 1) * sizeof(int64_t), cudaMemcpyDeviceToDevice, d->s));
    else k_widen<<<blocks((int64_t)n + 1), TPB, 0, d->s>>>(n, rp32, d->Lrp);
    NG_CUDA_LAUNCH_CHECK();
  } else {
    ng_error_clear();
    d->Lcol = NULL;
    d->Lval = NULL;
    NG_CHECK(NG_CUDA_MALLOC(d->Lcol, L->nnz ? L->nnz : 1));
    NG_CHECK(NG_CUDA_MALLOC(d->Lval, L->nnz ? L->nnz : 1));
  }
  NG_CHECK(NG_CUDA_MALLOC(d->Xrp, (size_t)n + 1));
  NG_CHECK(NG_CUDA_MALLOC(d->Xcol, nnzX ? nnzX : 1));
  NG_CHECK(NG_CUDA_MALLOC(d->Xval, nnzX ? nnzX : 1));
  if (d->nh) {
    NG_CHECK(NG_CUDA_MALLOC(d->Orp, (size_t)n + 1));
    NG_CHECK(NG_CUDA_MALLOC(d->Ocol, O->nnz ? O->nnz : 1));
    NG_CHECK(NG_CUDA_MALLOC(d->Oval, O->nnz ? O->nnz : 1));
    NG_CHECK(NG_CUDA_MALLOC(d->hgcol, d->nh));
  }
  NG_CHECK(NG_CUDA_MALLOC(d->sd, e1));
  NG_CHECK(NG_CUDA_MALLOC(d->cnt, (size_t)n + 1));
  NG_CHECK(NG_CUDA_MALLOC(d->pos, (size_t)n + 1));
  NG_CHECK(NG_CUDA_MALLOC(d->T, e1));
  NG_CHECK(NG_CUDA_MALLOC(d->M1, e1));
  NG_CHECK(NG_CUDA_MALLOC(d->M2, e1));
  NG_CHECK(NG_CUDA_MALLOC(d->root, e1));
  NG_CHECK(NG_CUDA_MALLOC(d->step, e1));
  NG_CHECK(NG_CUDA_MALLOC(d->cid, e1));
  NG_CHECK(NG_CUDA_MALLOC(d->agg, e1));
  NG_CHECK(NG_CUDA_MALLOC(d->left, (size_t)n + 1));
  NG_CHECK(NG_CUDA_MALLOC(d->lpos, (size_t)n + 1));
  NG_CHECK(NG_CUDA_MALLOC(d->flag, 2));
  NG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, d->tmp_bytes, d->cnt, d->pos, n + 1, d->s));
  NG_CHECK(ng_cuda_malloc(&d->tmp, d->tmp_bytes ? d->tmp_bytes : 1, "AMG aggregation scan buffer"));
  NG_CUDA_CHECK(cudaMemsetAsync(d->flag, 0, 2 * sizeof(int), d->s));
  if (!d->borrowed) {
    NG_CUDA_CHECK(cudaMemcpyAsync(d->Lrp, L->rowptr, ((size_t)n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, d->s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->Lcol, L->col, (size_t)L->nnz * sizeof(int32_t), cudaMemcpyHostToDevice, d->s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->Lval, L->val, (size_t)L->nnz * sizeof(double), cudaMemcpyHostToDevice, d->s));
  }
  if (d->nh) {
    NG_CUDA_CHECK(cudaMemcpyAsync(d->Orp, O->rowptr, ((size_t)n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, d->s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->Ocol, O->col, (size_t)O->nnz * sizeof(int32_t), cudaMemcpyHostToDevice, d->s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->Oval, O->val, (size_t)O->nnz * sizeof(double), cudaMemcpyHostToDevice, d->s));
    NG_CUDA_CHECK(cudaMemcpyAsync(d->hgcol, A->halo_gcol, (size_t)d->nh * sizeof(int64_t), cudaMemcpyHostToDevice, d->s));
  }
  return NG_SUCCESS;
}

/* X and the sqrt |a_ii| of own rows; *ok = 0 on an unsorted row or a zero
 * diagonal (flag[0], flag[1]). */
static ng_status extended(dagg *d, int *ok)
{
  ng_matrix A = d->A;
  int32_t n = d->n, nlow = 0, f[2] = {0, 0};
  while (nlow < d->nh && A->halo_gcol[nlow] < A->row_begin) nlow++;
  k_xrp<<<blocks((int64_t)n + 1), TPB, 0, d->s>>>(n, d->Lrp, d->Orp, d->Xrp);
  k_xfill<<<blocks(n), TPB, 0, d->s>>>(n, nlow, d->Lrp, d->Lcol, d->Lval, d->Orp, d->Ocol, d->Oval, d->Xcol, d->Xval,
                                        d->flag);
  k_sqrt_diag_g<<<blocks((int64_t)n * GL), TPB, 0, d->s>>>(n, d->Xrp, d->Xcol, d->Xval, d->sd, d->flag + 1);
  NG_CUDA_LAUNCH_CHECK();
  NG_CUDA_CHECK(cudaMemcpyAsync(f, d->flag, 2 * sizeof(int), cudaMemcpyDeviceToHost, d->s));
  NG_CUDA_CHECK(cudaStreamSynchronize(d->s));
  *ok = !f[0] && !f[1];
  /* the blocks' values are in X now; their patterns stay for updates (and
   * borrowed arrays, the matrix's, which an update refreshes) */
  if (!d->borrowed) ng_cuda_free(d->Lval);
  ng_cuda_free(d->Oval);
  if (!d->borrowed) d->Lval = NULL;
  d->Oval = NULL;
  d->nlow = nlow;
  return NG_SUCCESS;
}

/* The strength graph S over X (own rows, extended columns in global order). */
static ng_status strength(dagg *d, double theta, int sgn)
{
  int32_t n = d->n;
  int64_t nnzS = 0;
  k_strength_g<<<blocks((int64_t)n * GL), TPB, 0, d->s>>>(n, d->Xrp, d->Xcol, d->Xval, d->sd, theta, sgn, d->cnt,
                                                           NULL, NULL);
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(NG_CUDA_MALLOC(d->Srp, (size_t)n + 1));
  NG_CUDA_CHECK(cudaMemsetAsync(d->cnt + n, 0, sizeof(int64_t), d->s));
  NG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(d->tmp, d->tmp_bytes, d->cnt, d->Srp, n + 1, d->s));
  NG_CUDA_CHECK(cudaMemcpyAsync(&nnzS, d->Srp + n, sizeof(int64_t), cudaMemcpyDeviceToHost, d->s));
  NG_CUDA_CHECK(cudaStreamSynchronize(d->s));
  NG_CHECK(NG_CUDA_MALLOC(d->Scol, nnzS ? nnzS : 1));
  k_strength_g<<<blocks((int64_t)n * GL), TPB, 0, d->s>>>(n, d->Xrp, d->Xcol, d->Xval, d->sd, theta, sgn, NULL,
                                                           d->Srp, d->Scol);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

/* The distance-2 maximal independent set (dense rounds: the host's sparse
 * rounds make the same decisions). */
static ng_status mis2(dagg *d)
{
  int32_t n = d->n;
  uint32_t base = (uint32_t)d->A->row_begin;
  k_init_keys<<<blocks(n), TPB, 0, d->s>>>(n, base, d->Srp, d->T);
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(exchange(d, d->T));
  for (int64_t round = 0;; round++) {
    int und = 0;
    NG_CUDA_CHECK(cudaMemsetAsync(d->flag, 0, sizeof(int), d->s));
    k_max_neighbours_g<<<blocks((int64_t)n * GL), TPB, 0, d->s>>>(n, d->Srp, d->Scol, d->T, d->M1);
    NG_CUDA_LAUNCH_CHECK();
    NG_CHECK(exchange(d, d->M1));
    k_max_neighbours_g<<<blocks((int64_t)n * GL), TPB, 0, d->s>>>(n, d->Srp, d->Scol, d->M1, d->M2);
    k_decide<<<blocks(n), TPB, 0, d->s>>>(n, base, d->T, d->M2, d->flag);
    NG_CUDA_LAUNCH_CHECK();
    NG_CHECK(exchange(d, d->T));
    NG_CHECK(read_int(d, &und));
    double undecided = und;
    NG_CHECK(ng_comm_agree_sum(d->A->ctx, NG_SUCCESS, &undecided, 1));
    if (undecided == 0) break;
    if (round > d->A->n_global)
      return NG_ERROR(NG_ERR_INTERNAL, "distributed MIS(2) did not finish after %lld rounds", (long long)round);
  }
  return NG_SUCCESS;
}

/* From the independent set to coarse rows (amg_dist_aggregate.c's
 * dist_number, step by step). */
static ng_status number(dagg *d, int64_t *agg, int64_t *cstarts, int64_t *n_coarse)
{
  ng_context ctx = d->A->ctx;
  int32_t n = d->n, ne = d->n + d->nh;
  int64_t nroots = 0, nleft = 0;
  k_root<<<blocks(ne), TPB, 0, d->s>>>(ne, n, d->A->row_begin, d->T, d->hgcol, d->root);
  k_step1<<<blocks(n), TPB, 0, d->s>>>(n, d->Srp, d->Scol, d->root, d->step, d->cnt);
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(exchange(d, d->step));
  NG_CHECK(scan(d, d->cnt, d->pos, &nroots));
  k_leftover<<<blocks(n), TPB, 0, d->s>>>(n, d->Srp, d->Scol, d->step, d->left);
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(scan(d, d->left, d->lpos, &nleft));
  /* nroots + nleft <= n: a 32-bit count */
  NG_CHECK(ng_comm_starts(ctx, (int32_t)(nroots + nleft), cstarts));
  *n_coarse = cstarts[ctx->size];
  k_cid<<<blocks(n), TPB, 0, d->s>>>(n, d->root, d->pos, d->left, d->lpos, nroots, cstarts[ctx->rank], d->cid);
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(exchange(d, d->cid));
  k_stepc<<<blocks(n), TPB, 0, d->s>>>(n, d->Srp, d->Scol, d->T, d->step, d->cid, d->root); /* root[] reused */
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(exchange(d, d->root));
  k_agg2<<<blocks(n), TPB, 0, d->s>>>(n, d->Srp, d->Scol, d->root, d->cid, d->agg);
  NG_CUDA_LAUNCH_CHECK();
  NG_CHECK(exchange(d, d->agg));
  ng_host_prefault(agg, (size_t)ne * sizeof(int64_t));
  NG_CUDA_CHECK(cudaMemcpyAsync(agg, d->agg, (size_t)ne * sizeof(int64_t), cudaMemcpyDeviceToHost, d->s));
  NG_CUDA_CHECK(cudaStreamSynchronize(d->s));
  return NG_SUCCESS;
}

/* X, the patterns and sd handed from d to a new level state (the rest freed by the caller). */
static ng_status keep(dagg *d, void **dx)
{
  ng_amg_dx *x = NULL;
  NG_CHECK(NG_CALLOC(x, 1));
  x->ctx = d->A->ctx;
  x->n = d->n;
  x->nh = d->nh;
  x->nlow = d->nlow;
  x->nnzL = d->A->local.nnz;
  x->nnzO = d->nh ? d->A->offrank.nnz : 0;
  x->nnzX = x->nnzL + x->nnzO;
  x->Lrp = d->Lrp; x->Lcol = d->Lcol; x->Orp = d->Orp; x->Ocol = d->Ocol;
  x->Lval = d->borrowed ? d->Lval : NULL;
  d->borrowed = 0; /* x owns the decision now */
  d->Lval = NULL;
  x->Xrp = d->Xrp; x->Xcol = d->Xcol; x->Xval = d->Xval; x->sd = d->sd; x->flag = d->flag;
  d->flag = NULL;
  d->Lrp = d->Orp = d->Xrp = NULL;
  d->Lcol = d->Ocol = d->Xcol = NULL;
  d->Xval = d->sd = NULL;
  *dx = x;
  return NG_SUCCESS;
}

extern "C" void ng_amg_dx_free(void *dx)
{
  ng_amg_dx *x = (ng_amg_dx *)dx;
  if (!x) return;
  if (x->Lval) x->Lcol = NULL; /* borrowed from the matrix */
  void *p[] = {x->Lrp, x->Orp, x->Xrp, x->Lcol, x->Ocol, x->Xcol, x->Xval, x->sd,
               x->cagg, x->ptent, x->Prp, x->Pcol, x->Pval, x->flag};
  for (size_t k = 0; k < sizeof(p) / sizeof(p[0]); k++) ng_cuda_free(p[k]);
  ng_free(x);
}

/* Update: X's values from A's blocks (the same patterns). */
extern "C" ng_status ng_amg_dx_values(void *dx, ng_matrix A)
{
  ng_amg_dx *x = (ng_amg_dx *)dx;
  cudaStream_t s = x->ctx->cuda->stream;
  double *lv = NULL, *ov = NULL;
  ng_status st = x->Lval ? NG_SUCCESS : NG_CUDA_MALLOC(lv, x->nnzL ? x->nnzL : 1);
  if (!st && x->nnzO) st = NG_CUDA_MALLOC(ov, x->nnzO);
  if (!st && !x->Lval && x->nnzL &&
      cudaMemcpyAsync(lv, A->local.val, (size_t)x->nnzL * sizeof(double), cudaMemcpyHostToDevice, s) != cudaSuccess)
    st = NG_ERROR(NG_ERR_CUDA, "AMG GPU update: uploading the local block's values failed");
  if (!st && x->nnzO &&
      cudaMemcpyAsync(ov, A->offrank.val, (size_t)x->nnzO * sizeof(double), cudaMemcpyHostToDevice, s) != cudaSuccess)
    st = NG_ERROR(NG_ERR_CUDA, "AMG GPU update: uploading the off-rank block's values failed");
  if (!st) {
    int *junk = x->flag; /* an update keeps the patterns: the sortedness flag is not read */
    k_xfill<<<blocks(x->n), TPB, 0, s>>>(x->n, x->nlow, x->Lrp, x->Lcol, x->Lval ? x->Lval : lv, x->nh ? x->Orp : NULL, x->Ocol, ov,
                                          x->Xcol, x->Xval, junk);
    if (cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(s) != cudaSuccess)
      st = NG_ERROR(NG_ERR_CUDA, "AMG GPU update: refilling the rows failed");
  }
  ng_cuda_free(lv);
  ng_cuda_free(ov);
  return st;
}

extern "C" ng_status ng_amg_dist_aggregate_gpu(ng_matrix A, double theta, int sgn, int keep_sd, int64_t **agg,
                                               int64_t **cstarts, double **sd, int64_t *n_coarse, void **dx,
                                               int *done)
{
  ng_context ctx = A->ctx;
  dagg d;
  memset(&d, 0, sizeof(d));
  d.A = A;
  d.s = ctx->cuda->stream;
  d.n = A->n_local;
  d.nh = A->halo ? A->n_halo : 0;
  *done = 0;
  int ok = A->n_global <= (int64_t)UINT32_MAX && A->n_halo == d.nh;
  ng_status st = ok ? upload(&d) : NG_SUCCESS;
  if (!st && ok) st = extended(&d, &ok);
  /* every rank takes the same road: all on the device or all on the host */
  NG_CHECK_GOTO(st, ng_comm_agree_min(ctx, st, &ok, 1), out);
  if (!ok) goto out;
  if (keep_sd) st = NG_MALLOC(*sd, (size_t)d.n + d.nh + 1); /* the filter's scale */
  if (!st) st = NG_MALLOC(*agg, (size_t)d.n + d.nh);
  if (!st) st = NG_MALLOC(*cstarts, ctx->size + 1);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  NG_CHECK_GOTO(st, exchange(&d, d.sd), out); /* the halo's sqrt |a_jj|, which the strength test reads */
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, strength(&d, theta, sgn)), out); /* S's allocation */
  NG_CHECK_GOTO(st, mis2(&d), out);
  NG_CHECK_GOTO(st, number(&d, *agg, *cstarts, n_coarse), out);
  if (keep_sd && (cudaMemcpyAsync(*sd, d.sd, ((size_t)d.n + d.nh) * sizeof(double), cudaMemcpyDeviceToHost, d.s) !=
                    cudaSuccess ||
                cudaStreamSynchronize(d.s) != cudaSuccess)) {
    st = NG_ERROR(NG_ERR_CUDA, "AMG aggregation: downloading sqrt |a_ii| failed");
    goto out;
  }
  st = ng_comm_agree(ctx, keep(&d, dx)); /* a failed allocation on one rank fails all */
  if (st) {
    ng_amg_dx_free(*dx);
    *dx = NULL;
    goto out;
  }
  *done = 1;
out:
  dagg_free(&d);
  return st;
}
