/* amg/amg_dist_dx.cuh: one level's device state of the distributed GPU
 * setup, made by the aggregation (amg_dist_aggregate_cuda.cu) and used by
 * P (amg_dist_prolong_cuda.cu) and the Galerkin product's first operand
 * (amg_galerkin_cuda.cu's triple): this rank's rows X in global column order
 * over the extended columns (own j < n, halo column h as n + h), the
 * blocks' patterns (an update refills X's values from the matrix's new
 * ones), sqrt |a_jj| (own and halo), and P over the compact columns. */
#ifndef NG_AMG_DIST_DX_CUH
#define NG_AMG_DIST_DX_CUH
#include <stdint.h>

typedef struct {
  ng_context ctx;
  int32_t n, nh, nlow;           /* own rows, halo columns, halo columns below the own rows */
  int64_t nnzL, nnzO, nnzX;
  int64_t *Lrp, *Orp, *Xrp;      /* the local and off-rank blocks' row offsets, X's */
  int32_t *Lcol, *Ocol, *Xcol;
  double *Lval;                  /* non-NULL: Lcol and Lval are the matrix's own device CSR (csr format),
                                  * borrowed, whose values an update refreshes; else uploaded at an update */
  double *Xval;
  double *sd;                    /* sqrt |a_jj|, own rows then halo columns */
  /* P = (I - omega D^-1 A_F) P_tent over the compact columns */
  int32_t *cagg;                 /* compact column of each own row's and halo column's aggregate (-1: none) */
  double *ptent;
  int32_t *Prp, *Pcol;
  double *Pval;
  int64_t nnzP;
  int *flag;
} ng_amg_dx;
#endif
