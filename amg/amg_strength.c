/* amg/amg_strength.c: strength of connection for smoothed aggregation
 * (Vanek, Mandel, Brezina 1996): j is a strong neighbour of i when
 * |a_ij| >= theta sqrt(|a_ii a_jj|), or with -amg_strength signed (the
 * default) -a_ij >= theta sqrt(|a_ii a_jj|): a positive coupling, as the
 * rotated-anisotropy and aniso27 stencils have along their weak direction,
 * is not strong (hypre's classical measure; Vanek's |a_ij| aggregates
 * across it). Symmetric in i and j, so a symmetric matrix gives a
 * symmetric graph. Two parallel passes: count, then fill.
 * The diagonal comes from ng_csr_diagonal (core/csr.c). */
#include "amg.h"
#include <math.h>

ng_status ng_amg_sqrt_diagonal(const ng_csr *A, double *d)
{
  NG_CHECK(ng_csr_diagonal(A, d, 1));
#pragma omp parallel for schedule(static) if (A->nrows > 20000)
  for (int32_t i = 0; i < A->nrows; i++) d[i] = sqrt(fabs(d[i]));
  return NG_SUCCESS;
}

ng_status ng_amg_strength(const ng_csr *A, double theta, int sgn, ng_graph *S)
{
  int32_t n = A->nrows;
  double *d = NULL;
  ng_status st = NG_SUCCESS;
  memset(S, 0, sizeof(*S));
  NG_CHECK(NG_MALLOC(d, n));
  NG_CHECK_GOTO(st, ng_amg_sqrt_diagonal(A, d), fail);
  NG_CHECK_GOTO(st, NG_CALLOC(S->rowptr, (size_t)n + 1), fail);
  S->n = n;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t c = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      int32_t j = A->col[k];
      c += j != i && NG_AMG_STRONG(A->val[k], theta, d[i], d[j], sgn);
    }
    S->rowptr[i + 1] = c;
  }
  for (int32_t i = 0; i < n; i++) S->rowptr[i + 1] += S->rowptr[i];
  NG_CHECK_GOTO(st, NG_MALLOC(S->col, S->rowptr[n]), fail);
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t p = S->rowptr[i];
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      int32_t j = A->col[k];
      if (j != i && NG_AMG_STRONG(A->val[k], theta, d[i], d[j], sgn)) S->col[p++] = j;
    }
  }
  ng_free(d);
  return NG_SUCCESS;
fail:
  ng_free(d);
  ng_graph_free(S);
  return st;
}
