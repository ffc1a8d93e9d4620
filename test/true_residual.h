/* test/true_residual.h: ||b - W x|| / ||b|| on the host, from the arrays
 * (W: the generated CSR a test solved; x: the solution read back), for the
 * tests that compare a solve's claim with the system itself. */
#ifndef NG_TEST_TRUE_RESIDUAL_H
#define NG_TEST_TRUE_RESIDUAL_H
#include "../core/core.h"
#include <math.h>
#include <stdlib.h>

static inline double ng_test_true_rel(const ng_csr *W, const double *b, const double *x)
{
  int32_t n = W->nrows;
  double *r = malloc(((size_t)n + 1) * sizeof(double)), rn = 0, bn = 0;
  ng_csr_spmv(W, -1.0, x, 0.0, r);
  for (int32_t i = 0; i < n; i++) rn += (b[i] + r[i]) * (b[i] + r[i]), bn += b[i] * b[i];
  free(r);
  return sqrt(rn / bn);
}
#endif
