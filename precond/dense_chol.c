/* precond/dense_chol.c: dense inverse of AMG's coarsest operator (a few
 * hundred rows). Cholesky A = L L^T, then A^-1 = L^-T L^-1, made exactly
 * symmetric so that the V-cycle stays symmetric for CG. A matrix that is not
 * SPD (BiCGSTAB on a nonsymmetric problem) falls back to Gauss-Jordan with
 * partial pivoting; a singular one is NG_ERR_NUMERIC. */
#include "amg.h"
#include <math.h>

static int cholesky_inverse(int32_t n, const double *a, double *inv)
{
  double *L = inv; /* L built in inv, then inverted in place, then L^-T L^-1 into a copy */
  memset(L, 0, (size_t)n * n * sizeof(double));
  for (int32_t j = 0; j < n; j++) {
    double d = a[(size_t)j * n + j];
    for (int32_t k = 0; k < j; k++) d -= L[(size_t)j * n + k] * L[(size_t)j * n + k];
    if (!(d > 0) || !isfinite(d)) return 0;
    d = sqrt(d);
    L[(size_t)j * n + j] = d;
    for (int32_t i = j + 1; i < n; i++) {
      double s = a[(size_t)i * n + j];
      for (int32_t k = 0; k < j; k++) s -= L[(size_t)i * n + k] * L[(size_t)j * n + k];
      L[(size_t)i * n + j] = s / d;
    }
  }
  /* L^-1 in place (lower triangular, column by column) */
  for (int32_t j = 0; j < n; j++) {
    L[(size_t)j * n + j] = 1.0 / L[(size_t)j * n + j];
    for (int32_t i = j + 1; i < n; i++) {
      double s = 0;
      for (int32_t k = j; k < i; k++) s -= L[(size_t)i * n + k] * L[(size_t)k * n + j];
      L[(size_t)i * n + j] = s / L[(size_t)i * n + i];
    }
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
  NG_CHECK(NG_MALLOC(L, (size_t)n * n));
  if (symmetric && cholesky_inverse(n, a, L)) {
    /* a = L^-T L^-1: a_ij = sum_{k >= max(i,j)} Linv_ki Linv_kj */
    for (int32_t i = 0; i < n; i++)
      for (int32_t j = 0; j <= i; j++) {
        double s = 0;
        for (int32_t k = i; k < n; k++) s += L[(size_t)k * n + i] * L[(size_t)k * n + j];
        a[(size_t)i * n + j] = a[(size_t)j * n + i] = s;
      }
    ng_free(L);
    return NG_SUCCESS;
  }
  ng_free(L);
  NG_CHECK(gauss_jordan(n, a));
  return NG_SUCCESS;
}
