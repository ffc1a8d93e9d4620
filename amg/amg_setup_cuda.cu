/* amg/amg_setup_cuda.cu: the big levels' part of the AMG setup on the
 * GPU (-amg_setup gpu; the finest level, and the next ones while they have
 * at least -amg_gpu_min_rows rows): strength of connection, the deterministic MIS(2)
 * aggregation (the same keys, hash and rounds as amg_aggregate.c, so the
 * aggregates are identical to the host's), the tentative and smoothed P, R =
 * P^T (a stable radix sort of P's entries by column) and the Galerkin product R (A P) by a row-wise
 * SpGEMM with a hash table per warp in shared memory. P and R stay on the
 * device as csr_cuda SpMV tables for the V-cycle and the coarse operator is
 * the next level's input on the device; each coarse operator is also
 * downloaded (the host computes its rho and keeps it for update) and the
 * host code builds the small levels.
 * refresh() recomputes only the values (same aggregates and patterns).
 * A and its strength graph have 64-bit row offsets on every level (the
 * matrix's own in csr_cuda's 64-bit layout, else a widened copy of n + 1
 * offsets), so a finest level past 2^31 - 1 entries (lap27:432, issue 16
 * item 6) is set up here too; P, A P and A_c keep 32-bit offsets (the SpMV
 * tables' layout), and a level whose product passes 2^31 - 1 entries is
 * refused (NG_ERR_UNSUPPORTED) and built on the host.
 * Memory: the temporaries and every level array but A's copies and P's and
 * R's (which the SpMV tables adopt) come stream-ordered from the context's
 * pool (ng_cuda_tmp_malloc / ng_cuda_tmp_free): no cudaMalloc or cudaFree,
 * each a device-wide wait, per array. MIS(2)'s late rounds run over the
 * undecided rows only (k_max1_listed, k_decide_listed).
 * This file: the levels' device state and what amg_setup.c calls; the
 * phases are in the files amg_setup_cuda.cuh names. */
#include "amg_setup_cuda.cuh"
#include <cub/cub.cuh>
#include <limits.h>
#include <math.h>
#include "amg_kernels_cuda.cuh"
#include <pthread.h>

/* spmv/csr_cuda.cu: CSR SpMV tables over new device arrays (ng_csr_cuda_adopt: spmv/spmv.h). */
extern "C" ng_status ng_csr_cuda_make(ng_context ctx, int32_t nrows, int32_t ncols, int64_t nnz,
                                      ng_status (*fill)(void *arg, int32_t *rowptr, int32_t *col, double *val),
                                      void *arg, void **data);

/* ---- host side ------------------------------------------------------------ */

/* NG_AMG_TRACE=1: each step of the GPU setup waits for the device and prints
 * its milliseconds on stderr (a profiling aid for machines without Nsight;
 * the waits make the whole setup slower, so bench/amg's phases are run without) */
void ng_amg_gpu_trace(amg_gpu *g, const char *what, double *t)
{
  if (!ng_amg_trace_on()) return;
  cudaStreamSynchronize(g->ctx->cuda->stream);
  double now = ng_wtime();
  fprintf(stderr, "[amg trace] n %d %s %.2f ms\n", (int)g->n, what, 1e3 * (now - *t));
  *t = now;
}


/* Exclusive scan of cnt (n entries, int64) into new 64-bit offsets *out
 * (n + 1); *total receives the sum. */
ng_status ng_amg_gpu_scan_offsets64(amg_gpu *g, int64_t *cnt, int32_t n, int64_t **out, int64_t *total, const char *what)
{
  struct ng_cuda *cu = g->ctx->cuda;
  int64_t *pos = NULL;
  void *tmp = NULL;
  size_t tb = 0;
  ng_status st = NG_SUCCESS;
  *out = NULL;
  NG_CHECK(NG_CUDA_TMP(cu, pos, (size_t)n + 1)); /* the caller frees it with ng_cuda_tmp_free */
#define SCAN_CHECK(call)                                                                          \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: %s of %s failed: %s", #call, what, cudaGetErrorString(e_)); \
      goto out;                                                                                   \
    }                                                                                             \
  } while (0)
  SCAN_CHECK(cudaMemsetAsync(cnt + n, 0, sizeof(int64_t), cu->stream));
  SCAN_CHECK(cub::DeviceScan::ExclusiveSum(NULL, tb, cnt, pos, n + 1, cu->stream));
  NG_CHECK_GOTO(st, ng_cuda_tmp_malloc(cu, &tmp, tb ? tb : 1, "AMG scan buffer"), out);
  SCAN_CHECK(cub::DeviceScan::ExclusiveSum(tmp, tb, cnt, pos, n + 1, cu->stream));
  SCAN_CHECK(cudaMemcpyAsync(total, pos + n, sizeof(int64_t), cudaMemcpyDeviceToHost, cu->stream));
  SCAN_CHECK(cudaStreamSynchronize(cu->stream));
#undef SCAN_CHECK
out:
  ng_cuda_tmp_free(cu, tmp);
  if (st == NG_SUCCESS) *out = pos;
  else ng_cuda_tmp_free(cu, pos);
  return st;
}

/* The same into a new 32-bit rowptr (P, A P, A_c: the SpMV tables' and
 * cuSPARSE's layout); NG_ERR_UNSUPPORTED past 2^31 - 1 entries. */
ng_status ng_amg_gpu_scan_rowptr(amg_gpu *g, int64_t *cnt, int32_t n, int32_t **rp, int64_t *total, const char *what,
                                 int pooled)
{
  int64_t *pos = NULL;
  ng_status st = NG_SUCCESS;
  *rp = NULL;
  NG_CHECK(ng_amg_gpu_scan_offsets64(g, cnt, n, &pos, total, what));
  if (*total > INT32_MAX)
    st = NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU setup: %s has %lld entries, more than 32-bit indices hold", what,
                  (long long)*total);
  if (st == NG_SUCCESS)
    st = pooled ? ng_cuda_tmp_malloc(g->ctx->cuda, (void **)rp, ((size_t)n + 1) * sizeof(int32_t), what)
                : ng_cuda_malloc((void **)rp, ((size_t)n + 1) * sizeof(int32_t), what);
  if (st == NG_SUCCESS) {
    k_narrow<<<blocks(n + 1), TPB, 0, g->ctx->cuda->stream>>>(n, pos, *rp);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: narrowing the offsets of %s failed: %s", what, cudaGetErrorString(e));
  }
  ng_cuda_tmp_free(g->ctx->cuda, pos); /* after k_narrow, in the stream's order */
  return st;
}

ng_status ng_amg_gpu_read_flag(amg_gpu *g, int *v)
{
  struct ng_cuda *cu = g->ctx->cuda;
  NG_CUDA_CHECK(cudaMemcpyAsync(v, g->flag, sizeof(int), cudaMemcpyDeviceToHost, cu->stream));
  NG_CUDA_CHECK(cudaStreamSynchronize(cu->stream));
  return NG_SUCCESS;
}

/* A's 64-bit row offsets from a 32-bit device array (once: the pattern
 * does not change on update). */
ng_status ng_amg_gpu_widen_offsets(amg_gpu *g, const int32_t *rp)
{
  if (g->own_rp) return NG_SUCCESS;
  NG_CHECK(NG_CUDA_MALLOC(g->own_rp, (size_t)g->n + 1));
  k_widen<<<blocks((int64_t)g->n + 1), TPB, 0, g->ctx->cuda->stream>>>(g->n, rp, g->own_rp);
  NG_CUDA_LAUNCH_CHECK();
  return NG_SUCCESS;
}

/* Device CSR of the finest A: the matrix's own csr_cuda arrays (their
 * 64-bit offsets, or 32-bit ones widened), else a copy. */
ng_status ng_amg_gpu_device_matrix(amg_gpu *g, ng_matrix A, int refresh)
{
  struct ng_cuda *cu = g->ctx->cuda;
  const ng_csr *H = &A->local;
  int32_t *rp, *col;
  int64_t *rp64;
  double *val;
  if (!g->own_val && ng_csr_cuda_arrays64(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp64, &col, &val) == NG_SUCCESS) {
    g->Arp = rp64;
    g->Acol = col;
    g->Aval = val;
    return NG_SUCCESS;
  }
  if (!g->own_val && ng_csr_cuda_arrays(ng_matrix_csr_ops(A), ng_matrix_csr_data(A), &rp, &col, &val) == NG_SUCCESS) {
    NG_CHECK(ng_amg_gpu_widen_offsets(g, rp));
    g->Arp = g->own_rp;
    g->Acol = col;
    g->Aval = val;
    return NG_SUCCESS;
  }
  if (!refresh) {
    NG_CHECK(NG_CUDA_MALLOC(g->own_rp, (size_t)g->n + 1));
    NG_CHECK(NG_CUDA_MALLOC(g->own_col, H->nnz ? H->nnz : 1));
    NG_CHECK(NG_CUDA_MALLOC(g->own_val, H->nnz ? H->nnz : 1));
    NG_CUDA_CHECK(cudaMemcpy(g->own_rp, H->rowptr, ((size_t)g->n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
    NG_CUDA_CHECK(cudaMemcpy(g->own_col, H->col, (size_t)H->nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
  }
  NG_CUDA_CHECK(cudaMemcpyAsync(g->own_val, H->val, (size_t)H->nnz * sizeof(double), cudaMemcpyHostToDevice, cu->stream));
  g->Arp = g->own_rp;
  g->Acol = g->own_col;
  g->Aval = g->own_val;
  return NG_SUCCESS;
}

/* A level's arrays: from the context's pool (ng_cuda_tmp_free, in the
 * stream's order) but A's own copies and P's and R's, which the SpMV tables
 * adopt and free with cudaFree. */
static void gpu_free(amg_gpu *g)
{
  if (!g) return;
  struct ng_cuda *cu = g->ctx->cuda;
  ng_cuda_free(g->own_rp);
  ng_cuda_free(g->own_col);
  ng_cuda_free(g->own_val);
  void *pooled[] = {g->agg, g->ptent, g->rperm, g->APrp, g->APcol, g->APval, g->Crp, g->Ccol,
                    g->Cval, g->Grp, g->Gcol, g->Gval, g->smap, g->flag, g->sd, g->lump};
  for (size_t k = 0; k < sizeof(pooled) / sizeof(pooled[0]); k++) ng_cuda_tmp_free(cu, pooled[k]);
  /* P and R arrays belong to the SpMV tables once adopted */
  if (!g->adoptedP) {
    ng_cuda_free(g->Prp);
    ng_cuda_free(g->Pcol);
    ng_cuda_free(g->Pval);
  }
  if (!g->adoptedR) {
    ng_cuda_free(g->Rrp);
    ng_cuda_free(g->Rcol);
    ng_cuda_free(g->Rval);
  }
  ng_free(g);
}

/* M->gpu: one state per level built on the GPU (NULL for host levels). */
static amg_gpu **levels(ng_amg *M) { return ng_amg_gpu_levels(M); }

extern "C" void ng_amg_gpu_free(ng_amg *M)
{
  amg_gpu **lv = levels(M);
  ng_cuda_free(M->rho_work);
  M->rho_work = NULL;
  M->rho_work_n = 0;
  ng_amg_fine_free_dev(M);
  if (!lv) return;
  for (int l = 0; l < M->max_levels; l++) gpu_free(lv[l]);
  ng_free(lv);
  M->gpu = NULL;
}

extern "C" void ng_amg_gpu_drop(ng_amg *M, int l)
{
  amg_gpu **lv = levels(M);
  if (!lv) return;
  gpu_free(lv[l]);
  lv[l] = NULL;
}

extern "C" ng_status ng_amg_gpu_aggregate(ng_amg *M, ng_matrix A, int l)
{
  amg_gpu *g, **lv;
  ng_amg_level *L = &M->L[l];
  double t = ng_wtime();
  if (!M->gpu) {
    NG_CHECK(NG_CALLOC(lv, M->max_levels));
    M->gpu = lv;
  }
  lv = levels(M);
  if (l > 0 && (!lv[l - 1] || !lv[l - 1]->Crp))
    return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: level %d's operator is not on the device", l);
  /* A and its strength graph have 64-bit offsets here (past 2^31 entries
   * too; P, A P and A_c are 32-bit and refuse more, see scan_rowptr); the
   * grid-stride row loops (ROW_LOOP: int32 i plus at most 65535 * 8 * TPB)
   * must not wrap: past that the host builds the level (amg_setup.c clears
   * this error) */
  if (l == 0 && (int64_t)A->n_local > INT32_MAX - (int64_t)65535 * 8 * TPB)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU setup: %d rows, too many for its 32-bit row loops; built on the host",
                    (int)A->n_local);
  NG_CHECK(NG_CALLOC(g, 1));
  lv[l] = g;
  g->ctx = A->ctx;
  NG_CHECK(NG_CUDA_TMP(g->ctx->cuda, g->flag, 1));
  NG_CUDA_CHECK(cudaMemsetAsync(g->flag, 0, sizeof(int), g->ctx->cuda->stream));
  if (l == 0) {
    g->n = A->n_local;
    g->nnzA = A->local.nnz;
    NG_CHECK(ng_amg_gpu_device_matrix(g, A, 0));
  } else { /* the previous level's Galerkin product, still on the device */
    amg_gpu *f = lv[l - 1];
    g->n = f->nagg;
    g->nnzA = f->nnzC;
    NG_CHECK(ng_amg_gpu_widen_offsets(g, f->Crp));
    g->Arp = g->own_rp;
    g->Acol = f->Ccol;
    g->Aval = f->Cval;
  }
  NG_CHECK(ng_amg_gpu_aggregate_level(g, M, L, ng_amg_level_theta(M, l)));
  M->t_aggregate += ng_wtime() - t;
  M->t_gpu += ng_wtime() - t;
  return NG_SUCCESS;
}

/* L->agg (host) from level l's device aggregates: for the host's fallback
 * transfer and for tests; the GPU setup itself never reads it */
extern "C" ng_status ng_amg_gpu_aggregates(ng_amg *M, int l)
{
  amg_gpu *g = M->gpu && l >= 0 && l < M->max_levels ? levels(M)[l] : NULL;
  ng_amg_level *L = &M->L[l];
  if (!g || !g->agg) return NG_ERROR(NG_ERR_INTERNAL, "AMG: level %d has no device aggregates", l);
  if (!L->agg) NG_CHECK(NG_MALLOC(L->agg, g->n ? g->n : 1));
  NG_CUDA_CHECK(cudaStreamSynchronize(g->ctx->cuda->stream));
  NG_CUDA_CHECK(cudaMemcpy(L->agg, g->agg, (size_t)g->n * sizeof(int32_t), cudaMemcpyDeviceToHost));
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_transfer_part(ng_amg *M, ng_matrix A, int l, int refresh, int part)
{
  amg_gpu *g = M->gpu ? levels(M)[l] : NULL;
  ng_amg_level *L = &M->L[l];
  double t = ng_wtime();
  if (!g) return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: level %d was not aggregated on the device", l);
  /* the W- and K-cycles' hybrid lumping is the host's (amg_sparsify.c):
   * their levels' transfers are built there from the device's aggregates */
  if (M->sparsify > 0 && ng_amg_hybrid(M))
    return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG GPU setup: the W- and K-cycles' sparsification is built on the host");
  if ((part & 1) && refresh && l == 0) M->t_gpu = 0;
  if ((part & 1) && refresh && l == 0) NG_CHECK(ng_amg_gpu_device_matrix(g, A, 1));
  if (part & 1) NG_CHECK(ng_amg_gpu_prolong(g, M, L, refresh, M->filter ? ng_amg_level_theta(M, l) : 0.0));
  if (part & 2) NG_CHECK(ng_amg_gpu_galerkin(g, M, &M->L[l + 1], refresh));
  if (!refresh && (part & 1)) { /* the V-cycle's P and R: csr_cuda tables over these arrays */
    double tt = ng_wtime();
    NG_CHECK(ng_csr_cuda_adopt(g->ctx, g->n, g->nagg, g->nnzP, g->Prp, g->Pcol, g->Pval, &L->Pdata));
    L->Pops = ng_spmv_find("csr", 1);
    g->adoptedP = 1;
    NG_CHECK(ng_csr_cuda_adopt(g->ctx, g->nagg, g->n, g->nnzP, g->Rrp, g->Rcol, g->Rval, &L->Rdata));
    L->Rops = L->Pops;
    g->adoptedR = 1;
    ng_amg_gpu_trace(g, "transfer: P and R tables", &tt);
  }
  M->t_gpu += ng_wtime() - t;
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_transfer(ng_amg *M, ng_matrix A, int l, int refresh)
{
  NG_CHECK(ng_amg_gpu_transfer_part(M, A, l, refresh, 3));
  return NG_SUCCESS;
}

/* ---- the products on a thread of their own (the uncoupled level) ---------- */
struct gpu_job {
  ng_amg *M;
  ng_matrix A;
  int l, refresh, device, started;
  pthread_t th;
  ng_status st;
  char msg[1024]; /* the thread's error message (messages are per thread) */
};

static void *job_run(void *arg)
{
  gpu_job *j = (gpu_job *)arg;
  cudaError_t e = cudaSetDevice(j->device); /* the current device is per thread */
  if (e != cudaSuccess) j->st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: cudaSetDevice on the products' thread: %s", cudaGetErrorString(e));
  else j->st = ng_amg_gpu_transfer_part(j->M, j->A, j->l, j->refresh, 2);
  if (j->st) snprintf(j->msg, sizeof(j->msg), "%s", ng_last_error());
  return NULL;
}

extern "C" ng_status ng_amg_gpu_products_start(ng_amg *M, ng_matrix A, int l, int refresh, void **job)
{
  gpu_job *j = NULL;
  *job = NULL;
  NG_CHECK(NG_CALLOC(j, 1));
  j->M = M;
  j->A = A;
  j->l = l;
  j->refresh = refresh;
  cudaError_t e = cudaGetDevice(&j->device);
  if (e != cudaSuccess) {
    ng_free(j);
    return NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: cudaGetDevice: %s", cudaGetErrorString(e));
  }
  *job = j;
  /* no thread to be had: the products run here, now (same result, no overlap) */
  j->started = pthread_create(&j->th, NULL, job_run, j) == 0;
  if (!j->started) job_run(j);
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_products_wait(void *job)
{
  gpu_job *j = (gpu_job *)job;
  if (!j) return NG_SUCCESS;
  if (j->started) pthread_join(j->th, NULL);
  ng_status st = j->st;
  ng_status out = st ? NG_ERROR(st, "%s", j->msg) : NG_SUCCESS;
  ng_free(j);
  return out;
}

/* Setup: level l's operator table (l > 0) as a device CSR copied on the
 * device from GPU level l - 1's product (no upload of the host copy);
 * *done = 0 when the requested format is not the device CSR. */
/* level l - 1's product into a new table's arrays (ng_csr_cuda_make's fill) */
static ng_status fill_product(void *arg, int32_t *rp, int32_t *col, double *val)
{
  amg_gpu *f = (amg_gpu *)arg;
  cudaStream_t s = f->ctx->cuda->stream;
  if (cudaMemcpyAsync(rp, f->Crp, ((size_t)f->nagg + 1) * sizeof(int32_t), cudaMemcpyDeviceToDevice, s) != cudaSuccess ||
      cudaMemcpyAsync(col, f->Ccol, (size_t)f->nnzC * sizeof(int32_t), cudaMemcpyDeviceToDevice, s) != cudaSuccess ||
      cudaMemcpyAsync(val, f->Cval, (size_t)f->nnzC * sizeof(double), cudaMemcpyDeviceToDevice, s) != cudaSuccess)
    return NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: copying a coarse operator on the device failed");
  return NG_SUCCESS;
}

extern "C" ng_status ng_amg_gpu_coarse_table(ng_amg *M, int l, const ng_spmv_ops **ops, void **data, int *done)
{
  amg_gpu *f = M->gpu && l > 0 ? levels(M)[l - 1] : NULL;
  const ng_spmv_ops *csr = ng_spmv_find("csr", 1);
  *done = 0;
  if (!f || !f->Crp || !csr || ng_spmv_find(M->format, 1) != csr) return NG_SUCCESS;
  NG_CHECK(ng_csr_cuda_make(f->ctx, f->nagg, f->nagg, f->nnzC, fill_product, f, data));
  *ops = csr;
  *done = 1;
  return NG_SUCCESS;
}

/* ---- an uncoupled distributed level (amg_dist_local.c) ---------------------- */
__global__ void k_lump_scatter(int32_t cnt, const int32_t *rows, const double *vals, double *lump)
{
  ROW_LOOP(cnt) lump[rows[i]] = vals[i];
}

/* lump = 0 but at rows[k], where it is vals[k] (the rows with off-rank couplings: a boundary's worth) */
extern "C" ng_status ng_amg_gpu_lump(ng_amg *M, int l, const int32_t *rows, const double *vals, int32_t cnt)
{
  amg_gpu *g = M->gpu ? levels(M)[l] : NULL;
  if (!g) return NG_ERROR(NG_ERR_INTERNAL, "AMG GPU setup: level %d was not aggregated on the device", l);
  struct ng_cuda *cu = g->ctx->cuda;
  int32_t *dr = NULL;
  double *dv = NULL;
  ng_status st = NG_SUCCESS;
  if (!g->lump) NG_CHECK(NG_CUDA_TMP(cu, g->lump, g->n ? g->n : 1));
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, dr, cnt ? cnt : 1), out);
  NG_CHECK_GOTO(st, NG_CUDA_TMP(cu, dv, cnt ? cnt : 1), out);
  {
    cudaError_t e = cudaMemsetAsync(g->lump, 0, (size_t)g->n * sizeof(double), cu->stream);
    if (e == cudaSuccess && cnt) e = cudaMemcpyAsync(dr, rows, (size_t)cnt * sizeof(int32_t), cudaMemcpyHostToDevice, cu->stream);
    if (e == cudaSuccess && cnt) e = cudaMemcpyAsync(dv, vals, (size_t)cnt * sizeof(double), cudaMemcpyHostToDevice, cu->stream);
    if (e == cudaSuccess && cnt) {
      k_lump_scatter<<<blocks(cnt), TPB, 0, cu->stream>>>(cnt, dr, dv, g->lump);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream); /* rows, vals: the caller's pageable memory */
    if (e != cudaSuccess) st = NG_ERROR(NG_ERR_CUDA, "AMG GPU setup: the off-rank lumping: %s", cudaGetErrorString(e));
  }
out:
  ng_cuda_tmp_free(cu, dr);
  ng_cuda_tmp_free(cu, dv);
  return st;
}

/* Update: level l's operator table (l > 0, the product of GPU level l - 1)
 * takes its new values from the device product (no upload of the host copy);
 * *done = 0 when the table is not a device CSR of the same size. */
extern "C" ng_status ng_amg_gpu_coarse_values(ng_amg *M, int l, const ng_spmv_ops *ops, void *data, int *done)
{
  amg_gpu *f = M->gpu && l > 0 ? levels(M)[l - 1] : NULL;
  int32_t *rp, *col;
  double *val;
  *done = 0;
  if (!f || !f->Cval || ng_csr_cuda_arrays(ops, data, &rp, &col, &val) != NG_SUCCESS) return NG_SUCCESS;
  if (M->L[l].A.nnz != f->nnzC) return NG_SUCCESS;
  if (f->nnzC)
    NG_CUDA_CHECK(cudaMemcpyAsync(val, f->Cval, (size_t)f->nnzC * sizeof(double), cudaMemcpyDeviceToDevice,
                                  f->ctx->cuda->stream));
  *done = 1;
  return NG_SUCCESS;
}

/* Level l's operator values from GPU level l - 1's device product straight
 * into val (nnz entries, the host CSR's order): an update of a level whose
 * pattern the host already holds elsewhere (the uncoupled level's coarse
 * matrix) downloads the values alone. *done = 0: not on the device. */
extern "C" ng_status ng_amg_gpu_coarse_values_host(ng_amg *M, int l, double *val, int64_t nnz, int *done)
{
  amg_gpu *f = M->gpu && l > 0 ? levels(M)[l - 1] : NULL;
  *done = 0;
  if (!f || !f->Cval || nnz != f->nnzC) return NG_SUCCESS;
  NG_CUDA_CHECK(cudaStreamSynchronize(f->ctx->cuda->stream));
  if (nnz) NG_CUDA_CHECK(cudaMemcpy(val, f->Cval, (size_t)nnz * sizeof(double), cudaMemcpyDeviceToHost));
  *done = 1;
  return NG_SUCCESS;
}

/* Level l's row offsets from GPU level l - 1's device product (32-bit
 * there, widened): all that a coarse matrix whose local block stays on the
 * device keeps on the host (amg_dist_local.c). */
extern "C" ng_status ng_amg_gpu_coarse_rowptr(ng_amg *M, int l, int64_t *rowptr)
{
  amg_gpu *f = M->gpu && l > 0 ? levels(M)[l - 1] : NULL;
  int32_t *h = NULL;
  if (!f || !f->Crp) return NG_ERROR(NG_ERR_INTERNAL, "AMG: level %d's product is not on the device", l);
  NG_CHECK(NG_MALLOC(h, (size_t)f->nagg + 1));
  cudaError_t e = cudaMemcpyAsync(h, f->Crp, ((size_t)f->nagg + 1) * sizeof(int32_t), cudaMemcpyDeviceToHost,
                                  f->ctx->cuda->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(f->ctx->cuda->stream);
  for (int32_t i = 0; e == cudaSuccess && i <= f->nagg; i++) rowptr[i] = h[i];
  ng_free(h);
  if (e != cudaSuccess)
    return NG_ERROR(NG_ERR_CUDA, "AMG: downloading level %d's row offsets: %s", l, cudaGetErrorString(e));
  return NG_SUCCESS;
}

/* Level l's host operator from GPU level l - 1's device product when the
 * setup left it there (host_stale 2) or an update refreshed only the device
 * values (1). */
extern "C" ng_status ng_amg_gpu_level_host(ng_amg *M, int l)
{
  amg_gpu *f = M->gpu && l > 0 ? levels(M)[l - 1] : NULL;
  ng_amg_level *L = &M->L[l];
  if (!L->host_stale) return NG_SUCCESS;
  if (!f || !f->Crp) return NG_ERROR(NG_ERR_INTERNAL, "AMG: level %d's operator is neither on the host nor on the device", l);
  return ng_amg_gpu_host_copy(f, L, L->host_stale == 2);
}
