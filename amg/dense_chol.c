/* amg/dense_chol.c: dense inverse of AMG's coarsest operator (a few
 * hundred rows). Cholesky A = L L^T, then A^-1 = L^-T L^-1, made exactly
 * symmetric so that the V-cycle stays symmetric for CG. A pivot counts as
 * positive only above NG_DENSE_PIVOT_RTOL times its row's diagonal (a
 * singular matrix's last pivot is round-off, of either sign: accepting a
 * tiny positive one gave an inverse of 1e13-sized garbage). A symmetric
 * matrix whose Cholesky stops there is tried as positive SEMI-definite
 * (dense_pinv.c: the pseudo-inverse, e.g. the coarsest operator of a
 * pure-Neumann problem); one that is not SPD or semidefinite (BiCGSTAB on a
 * nonsymmetric problem) falls back to Gauss-Jordan with partial pivoting;
 * a singular nonsymmetric or indefinite one is NG_ERR_NUMERIC. */
#include "amg.h"
#include <math.h>

/* x . y: a SIMD reduction (several partial sums; the plain loop waits on
 * each addition and ran at a fraction of the core's speed) */
static double dot(const double *x, const double *y, int32_t n)
{
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int32_t k = 0; k < n; k++) s += x[k] * y[k];
  return s;
}

/* Entries [j0, j1) of row i of L (lower, row-major; j1 <= i + 1, the
 * diagonal when j1 = i + 1) by dot products of contiguous rows, ai row i of
 * a: needs row i's entries before j0 and rows j < j1 up to their diagonal;
 * 0 when the pivot is not above NG_DENSE_PIVOT_RTOL a_ii. */
int ng_dense_chol_row(int32_t n, const double *ai, double *L, int32_t i, int32_t j0, int32_t j1)
{
  double *Li = L + (size_t)i * n;
  for (int32_t j = j0; j < j1; j++) {
    const double *Lj = L + (size_t)j * n;
    double s = ai[j] - dot(Li, Lj, j);
    if (j < i) Li[j] = s / Lj[j];
    else {
      if (!(s > NG_DENSE_PIVOT_RTOL * ai[i]) || !isfinite(s)) return 0;
      Li[i] = sqrt(s);
    }
  }
  return 1;
}

/* L into inv row by row (serial: a few milliseconds at 400 rows; several
 * ranks share the rows, amg_dist_coarse.c). */
static int cholesky(int32_t n, const double *a, double *L)
{
  memset(L, 0, (size_t)n * n * sizeof(double));
  for (int32_t i = 0; i < n; i++)
    if (!ng_dense_chol_row(n, a + (size_t)i * n, L, i, 0, i + 1)) return 0;
  return 1;
}

ng_status ng_dense_gauss_jordan(int32_t n, double *a)
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

/* 1 when a equals its transpose to a relative 1e-12. */
/* The Galerkin product of a symmetric A is symmetric only to rounding
 * (entry pairs summed in different orders: 2.7e-12 relative on
 * stretch7:64's classical coarsest level, 5e-11 on bubbles7:64), which a
 * test at 1e-12 took for a nonsymmetric matrix: Gauss-Jordan, 3x the
 * Cholesky inverse's time, and a slightly nonsymmetric cycle under CG.
 * Pairs within NG_DENSE_SYM_RTOL of each other (or of the diagonals'
 * scale) count as equal and are averaged. */
#define NG_DENSE_SYM_RTOL 1e-8
int ng_dense_symmetrize(int32_t n, double *a)
{
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = 0; j < i; j++) {
      double u = a[(size_t)i * n + j], v = a[(size_t)j * n + i], d = fabs(u - v);
      if (!(d <= NG_DENSE_SYM_RTOL * (fabs(u) + fabs(v)) ||
            d <= 1e-3 * NG_DENSE_SYM_RTOL * sqrt(fabs(a[(size_t)i * n + i] * a[(size_t)j * n + j]))))
        return 0;
    }
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = 0; j < i; j++) {
      double m = 0.5 * (a[(size_t)i * n + j] + a[(size_t)j * n + i]);
      a[(size_t)i * n + j] = a[(size_t)j * n + i] = m;
    }
  return 1;
}

/* Rows [j0, j1) of U = L^-T: row j of U is column j of L^-1, the solution
 * of L u = e_j (forward substitution over contiguous rows, independent for
 * each j). */
void ng_dense_chol_u(int32_t n, const double *L, double *U, int32_t j0, int32_t j1)
{
#pragma omp parallel for schedule(dynamic, 4) if (n > NG_DENSE_SPREAD_MIN)
  for (int32_t j = j0; j < j1; j++) {
    double *u = U + (size_t)j * n;
    for (int32_t i = 0; i < j; i++) u[i] = 0.0;
    for (int32_t i = j; i < n; i++) {
      const double *Li = L + (size_t)i * n;
      u[i] = ((i == j ? 1.0 : 0.0) - dot(Li + j, u + j, i - j)) / Li[i];
    }
  }
}

/* Rows [i0, i1) of L^-T L^-1 = U U^T, their parts j <= i (a_ij = row i .
 * row j of U over k >= max(i, j)), row i at a + (i - i0) n. */
void ng_dense_chol_a(int32_t n, const double *U, double *a, int32_t i0, int32_t i1)
{
#pragma omp parallel for schedule(dynamic, 4) if (n > NG_DENSE_SPREAD_MIN)
  for (int32_t i = i0; i < i1; i++)
    for (int32_t j = 0; j <= i; j++) {
      const double *ui = U + (size_t)i * n, *uj = U + (size_t)j * n;
      a[(size_t)(i - i0) * n + j] = dot(ui + i, uj + i, n - i);
    }
}

/* a_ji = a_ij (j < i): exactly symmetric. */
void ng_dense_mirror(int32_t n, double *a)
{
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = 0; j < i; j++) a[(size_t)j * n + i] = a[(size_t)i * n + j];
}

ng_status ng_dense_inverse(int32_t n, double *a)
{
  double *L;
  int sym = ng_dense_symmetrize(n, a);
  NG_CHECK(NG_MALLOC(L, 2 * (size_t)n * n));
  if (sym && cholesky(n, a, L)) {
    /* U, then a = U U^T: one parallel region each */
    double *U = L + (size_t)n * n;
    ng_dense_chol_u(n, L, U, 0, n);
    ng_dense_chol_a(n, U, a, 0, n);
    ng_dense_mirror(n, a);
    ng_free(L);
    return NG_SUCCESS;
  }
  ng_free(L);
  if (sym) { /* positive semidefinite (singular): the pseudo-inverse */
    int32_t nullity;
    ng_status st = ng_dense_pinv_semidefinite(n, a, &nullity);
    if (st == NG_SUCCESS) return NG_SUCCESS;
    if (st != NG_ERR_NUMERIC) return ng_error_trace(st, __FILE__, __LINE__);
    /* indefinite (a untouched): the pivoting inverse below */
  }
  NG_CHECK(ng_dense_gauss_jordan(n, a));
  return NG_SUCCESS;
}
