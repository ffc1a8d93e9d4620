/* precond/dense_chol.c: dense inverse of AMG's coarsest operator (a few
 * hundred rows). Cholesky A = L L^T, then A^-1 = L^-T L^-1, made exactly
 * symmetric so that the V-cycle stays symmetric for CG. A matrix that is not
 * SPD (BiCGSTAB on a nonsymmetric problem) falls back to Gauss-Jordan with
 * partial pivoting; a singular one is NG_ERR_NUMERIC. */
#include "amg.h"
#include <math.h>

/* L (lower, row-major) into inv, then W = L^-1 in place, row by row: row i
 * of W is -(sum over k < i of L_ik W_k) / L_ii, so every inner loop runs
 * along a row (contiguous). */
static int cholesky_inverse(int32_t n, const double *a, double *inv, double *acc)
{
  double *L = inv;
  memset(L, 0, (size_t)n * n * sizeof(double));
  for (int32_t j = 0; j < n; j++) {
    double d = a[(size_t)j * n + j];
    for (int32_t k = 0; k < j; k++) d -= L[(size_t)j * n + k] * L[(size_t)j * n + k];
    if (!(d > 0) || !isfinite(d)) return 0;
    d = sqrt(d);
    L[(size_t)j * n + j] = d;
#pragma omp parallel for schedule(static) if (n - j > 256)
    for (int32_t i = j + 1; i < n; i++) {
      double s = a[(size_t)i * n + j];
      for (int32_t k = 0; k < j; k++) s -= L[(size_t)i * n + k] * L[(size_t)j * n + k];
      L[(size_t)i * n + j] = s / d;
    }
  }
  for (int32_t i = 0; i < n; i++) {
    double *Li = L + (size_t)i * n, d = Li[i];
    for (int32_t j = 0; j < i; j++) acc[j] = 0.0;
    for (int32_t k = 0; k < i; k++) {
      const double *Wk = L + (size_t)k * n, lik = Li[k];
      for (int32_t j = 0; j <= k; j++) acc[j] += lik * Wk[j];
    }
    for (int32_t j = 0; j < i; j++) Li[j] = -acc[j] / d;
    Li[i] = 1.0 / d;
  }
  return 1;
}

static ng_status gauss_jordan(int32_t n, double *a)
{
  int32_t *piv;
  NG_CHECK(NG_MALLOC(piv, n));
  for (int32_t k = 0; k < n; k++) {
    int32_t p = k;
    for (int32_t i = k + 1; i < n; i++)
      if (fabs(a[(size_t)i * n + k]) > fabs(a[(size_t)p * n + k])) p = i;
    piv[k] = p;
    if (a[(size_t)p * n + k] == 0.0) {
      ng_free(piv);
      return NG_ERROR(NG_ERR_NUMERIC,
                      "AMG: the coarsest operator (%d rows) is singular at column %d; try -amg_coarse_solver smoother",
                      (int)n, (int)k);
    }
    if (p != k)
      for (int32_t j = 0; j < n; j++) {
        double t = a[(size_t)k * n + j];
        a[(size_t)k * n + j] = a[(size_t)p * n + j];
        a[(size_t)p * n + j] = t;
      }
    double d = 1.0 / a[(size_t)k * n + k];
    a[(size_t)k * n + k] = 1.0;
    for (int32_t j = 0; j < n; j++) a[(size_t)k * n + j] *= d;
    for (int32_t i = 0; i < n; i++) {
      if (i == k) continue;
      double f = a[(size_t)i * n + k];
      a[(size_t)i * n + k] = 0.0;
      for (int32_t j = 0; j < n; j++) a[(size_t)i * n + j] -= f * a[(size_t)k * n + j];
    }
  }
  for (int32_t k = n - 1; k >= 0; k--) /* undo the row swaps as column swaps */
    if (piv[k] != k)
      for (int32_t i = 0; i < n; i++) {
        double t = a[(size_t)i * n + k];
        a[(size_t)i * n + k] = a[(size_t)i * n + piv[k]];
        a[(size_t)i * n + piv[k]] = t;
      }
  ng_free(piv);
  return NG_SUCCESS;
}

ng_status ng_dense_inverse(int32_t n, double *a)
{
  double *L;
  int symmetric = 1;
  for (int32_t i = 0; i < n && symmetric; i++)
    for (int32_t j = 0; j < i; j++)
      if (fabs(a[(size_t)i * n + j] - a[(size_t)j * n + i]) >
          1e-12 * (fabs(a[(size_t)i * n + j]) + fabs(a[(size_t)j * n + i]))) {
        symmetric = 0;
        break;
      }
  NG_CHECK(NG_MALLOC(L, (size_t)n * n + n));
  if (symmetric && cholesky_inverse(n, a, L, L + (size_t)n * n)) {
    /* a = W^T W (W = L^-1 lower): row i of a's lower part is the sum over
     * k >= i of W_ki times row k of W up to column i; rows independent */
#pragma omp parallel for schedule(dynamic, 8) if (n > 128)
    for (int32_t i = 0; i < n; i++) {
      double *ai = a + (size_t)i * n;
      for (int32_t j = 0; j <= i; j++) ai[j] = 0.0;
      for (int32_t k = i; k < n; k++) {
        const double *Wk = L + (size_t)k * n, w = Wk[i];
        for (int32_t j = 0; j <= i; j++) ai[j] += w * Wk[j];
      }
    }
    for (int32_t i = 0; i < n; i++) /* mirror: exactly symmetric */
      for (int32_t j = 0; j < i; j++) a[(size_t)j * n + i] = a[(size_t)i * n + j];
    ng_free(L);
    return NG_SUCCESS;
  }
  ng_free(L);
  NG_CHECK(gauss_jordan(n, a));
  return NG_SUCCESS;
}
