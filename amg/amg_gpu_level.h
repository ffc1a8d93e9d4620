/* amg/amg_gpu_level.h: the device state of a level built by the GPU setup
 * (amg_setup_cuda.cu; M->gpu holds one per level), in a header of its own
 * so that test code (test/amg_cuda_host.cu) can download a level's P, R
 * and A_c for the host-against-GPU comparisons. CUDA sources only. */
#ifndef NG_AMG_GPU_LEVEL_H
#define NG_AMG_GPU_LEVEL_H
#include "cuda_internal.h"
#include "amg.h"

typedef struct {
  ng_context ctx;
  int32_t n, nagg, nc;
  int64_t nnzA, nnzP, nnzAP, nnzC;
  const int64_t *Arp;        /* A's row offsets, 64-bit on every level (issue 16 item 6): the matrix's own in
                              * its 64-bit layout, else own_rp */
  const int32_t *Acol;       /* the matrix's device CSR (borrowed, or the copies below) */
  const double *Aval;
  int64_t *own_rp;           /* A's offsets widened from a 32-bit device CSR, or uploaded */
  int32_t *own_col; double *own_val; /* uploaded here when the matrix is not csr_cuda */
  int32_t *agg;              /* device */
  double *ptent;             /* device */
  int32_t *Prp, *Pcol; double *Pval; /* owned by the level's P table */
  int32_t *Rrp, *Rcol; double *Rval; /* owned by the level's R table */
  int32_t *rperm;            /* device: entry k of P is entry rperm[k] of R (update: R's values by a scatter) */
  int32_t *APrp, *APcol; double *APval;
  int32_t *Crp, *Ccol; double *Cval; /* the level's coarse operator (sparsified with -amg_sparsify) */
  int32_t *Grp, *Gcol; double *Gval; /* -amg_sparsify: the full Galerkin product */
  int64_t nnzG;
  int32_t *smap;             /* -amg_sparsify: entry k of G adds into entry smap[k] of C */
  int *flag;                 /* device: overflow / bad row */
  double *sd;                /* -amg_filter: sqrt |a_ii| (made at the setup, reused by updates) */
  int sd_fresh;              /* sd is the aggregation's, from the values the transfer reads */
  double *lump;              /* uncoupled distributed level: added to P's diagonal term (ng_amg_gpu_lump), or NULL */
  int hcAP, hcC;             /* hash table size of each product (spgemm) */
  int pgroup;                /* lanes a row of k_prow (8, 16, 32), 0: k_ppattern / k_pvalues (a row past 32) */
  int adoptedP, adoptedR;    /* P / R arrays now belong to the SpMV tables */
} amg_gpu;

/* the levels' states (NULL for a level built on the host) */
static inline amg_gpu **ng_amg_gpu_levels(ng_amg *M) { return (amg_gpu **)M->gpu; }

#endif
