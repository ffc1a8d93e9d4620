/* amg/amg_classical_strength.c: classical strength of connection (Ruge and
 * Stueben 1987; hypre's BoomerAMGCreateS): j strongly influences i when
 * -a_ij >= theta max_{k != i} (-a_ik). Positive couplings are weak; a row
 * with no negative off-diagonal has no strong influences. The graph is
 * not symmetric (each row has its own scale); ng_graph_transpose gives
 * the points that depend on each point. */
#include "amg.h"

/* Threshold of row i: theta times its most negative off-diagonal (0: none). */
static double row_threshold(const ng_csr *A, int32_t i, double theta)
{
  double m = 0;
  for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
    if (A->col[k] != i && -A->val[k] > m) m = -A->val[k];
  return theta * m;
}

static int strong(const ng_csr *A, int32_t i, int64_t k, double t)
{
  return A->col[k] != i && t > 0 && -A->val[k] >= t;
}

ng_status ng_amg_classical_strength(const ng_csr *A, double theta, ng_graph *S)
{
  int32_t n = A->nrows;
  memset(S, 0, sizeof(*S));
  if (!(theta >= 0 && theta <= 1))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_classical_theta %g must be in [0, 1]", theta);
  NG_CHECK(NG_CALLOC(S->rowptr, (size_t)n + 1));
  S->n = n;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    double t = row_threshold(A, i, theta);
    int64_t c = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) c += strong(A, i, k, t);
    S->rowptr[i + 1] = c;
  }
  for (int32_t i = 0; i < n; i++) S->rowptr[i + 1] += S->rowptr[i];
  ng_status st = NG_MALLOC(S->col, S->rowptr[n] > 0 ? S->rowptr[n] : 1);
  if (st != NG_SUCCESS) {
    ng_graph_free(S);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    double t = row_threshold(A, i, theta);
    int64_t p = S->rowptr[i];
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (strong(A, i, k, t)) S->col[p++] = A->col[k];
  }
  return NG_SUCCESS;
}

ng_status ng_graph_transpose(const ng_graph *S, ng_graph *T)
{
  int32_t n = S->n;
  int64_t nnz = S->rowptr[n], *next = NULL;
  ng_status st;
  memset(T, 0, sizeof(*T));
  T->n = n;
  NG_CHECK_GOTO(st, NG_CALLOC(T->rowptr, (size_t)n + 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(T->col, nnz > 0 ? nnz : 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(next, (size_t)n + 1), fail);
  for (int64_t k = 0; k < nnz; k++) T->rowptr[S->col[k] + 1]++;
  for (int32_t i = 0; i < n; i++) T->rowptr[i + 1] += T->rowptr[i];
  memcpy(next, T->rowptr, ((size_t)n + 1) * sizeof(int64_t));
  for (int32_t i = 0; i < n; i++) /* rows of T in increasing i: sorted */
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) T->col[next[S->col[k]]++] = i;
  ng_free(next);
  return NG_SUCCESS;
fail:
  ng_free(next);
  ng_graph_free(T);
  return st;
}
