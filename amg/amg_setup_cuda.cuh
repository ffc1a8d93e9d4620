/* amg/amg_setup_cuda.cuh: what the one-rank GPU setup's phase files share
 * (C++ only): the level state (amg_gpu_level.h), the helpers of
 * amg_setup_cuda.cu and each phase's entry. The phases, each beside its
 * host twin: amg_aggregate_cuda.cu (strength, MIS(2) aggregates),
 * amg_prolong_cuda.cu (tentative and smoothed P, R = P^T),
 * amg_galerkin_cuda.cu (the products, sparsification, A_c's host copy,
 * the distributed setup's local products), amg_rho_cuda.cu (rho(D^-1 A),
 * the smoother's diagonal); amg_setup_cuda.cu holds the levels' state and
 * what amg_setup.c calls. */
#ifndef NG_AMG_SETUP_CUDA_CUH
#define NG_AMG_SETUP_CUDA_CUH
#include "cuda_internal.h"
#include "amg.h"
#include "amg_gpu_level.h"

/* NG_AMG_TRACE=1: each step waits for the device and prints its milliseconds */
void ng_amg_gpu_trace(amg_gpu *g, const char *what, double *t);
/* exclusive scans of n counts into new 64-bit offsets, or a 32-bit rowptr
 * (NG_ERR_UNSUPPORTED past 2^31 - 1 entries; pooled: from the context's pool) */
ng_status ng_amg_gpu_scan_offsets64(amg_gpu *g, int64_t *cnt, int32_t n, int64_t **out, int64_t *total, const char *what);
ng_status ng_amg_gpu_scan_rowptr(amg_gpu *g, int64_t *cnt, int32_t n, int32_t **rp, int64_t *total, const char *what,
                                 int pooled);
/* *v = the level's device flag (waits for the stream) */
ng_status ng_amg_gpu_read_flag(amg_gpu *g, int *v);
/* the level's own 64-bit copy of a 32-bit device rowptr */
ng_status ng_amg_gpu_widen_offsets(amg_gpu *g, const int32_t *rp);
/* the finest A's device CSR: the matrix's own arrays, else a copy */
ng_status ng_amg_gpu_device_matrix(amg_gpu *g, ng_matrix A, int refresh);

/* C = A B on the device (amg_galerkin_cuda.cu's row-wise SpGEMM; A's
 * offsets 32-bit): *Crp NULL: the pattern (pooled arrays) and values,
 * sorted rows when sorted, the hash table's size into *hc; else the values
 * into that pattern (the caller reads g's flag) */
ng_status ng_amg_gpu_spgemm32(amg_gpu *g, int32_t n, const int32_t *Arp, const int32_t *Acol, const double *Aval,
                              const int32_t *Brp, const int32_t *Bcol, const double *Bval, int32_t nrowsB, int64_t nnzB,
                              int32_t **Crp, int32_t **Ccol, double **Cval, int64_t *nnz, int sorted, int *hc,
                              const char *what);

/* the phases */
ng_status ng_amg_gpu_aggregate_level(amg_gpu *g, ng_amg *M, ng_amg_level *L, double theta);
ng_status ng_amg_gpu_prolong(amg_gpu *g, ng_amg *M, ng_amg_level *L, int refresh, double filter);
ng_status ng_amg_gpu_galerkin(amg_gpu *g, ng_amg *M, ng_amg_level *C, int refresh);
/* g's coarse operator into the host CSR C->A (whole: its pattern too) */
ng_status ng_amg_gpu_host_copy(amg_gpu *g, ng_amg_level *C, int whole);
#endif
