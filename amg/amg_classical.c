/* amg/amg_classical.c: one level of the classical (Ruge-Stueben type)
 * hierarchy, -amg_coarsening classical, in the one-rank host setup:
 * classical strength (amg_classical_strength.c), PMIS or HMIS C/F
 * splitting (amg_pmis.c, amg_hmis.c), extended+i or direct interpolation truncated to
 * -amg_classical_pmax entries a row (amg_interp_ext.c, amg_interp_direct.c),
 * R = P^T and the Galerkin product A_c = R (A P) (amg_galerkin.c), with no
 * sparsification. The level then finishes as an aggregation level does
 * (amg_setup.c: smoother, tables, coarse solve), so the cycle is the same. */
#include "amg.h"

ng_status ng_amg_classical_level(ng_amg *M, const ng_csr *A, int l, int32_t *nc)
{
  ng_amg_level *L = &M->L[l], *C = &M->L[l + 1];
  ng_graph S = {0};
  int8_t *cf = NULL;
  ng_status st;
  double t = ng_wtime();
  *nc = 0;
  NG_CHECK_GOTO(st, NG_MALLOC(cf, L->s.n > 0 ? L->s.n : 1), out);
  NG_CHECK_GOTO(st, ng_amg_classical_strength(A, M->classical_theta, &S), out);
  if (M->classical_hmis) NG_CHECK_GOTO(st, ng_amg_hmis(&S, cf, nc), out);
  else NG_CHECK_GOTO(st, ng_amg_pmis(&S, cf, nc), out);
  M->t_aggregate += ng_wtime() - t;
  if (*nc == 0 || *nc > L->s.n * 0.9) goto out; /* no useful coarsening: this level is the coarsest */
  t = ng_wtime();
  if (M->classical_direct) NG_CHECK_GOTO(st, ng_amg_interp_direct(A, &S, cf, M->classical_pmax, &L->P), out);
  else NG_CHECK_GOTO(st, ng_amg_interp_extended(A, &S, cf, M->classical_pmax, &L->P), out);
  NG_CHECK_GOTO(st, NG_MALLOC(L->rperm, L->P.nnz > 0 ? L->P.nnz : 1), out);
  NG_CHECK_GOTO(st, ng_csr_transpose(&L->P, &L->R, L->rperm), out);
  L->nagg = *nc;
  M->t_prolong += ng_wtime() - t;
  t = ng_wtime();
  NG_CHECK_GOTO(st, ng_spgemm(A, &L->P, &L->AP, 0), out);
  NG_CHECK_GOTO(st, ng_spgemm(&L->R, &L->AP, &C->A, 1), out);
  M->t_galerkin += ng_wtime() - t;
out:
  ng_graph_free(&S);
  ng_free(cf);
  return st;
}
