/* amg/amg_sparsify.c: non-Galerkin sparsification of a coarse operator
 * (-amg_sparsify tau). An off-diagonal entry of the Galerkin product G with
 * |g_ij| < tau min(|g_ii|, |g_jj|) is dropped and added to g_ii, so every
 * row sum (the constant near-null space) is kept; the criterion is symmetric
 * in i and j, so a symmetric G stays symmetric. min, not the strength
 * graph's sqrt(|g_ii g_jj|): across a coefficient jump of 1e6 the coupling
 * of a soft row to a stiff one is weak against the geometric mean but is
 * what holds the soft row (a Dirichlet-like boundary for it); lumping it
 * made the soft block nearly singular (het7: 1000+ iterations). For a
 * symmetric G, moving g_ij onto both diagonals changes x^T G x by
 * g_ij (x_i - x_j)^2: harmless for a positive entry, and for a negative one
 * the removal of an edge of a graph Laplacian. The pattern is fixed at
 * setup: map[k] is where entry k of G goes in the sparse A (its row's
 * diagonal for a dropped entry), so an update re-adds the values in the
 * same order and repeats the setup's result for unchanged values.
 *
 * hybrid (the W- and K-cycles, whose second coarse correction needs a coarse
 * operator that does not fall below the Galerkin one): a dropped coupling
 * of a row pair where either row's positive off-diagonal entries sum past
 * NG_AMG_HYBRID_POS |g_ii| goes onto the diagonal as |g_ij|, which changes
 * x^T G x by |g_ij| (x_i + x_j)^2 >= 0 for a negative one; the signed value
 * elsewhere (M-matrix rows keep their row sums). Measured on the host, V / W
 * iterations (W was 52 / 663 against V's 30 / 186 on stretch7:64 /
 * jump2q1:70 with signed lumping everywhere): W never above V on 11 test
 * problems (doc/performance.md). map[k] < 0 marks such an entry: it adds
 * |g_ij| at -1 - map[k]. */
#include "amg.h"
#include <math.h>

/* 1 when row i's positive off-diagonal entries sum past NG_AMG_HYBRID_POS |g_ii| */
int ng_amg_hybrid_row(const ng_csr *G, int32_t i, double gii)
{
  double pos = 0.0;
  for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++)
    if (G->col[k] != i && G->val[k] > 0) pos += G->val[k];
  return pos > NG_AMG_HYBRID_POS * fabs(gii);
}

ng_status ng_amg_sparsify(const ng_csr *G, double tau, int hybrid, ng_csr *A, int64_t **map)
{
  int32_t n = G->nrows;
  double *d = NULL;
  int64_t *rp = NULL, *m = NULL;
  ng_status st = NG_SUCCESS;
  memset(A, 0, sizeof(*A));
  *map = NULL;
  NG_CHECK_GOTO(st, NG_MALLOC(d, n), fail);
  NG_CHECK_GOTO(st, NG_CALLOC(rp, (size_t)n + 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(m, G->nnz > 0 ? G->nnz : 1), fail);
  NG_CHECK_GOTO(st, ng_csr_diagonal(G, d, 1), fail);
  /* |g_ii|, negative for a hybrid row (hybrid lumping only) */
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) d[i] = hybrid && ng_amg_hybrid_row(G, i, d[i]) ? -fabs(d[i]) : fabs(d[i]);
  /* kept: the diagonal and the strong off-diagonal entries; m[k] = 1 when kept */
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t c = 0;
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++) {
      int32_t j = G->col[k];
      double di = fabs(d[i]), dj = fabs(d[j]);
      m[k] = j == i || fabs(G->val[k]) >= tau * (di < dj ? di : dj) ? 1 : d[i] < 0 || d[j] < 0 ? -2 : 0;
      c += m[k] == 1;
    }
    rp[i + 1] = c;
  }
  for (int32_t i = 0; i < n; i++) rp[i + 1] += rp[i];
  NG_CHECK_GOTO(st, ng_csr_alloc(A, n, G->ncols, rp[n]), fail);
  memcpy(A->rowptr, rp, ((size_t)n + 1) * sizeof(int64_t));
  int32_t bad = -1;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int64_t p = A->rowptr[i], diag = -1;
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++)
      if (m[k] == 1) {
        if (G->col[k] == i) diag = p;
        A->col[p] = G->col[k];
        m[k] = -3 - p++; /* kept: told apart from the dropped below, made p again after */
      }
    if (diag < 0) {
#pragma omp critical(ng_amg_sparsify_bad)
      if (bad < 0 || i < bad) bad = i;
      continue;
    }
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++)
      m[k] = m[k] <= -3 ? -3 - m[k] : m[k] == -2 ? -1 - diag : diag;
  }
  if (bad >= 0) {
    st = NG_ERROR(NG_ERR_NUMERIC, "AMG: coarse row %d has no diagonal entry to lump dropped entries into", (int)bad);
    goto fail;
  }
  ng_amg_sparsify_values(G, m, A);
  ng_free(d);
  ng_free(rp);
  *map = m;
  return NG_SUCCESS;
fail:
  ng_free(d);
  ng_free(rp);
  ng_free(m);
  ng_csr_free(A);
  return st;
}

void ng_amg_sparsify_values(const ng_csr *G, const int64_t *map, ng_csr *A)
{
  int32_t n = G->nrows;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) A->val[p] = 0.0;
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++)
      if (map[k] >= 0) A->val[map[k]] += G->val[k];
      else A->val[-1 - map[k]] += fabs(G->val[k]); /* hybrid lumping */
  }
}
