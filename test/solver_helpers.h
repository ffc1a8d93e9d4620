/* test/solver_helpers.h: what the solver suites (test_solver.c,
 * test_gmres.c) share: small CSR problems built from arrays (1D/2D
 * Laplacians, a random nonsymmetric matrix, 2D convection-diffusion), a
 * solve through the public API that recomputes ||b - A x|| from the arrays
 * (not the library's SpMV), and the convergence checks. Static functions:
 * each suite includes it once. */
#ifndef NG_TEST_SOLVER_HELPERS_H
#define NG_TEST_SOLVER_HELPERS_H
#include "testutil.h"
#include "../solver/solver.h"
#include <math.h>

typedef struct {
  int32_t n;
  int64_t *rp;
  int32_t *col;
  double *val;
} tcsr;

static inline void tcsr_free(tcsr *A) { free(A->rp); free(A->col); free(A->val); }

/* Builder: rows appended in order. */
static inline void tcsr_init(tcsr *A, int32_t n, int per_row)
{
  A->n = n;
  A->rp = calloc((size_t)n + 1, sizeof(int64_t));
  A->col = malloc((size_t)n * per_row * sizeof(int32_t));
  A->val = malloc((size_t)n * per_row * sizeof(double));
}
static inline void tcsr_push(tcsr *A, int32_t i, int32_t j, double v)
{
  int64_t k = A->rp[i + 1]++;
  A->col[k] = j;
  A->val[k] = v;
}
static inline void tcsr_next_row(tcsr *A, int32_t i) { if (i + 1 < A->n) A->rp[i + 2] = A->rp[i + 1]; }

/* 2D 5-point Laplacian on an m x m grid (Dirichlet). */
static inline void lap2d(tcsr *A, int m)
{
  tcsr_init(A, m * m, 5);
  for (int y = 0; y < m; y++)
    for (int x = 0; x < m; x++) {
      int32_t i = y * m + x;
      if (y > 0) tcsr_push(A, i, i - m, -1);
      if (x > 0) tcsr_push(A, i, i - 1, -1);
      tcsr_push(A, i, i, 4);
      if (x < m - 1) tcsr_push(A, i, i + 1, -1);
      if (y < m - 1) tcsr_push(A, i, i + m, -1);
      tcsr_next_row(A, i);
    }
}

/* 1D Laplacian times scale, shifted by -shift on the diagonal. */
static inline void lap1d(tcsr *A, int n, double scale, double shift)
{
  tcsr_init(A, n, 3);
  for (int32_t i = 0; i < n; i++) {
    if (i > 0) tcsr_push(A, i, i - 1, -scale);
    tcsr_push(A, i, i, 2 * scale - shift);
    if (i < n - 1) tcsr_push(A, i, i + 1, -scale);
    tcsr_next_row(A, i);
  }
}

/* Random diagonally dominant nonsymmetric matrix, 7 entries a row. */
static inline void nonsym(tcsr *A, int n)
{
  double r[7];
  tcsr_init(A, n, 8);
  for (int32_t i = 0; i < n; i++) {
    ng_test_random(r, 7);
    double sum = 0;
    int32_t cols[6];
    for (int k = 0; k < 6; k++) {
      /* distinct off-diagonal columns around i, upwind-biased (convection-like) */
      int32_t j = (i + 1 + k * 3 + (int32_t)(n / 7) * (k % 2)) % n;
      if (j == i) j = (j + 1) % n;
      int dup = 0;
      for (int q = 0; q < k; q++) dup |= cols[q] == j;
      cols[k] = dup ? -1 : j;
    }
    for (int k = 0; k < 6; k++)
      if (cols[k] >= 0) {
        double v = r[k] - (k == 0 ? 1.5 : 0.0);
        tcsr_push(A, i, cols[k], v);
        sum += fabs(v);
      }
    tcsr_push(A, i, i, 1.2 * sum + 0.1 + fabs(r[6]));
    tcsr_next_row(A, i);
  }
}

/* 2D convection-diffusion -lap u + c . grad u on an m x m grid (Dirichlet),
 * first-order upwind, scaled by h^2: hc = h * (cx, cy) > 0 sets how far from
 * symmetric it is (0: the Laplacian). An M-matrix, nonsymmetric. */
static inline void convdiff2d(tcsr *A, int m, double hcx, double hcy)
{
  tcsr_init(A, m * m, 5);
  for (int y = 0; y < m; y++)
    for (int x = 0; x < m; x++) {
      int32_t i = y * m + x;
      if (y > 0) tcsr_push(A, i, i - m, -1 - hcy);
      if (x > 0) tcsr_push(A, i, i - 1, -1 - hcx);
      tcsr_push(A, i, i, 4 + hcx + hcy);
      if (x < m - 1) tcsr_push(A, i, i + 1, -1);
      if (y < m - 1) tcsr_push(A, i, i + m, -1);
      tcsr_next_row(A, i);
    }
}

/* ||b - A x|| from the arrays. */
static inline double true_residual(const tcsr *A, const double *b, const double *x)
{
  double s = 0;
  for (int32_t i = 0; i < A->n; i++) {
    double ri = b[i];
    for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) ri -= A->val[k] * x[A->col[k]];
    s += ri * ri;
  }
  return sqrt(s);
}
static inline double norm(const double *x, int32_t n)
{
  double s = 0;
  for (int32_t i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

static ng_context ctx;
static inline void setup(void) { NG_ASSERT_OK(ng_context_create("cpu", &ctx)); }
static inline void teardown(void) { ng_context_destroy(ctx); }

typedef struct {
  ng_status status;
  int its, hlen;
  double reported, truerel, h0, hlast, hmax, bn;
  char msg[512];
} result;

/* Solve A x = b (x0 given or zero) with the option string; x returned in x. */
static inline result run(const tcsr *T, const char *options, const double *b, double *x)
{
  result R = {0};
  ng_options o;
  ng_matrix A;
  ng_vector vb, vx;
  ng_solver S;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, options));
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, T->n, T->n, T->rp, T->col, T->val, &A));
  NG_ASSERT_OK(ng_vector_create(A, &vb));
  NG_ASSERT_OK(ng_vector_create(A, &vx));
  NG_ASSERT_OK(ng_vector_set_values(vb, b));
  NG_ASSERT_OK(ng_vector_set_values(vx, x));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_options_destroy(o)); /* the solver keeps its own copy */
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  R.status = ng_solver_solve(S, vb, vx);
  snprintf(R.msg, sizeof(R.msg), "%s", ng_last_error());
  const double *h;
  NG_ASSERT_OK(ng_solver_get_iterations(S, &R.its));
  NG_ASSERT_OK(ng_solver_get_residual(S, &R.reported));
  NG_ASSERT_OK(ng_solver_get_history(S, &h, &R.hlen));
  ck_assert_int_ge(R.hlen, 1);
  R.h0 = h[0];
  R.hlast = h[R.hlen - 1];
  for (int k = 0; k < R.hlen; k++) R.hmax = fmax(R.hmax, h[k]);
  double ts, tv;
  NG_ASSERT_OK(ng_solver_get_times(S, &ts, &tv));
  ck_assert(ts >= 0 && tv >= 0);
  NG_ASSERT_OK(ng_vector_get_values(vx, x));
  double bn = R.bn = norm(b, T->n);
  R.truerel = bn > 0 ? true_residual(T, b, x) / bn : true_residual(T, b, x);
  ng_solver_destroy(S);
  ng_vector_destroy(vb);
  ng_vector_destroy(vx);
  ng_matrix_destroy(A);
  return R;
}

static inline void check_converged(const result *R, double tol, const char *what)
{
  ck_assert_msg(R->status == NG_SUCCESS, "%s: %s: %s", what, ng_status_name(R->status), R->msg);
  ck_assert_msg(R->truerel < 10 * tol, "%s: true relative residual %.3e vs tol %.1e", what, R->truerel, tol);
  ck_assert_msg(R->reported <= tol, "%s: reported residual %.3e", what, R->reported);
  ck_assert_int_eq(R->hlen, R->its + 1);
  ck_assert_double_eq_tol(R->hlast / R->bn, R->reported, 1e-12); /* -norm b */
  printf("%-32s its %4d  true rel %.3e\n", what, R->its, R->truerel);
}

#endif
