/* solver/lanczos.c: cond(M^-1 A) estimated from CG's own coefficients.
 * k iterations of preconditioned CG are k steps of Lanczos on M^-1 A
 * (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., 6.7.3):
 * the tridiagonal T_k with
 *   T_jj = 1/alpha_j + beta_{j-1}/alpha_{j-1},  T_j,j+1 = sqrt(beta_j)/alpha_j
 * has Ritz values inside [lambda_min, lambda_max] of M^-1 A that approach
 * its ends first; their ratio is a lower bound of the condition number
 * that is close after a few iterations (used by AMG's -amg_coarsening
 * auto). Host scalars only: no vector work. */
#include "solver.h"
#include <math.h>

/* How many eigenvalues of T (d diagonal, e off-diagonal, k rows) lie below x:
 * the sign changes of the LDL^T pivots (Sturm). */
static int count_below(const double *d, const double *e, int k, double x)
{
  int c = 0;
  double q = 1.0;
  for (int i = 0; i < k; i++) {
    q = d[i] - x - (i ? e[i - 1] * e[i - 1] / q : 0.0);
    if (q == 0.0) q = 1e-300;
    if (q < 0.0) c++;
  }
  return c;
}

/* The (which+1)-th smallest eigenvalue of T by bisection inside [lo, hi]. */
static double bisect(const double *d, const double *e, int k, int which, double lo, double hi)
{
  for (int it = 0; it < 100 && hi - lo > 1e-12 * fabs(hi); it++) {
    double m = 0.5 * (lo + hi);
    if (count_below(d, e, k, m) > which) hi = m;
    else lo = m;
  }
  return 0.5 * (lo + hi);
}

double ng_krylov_lanczos_kappa(const double *alpha, const double *beta, int k)
{
  double d[NG_LANCZOS_MAX], e[NG_LANCZOS_MAX], lo = INFINITY, hi = -INFINITY;
  if (k < 1 || k > NG_LANCZOS_MAX) return NAN;
  for (int j = 0; j < k; j++) {
    /* a non-positive alpha or beta: M^-1 A is not positive definite in the
     * M inner product (an indefinite preconditioner) */
    if (!(alpha[j] > 0.0) || (j < k - 1 && !(beta[j] > 0.0))) return INFINITY;
    d[j] = 1.0 / alpha[j] + (j ? beta[j - 1] / alpha[j - 1] : 0.0);
    e[j] = j < k - 1 ? sqrt(beta[j]) / alpha[j] : 0.0;
  }
  for (int j = 0; j < k; j++) { /* Gershgorin's interval */
    double rad = fabs(e[j]) + (j ? fabs(e[j - 1]) : 0.0);
    lo = fmin(lo, d[j] - rad);
    hi = fmax(hi, d[j] + rad);
  }
  double lmin = bisect(d, e, k, 0, lo, hi), lmax = bisect(d, e, k, k - 1, lo, hi);
  if (!(lmin > 0.0) || !isfinite(lmax)) return INFINITY;
  return lmax / lmin;
}
