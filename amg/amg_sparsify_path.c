/* amg/amg_sparsify_path.c: non-Galerkin sparsification that keeps the
 * coarse operator positive definite (-amg_sparsify_lump path, issue 31).
 * amg_sparsify.c drops a weak negative coupling g_ij = -c onto the two
 * diagonals: A - G = -c (e_i - e_j)(e_i - e_j)^T, an energy loss. When G
 * has positive off-diagonal entries (Q1 and rotated anisotropy, and the
 * smoothed-aggregation products of most problems) that loss can exceed
 * G's smallest eigenvalues: jump2q1:70's coarsest sparsified operator had
 * lambda_min(D^-1 A) = -1.0, so the V-cycle was indefinite and CG broke
 * down; where A stays definite A <= G still makes the coarse correction
 * overshoot (the W-cycle weights of amg_wcycle.c). Here a weak negative
 * coupling of i and j is moved onto a path i - q - j through a common
 * neighbour q whose couplings to both are kept (the strongest such q):
 *   A - G = -c L_ij + 2c L_iq + 2c L_qj,  L_ab = (e_a - e_b)(e_a - e_b)^T,
 * which is positive semidefinite ((x_i - x_j)^2 <= 2 (x_i - x_q)^2 +
 * 2 (x_q - x_j)^2) and annihilates the constant vector: A >= G (A is
 * positive definite when G is, and the coarse correction never overshoots:
 * lambda(B G) <= 1 level by level) and every row sum is kept. A coupling
 * with no such q is kept. Weak positive couplings go onto the diagonal as
 * in amg_sparsify.c (that adds g (x_i - x_j)^2 >= 0). Needs a symmetric G
 * (R = P^T; the product is symmetric to rounding, 1e-10 relative is
 * accepted): a negative entry whose mirror differs is kept.
 * Values: map[k] (as amg_sparsify.c, -1 for a path entry) in a per-row pass,
 * then the path terms in the order of G's entries, so A(i, q) and A(q, i)
 * add the same numbers in the same order: A is as symmetric as G. Host,
 * one rank (the GPU and distributed setups do not implement it: amg.c
 * refuses the option there). */
#include "amg.h"
#include <math.h>

void ng_amg_lump_paths_free(ng_amg_lump_paths *L)
{
  ng_free(L->src);
  ng_free(L->at);
  memset(L, 0, sizeof(*L));
}

/* Position of column j in row i of X (sorted columns), or -1. */
static int64_t find(const ng_csr *X, int32_t i, int32_t j)
{
  int64_t lo = X->rowptr[i], hi = X->rowptr[i + 1] - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (X->col[mid] == j) return mid;
    if (X->col[mid] < j) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* Which entries of G are kept (keep[k] = 1) and, for a dropped negative
 * entry k, its path's middle q (via[k], else -1; -2: not a path). wi: n
 * zeros of work (row i's kept |g_iq|, cleared again after the row). */
static ng_status choose(const ng_csr *G, double tau, const double *d, char *keep, int32_t *via, double *wi)
{
  int32_t n = G->nrows;
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++) {
      int32_t j = G->col[k];
      keep[k] = j == i || fabs(G->val[k]) >= tau * (d[i] < d[j] ? d[i] : d[j]);
      via[k] = -2;
    }
  /* a path for each dropped negative pair, chosen from row min(i, j) and
   * copied to its mirror: both halves use the same q, the first in row j's
   * column order with the largest min(|g_iq|, |g_jq|) */
  for (int32_t i = 0; i < n; i++) {
    for (int64_t a = G->rowptr[i]; a < G->rowptr[i + 1]; a++)
      if (keep[a] && G->col[a] != i) wi[G->col[a]] = fabs(G->val[a]);
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++) {
      int32_t j = G->col[k];
      if (keep[k] || j < i || !(G->val[k] < 0)) continue;
      int64_t km = find(G, j, i);
      int32_t best = -1;
      double bw = 0;
      if (km >= 0 && fabs(G->val[km] - G->val[k]) <= 1e-10 * fabs(G->val[k])) /* symmetric to rounding */
        for (int64_t b = G->rowptr[j]; b < G->rowptr[j + 1]; b++) {
          int32_t q = G->col[b];
          if (q == i || q == j || !keep[b] || !(wi[q] > 0)) continue;
          double w = fmin(wi[q], fabs(G->val[b]));
          if (w > bw) bw = w, best = q;
        }
      if (best < 0) { /* no path (or no mirror): keep the coupling */
        keep[k] = 1;
        if (km >= 0) keep[km] = 1;
        continue;
      }
      via[k] = best;
      via[km] = best;
    }
    for (int64_t a = G->rowptr[i]; a < G->rowptr[i + 1]; a++) wi[G->col[a]] = 0.0;
  }
  return NG_SUCCESS;
}

ng_status ng_amg_sparsify_path(const ng_csr *G, double tau, ng_csr *A, int64_t **map, ng_amg_lump_paths *paths)
{
  int32_t n = G->nrows;
  int64_t nnz = G->nnz;
  double *d = NULL;
  char *keep = NULL;
  int32_t *via = NULL;
  int64_t *m = NULL;
  ng_status st = NG_SUCCESS;
  memset(A, 0, sizeof(*A));
  memset(paths, 0, sizeof(*paths));
  *map = NULL;
  NG_CHECK_GOTO(st, NG_CALLOC(d, 2 * (size_t)(n > 0 ? n : 1)), fail); /* |g_ii|, then choose()'s zeroed work */
  NG_CHECK_GOTO(st, NG_MALLOC(keep, nnz > 0 ? nnz : 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(via, nnz > 0 ? nnz : 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(m, nnz > 0 ? nnz : 1), fail);
  NG_CHECK_GOTO(st, ng_csr_diagonal(G, d, 1), fail);
  for (int32_t i = 0; i < n; i++) d[i] = fabs(d[i]);
  NG_CHECK_GOTO(st, choose(G, tau, d, keep, via, d + n), fail);
  /* the pattern: kept entries */
  int64_t kept = 0, np = 0;
  for (int64_t k = 0; k < nnz; k++) kept += keep[k], np += via[k] >= 0;
  NG_CHECK_GOTO(st, ng_csr_alloc(A, n, G->ncols, kept), fail);
  A->rowptr[0] = 0;
  int64_t p = 0;
  for (int32_t i = 0; i < n; i++) {
    int64_t diag = -1;
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++)
      if (keep[k]) {
        if (G->col[k] == i) diag = p;
        A->col[p] = G->col[k];
        m[k] = p++;
      }
    A->rowptr[i + 1] = p;
    if (diag < 0) {
      st = NG_ERROR(NG_ERR_NUMERIC, "AMG: coarse row %d has no diagonal entry to lump dropped entries into", (int)i);
      goto fail;
    }
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++)
      if (!keep[k]) m[k] = via[k] >= 0 ? -1 : diag; /* a path term, or onto the diagonal */
  }
  /* each path half (entry k = (i, j) through q): A(i,i) -= g, A(i,q) += 2g,
   * A(q,i) += 2g, A(q,q) -= 2g (with the mirror's half: the edge's whole) */
  paths->n = np;
  NG_CHECK_GOTO(st, NG_MALLOC(paths->src, np > 0 ? np : 1), fail);
  NG_CHECK_GOTO(st, NG_MALLOC(paths->at, 4 * (np > 0 ? np : 1)), fail);
  int64_t t = 0;
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++) {
      if (via[k] < 0) continue;
      int32_t q = via[k];
      int64_t *at = paths->at + 4 * t;
      at[0] = find(A, i, i), at[1] = find(A, i, q), at[2] = find(A, q, i), at[3] = find(A, q, q);
      if (at[0] < 0 || at[1] < 0 || at[2] < 0 || at[3] < 0) {
        st = NG_ERROR(NG_ERR_INTERNAL, "AMG path lumping: coarse entries (%d, %d) missing", (int)i, (int)q);
        goto fail;
      }
      paths->src[t++] = k;
    }
  ng_amg_sparsify_path_values(G, m, paths, A);
  ng_free(d);
  ng_free(keep);
  ng_free(via);
  *map = m;
  return NG_SUCCESS;
fail:
  ng_free(d);
  ng_free(keep);
  ng_free(via);
  ng_free(m);
  ng_csr_free(A);
  ng_amg_lump_paths_free(paths);
  return st;
}

void ng_amg_sparsify_path_values(const ng_csr *G, const int64_t *map, const ng_amg_lump_paths *paths, ng_csr *A)
{
  int32_t n = G->nrows;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) A->val[p] = 0.0;
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++)
      if (map[k] >= 0) A->val[map[k]] += G->val[k];
  }
  for (int64_t t = 0; t < paths->n; t++) {
    double g = G->val[paths->src[t]];
    const int64_t *at = paths->at + 4 * t;
    A->val[at[0]] -= g;
    A->val[at[1]] += 2.0 * g;
    A->val[at[2]] += 2.0 * g;
    A->val[at[3]] -= 2.0 * g;
  }
}
