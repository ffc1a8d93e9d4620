/* amg/dense_pinv.c: the Moore-Penrose pseudo-inverse of a symmetric
 * positive SEMI-definite dense matrix: AMG's coarsest operator of a singular
 * problem (a pure-Neumann pressure Poisson, whose coarse operators keep the
 * constant null space: P^T A P 1 = P^T A 1 = 0).
 *
 * Method (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
 * section 10.3, Cholesky of a semidefinite matrix): Cholesky without
 * pivoting in which a pivot s_i <= NG_DENSE_PIVOT_RTOL * a_ii counts as
 * zero: row i is set aside (L's row and column i zero), i.e. the unknown is
 * pinned. The kept rows R give A_RR = L_RR L_RR^T (SPD) and the generalized
 * inverse G = [A_RR^-1 0; 0 0] (A G A = A). Each set-aside index k gives a
 * null vector v_k = e_k - G A e_k (A v_k = 0 because A G A = A); with V
 * their orthonormal basis, A^+ = (I - V V^T) G (I - V V^T). So the coarse
 * correction has no component in the coarse null space (the minimum-norm
 * coarse solution, nothing left to grow), and it is symmetric, so the
 * V-cycle stays symmetric for CG. A pivot below -NG_DENSE_PIVOT_RTOL a_ii
 * means the matrix is indefinite: NG_ERR_NUMERIC, a untouched (the caller
 * falls back to pivoted Gauss-Jordan). For a connected graph (one null
 * vector) the only set-aside row is the last one. O(n^3) like the
 * Cholesky inverse; a few hundred rows. */
#include "amg.h"
#include <math.h>

/* Semidefinite Cholesky into L (n x n, row-major, lower): keep[i] = 0 for
 * the rows set aside. 0 when a pivot is significantly negative. */
static int semidefinite_cholesky(int32_t n, const double *a, double *L, char *keep)
{
  memset(L, 0, (size_t)n * n * sizeof(double));
  for (int32_t i = 0; i < n; i++) {
    const double *ai = a + (size_t)i * n;
    double *Li = L + (size_t)i * n;
    for (int32_t j = 0; j < i; j++) {
      if (!keep[j]) continue; /* column j is zero */
      const double *Lj = L + (size_t)j * n;
      double s = ai[j];
      for (int32_t k = 0; k < j; k++) s -= Li[k] * Lj[k];
      Li[j] = s / Lj[j];
    }
    double s = ai[i];
    for (int32_t k = 0; k < i; k++) s -= Li[k] * Li[k];
    double tol = NG_DENSE_PIVOT_RTOL * fabs(ai[i]);
    if (!isfinite(s) || s < -tol) return 0; /* indefinite */
    keep[i] = s > tol;
    if (keep[i]) Li[i] = sqrt(s);
    else memset(Li, 0, (size_t)(i + 1) * sizeof(double)); /* pinned: row i out of the factor */
  }
  return 1;
}

/* Orthonormal columns of V (n x m, column c at V + c n) by Gram-Schmidt
 * done twice (Giraud et al., "twice is enough"). */
static void orthonormalise(int32_t n, int32_t m, double *V)
{
  for (int32_t c = 0; c < m; c++) {
    double *v = V + (size_t)c * n;
    for (int pass = 0; pass < 2; pass++)
      for (int32_t d = 0; d < c; d++) {
        const double *w = V + (size_t)d * n;
        double s = 0;
        for (int32_t i = 0; i < n; i++) s += w[i] * v[i];
        for (int32_t i = 0; i < n; i++) v[i] -= s * w[i];
      }
    double s = 0;
    for (int32_t i = 0; i < n; i++) s += v[i] * v[i];
    s = 1.0 / sqrt(s); /* v_c has a 1 at its own set-aside index, others 0 there: never 0 */
    for (int32_t i = 0; i < n; i++) v[i] *= s;
  }
}

ng_status ng_dense_pinv_semidefinite(int32_t n, double *a, int32_t *nullity)
{
  double *L = NULL, *Lc = NULL, *Gc = NULL, *V = NULL, *W = NULL;
  char *keep = NULL;
  int32_t *kept = NULL, m = 0, r = 0;
  ng_status st = NG_SUCCESS;
  *nullity = 0;
  NG_CHECK_GOTO(st, NG_MALLOC(L, (size_t)n * n), out);
  NG_CHECK_GOTO(st, NG_CALLOC(keep, n), out);
  NG_CHECK_GOTO(st, NG_MALLOC(kept, n), out);
  if (!semidefinite_cholesky(n, a, L, keep)) {
    st = NG_ERROR(NG_ERR_NUMERIC, "AMG: the coarsest operator (%d rows) is symmetric but indefinite", (int)n);
    goto out;
  }
  for (int32_t i = 0; i < n; i++)
    if (keep[i]) kept[r++] = i;
  m = n - r;
  if (r == 0) { /* A = 0 (to the tolerance): A^+ = 0 */
    memset(a, 0, (size_t)n * n * sizeof(double));
    *nullity = n;
    goto out;
  }
  /* G_c = A_RR^-1 from L_RR (dense_chol.c's steps on the compressed factor) */
  NG_CHECK_GOTO(st, NG_MALLOC(Lc, (size_t)r * r), out);
  NG_CHECK_GOTO(st, NG_MALLOC(Gc, (size_t)r * r), out);
  for (int32_t i = 0; i < r; i++)
    for (int32_t j = 0; j < r; j++) Lc[(size_t)i * r + j] = L[(size_t)kept[i] * n + kept[j]];
  ng_dense_chol_u(r, Lc, L, 0, r); /* U = L_RR^-T into L's storage (r^2 <= n^2) */
  ng_dense_chol_a(r, L, Gc, 0, r);
  ng_dense_mirror(r, Gc);
  /* V: v_k = e_k - G A e_k for each set-aside k (column k of A is row k) */
  if (m > 0) {
    NG_CHECK_GOTO(st, NG_CALLOC(V, (size_t)n * m), out);
    NG_CHECK_GOTO(st, NG_MALLOC(W, (size_t)n * m), out);
    for (int32_t k = 0, c = 0; k < n; k++) {
      if (keep[k]) continue;
      double *v = V + (size_t)c++ * n;
      const double *ak = a + (size_t)k * n;
      v[k] = 1.0;
      for (int32_t i = 0; i < r; i++) {
        double s = 0;
        for (int32_t j = 0; j < r; j++) s += Gc[(size_t)i * r + j] * ak[kept[j]];
        v[kept[i]] = -s;
      }
    }
    orthonormalise(n, m, V);
  }
  /* a = G scattered, then a = (I - V V^T) G (I - V V^T) */
  memset(a, 0, (size_t)n * n * sizeof(double));
  for (int32_t i = 0; i < r; i++)
    for (int32_t j = 0; j < r; j++) a[(size_t)kept[i] * n + kept[j]] = Gc[(size_t)i * r + j];
  if (m > 0) {
    /* W = G V (n x m, column c at W + c n) */
    for (int32_t c = 0; c < m; c++)
      for (int32_t i = 0; i < n; i++) {
        double s = 0;
        for (int32_t j = 0; j < n; j++) s += a[(size_t)i * n + j] * V[(size_t)c * n + j];
        W[(size_t)c * n + i] = s;
      }
    /* H = V^T G V (m x m) into Lc (r^2 >= m^2 not guaranteed: use L) */
    double *H = L;
    for (int32_t c = 0; c < m; c++)
      for (int32_t d = 0; d < m; d++) {
        double s = 0;
        for (int32_t i = 0; i < n; i++) s += V[(size_t)c * n + i] * W[(size_t)d * n + i];
        H[(size_t)c * m + d] = s;
      }
    /* G - V W^T - W V^T + V H V^T, lower part, then mirrored */
    for (int32_t i = 0; i < n; i++)
      for (int32_t j = 0; j <= i; j++) {
        double s = a[(size_t)i * n + j];
        for (int32_t c = 0; c < m; c++) {
          double vi = V[(size_t)c * n + i], vj = V[(size_t)c * n + j];
          s -= vi * W[(size_t)c * n + j] + W[(size_t)c * n + i] * vj;
          for (int32_t d = 0; d < m; d++) s += vi * H[(size_t)c * m + d] * V[(size_t)d * n + j];
        }
        a[(size_t)i * n + j] = s;
      }
    ng_dense_mirror(n, a);
  }
  *nullity = m;
out:
  ng_free(L);
  ng_free(Lc);
  ng_free(Gc);
  ng_free(V);
  ng_free(W);
  ng_free(keep);
  ng_free(kept);
  return st;
}
