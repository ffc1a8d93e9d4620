/* test/test_nullspace.c: singular systems and the Krylov safeguards
 * (issue 32). Pure-Neumann lap7/lap27 (generator "lap7:N:neumann") with
 * inconsistent right-hand sides solved with -null_space constant by CG and
 * BiCGSTAB with AMG and Jacobi, against the minimum-norm solution (mean(x)
 * = 0, ||P(b - A x)|| small, the reported inconsistency exact), with
 * iteration counts near the Dirichlet problem's; the explicit API
 * (ng_solver_set_null_space) and its argument checks; without a null space
 * the failure names the cause; CG on a nonsymmetric convection-diffusion
 * matrix stops (NG_ERR_DIVERGED) instead of running to -maxit; -divtol for
 * cg and bicgstab. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ng_context ctx;
static void setup(void) { NG_ASSERT_OK(ng_context_create("cpu", &ctx)); }
static void teardown(void) { ng_context_destroy(ctx); }

typedef struct {
  ng_status status;
  int its;
  double removed;   /* reported ||b - P b|| / ||b|| */
  double mean_x;    /* mean(x) / max |x| */
  double proj_rel;  /* ||P (b - A x)|| / ||P b|| */
  char msg[1024];
} result;

/* mean of v (host, n entries) */
static double mean(const double *v, int32_t n)
{
  double s = 0;
  for (int32_t i = 0; i < n; i++) s += v[i];
  return s / n;
}

/* Solve A x = b from x = 0 (or x0) with options; explicit: the constant
 * given through ng_solver_set_null_space (scaled by 3, not normalised)
 * instead of the option. Returns the facts of result. */
static result solve(ng_matrix A, const double *b, const double *x0, const char *options, int explicit_null)
{
  result R;
  memset(&R, 0, sizeof(R));
  ng_options o;
  ng_solver S;
  ng_vector vb, vx, r, c;
  int32_t n;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, options));
  NG_ASSERT_OK(ng_vector_create(A, &vb));
  NG_ASSERT_OK(ng_vector_create(A, &vx));
  NG_ASSERT_OK(ng_vector_create(A, &r));
  NG_ASSERT_OK(ng_vector_get_size(vb, &n));
  NG_ASSERT_OK(ng_vector_set_values(vb, b));
  if (x0) NG_ASSERT_OK(ng_vector_set_values(vx, x0));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_options_destroy(o));
  if (explicit_null) {
    NG_ASSERT_OK(ng_vector_create(A, &c));
    NG_ASSERT_OK(ng_vector_fill(c, 3.0));
    NG_ASSERT_OK(ng_solver_set_null_space(S, 1, &c)); /* before set_operator: allowed */
    NG_ASSERT_OK(ng_vector_destroy(c));               /* copied */
  }
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  R.status = ng_solver_solve(S, vb, vx);
  snprintf(R.msg, sizeof(R.msg), "%s", R.status ? ng_last_error() : "");
  NG_ASSERT_OK(ng_solver_get_iterations(S, &R.its));
  NG_ASSERT_OK(ng_solver_get_rhs_null_component(S, &R.removed));
  /* the minimum-norm solution's facts from the arrays */
  double *x = malloc(n * sizeof(double)), *rv = malloc(n * sizeof(double)), *pb = malloc(n * sizeof(double));
  NG_ASSERT_OK(ng_vector_get_values(vx, x));
  NG_ASSERT_OK(ng_matrix_apply(A, vx, r));
  NG_ASSERT_OK(ng_vector_get_values(r, rv));
  double xmax = 0, mb = mean(b, n);
  for (int32_t i = 0; i < n; i++) xmax = fmax(xmax, fabs(x[i]));
  R.mean_x = xmax > 0 ? fabs(mean(x, n)) / xmax : 0.0;
  for (int32_t i = 0; i < n; i++) rv[i] = b[i] - rv[i], pb[i] = b[i] - mb;
  double mr = mean(rv, n), sr = 0, sb = 0;
  for (int32_t i = 0; i < n; i++) sr += (rv[i] - mr) * (rv[i] - mr), sb += pb[i] * pb[i];
  R.proj_rel = sb > 0 ? sqrt(sr / sb) : sqrt(sr);
  free(x);
  free(rv);
  free(pb);
  ng_solver_destroy(S);
  ng_vector_destroy(vb);
  ng_vector_destroy(vx);
  ng_vector_destroy(r);
  return R;
}

/* b = 1 + eps * random (mean of the random part removed first, so the
 * inconsistency is exactly 1 / sqrt(1 + eps^2 ||w||^2 / n)-ish: computed) */
static void perturbed_ones(double *b, int32_t n, double eps)
{
  ng_test_random(b, n);
  double m = mean(b, n);
  for (int32_t i = 0; i < n; i++) b[i] = 1.0 + eps * (b[i] - m);
}

/* ||b - P b|| / ||b|| for the constant null space */
static double inconsistency(const double *b, int32_t n)
{
  double m = mean(b, n), s = 0;
  for (int32_t i = 0; i < n; i++) s += b[i] * b[i];
  return fabs(m) * sqrt((double)n) / sqrt(s);
}

START_TEST(neumann_converges_to_min_norm)
{
  static const char *specs[][2] = {{"lap7:16:neumann", "lap7:16"}, {"lap27:16:neumann", "lap27:16"}};
  static const char *methods[] = {"-solver pcg -precond amg", "-solver pcg -precond jacobi"};
  for (int p = 0; p < 2; p++) {
    ng_matrix A, D;
    int32_t n;
    NG_ASSERT_OK(ng_matrix_generate(ctx, specs[p][0], &A, NULL));
    NG_ASSERT_OK(ng_matrix_generate(ctx, specs[p][1], &D, NULL));
    NG_ASSERT_OK(ng_matrix_get_size(A, NULL, &n, NULL));
    double *b = malloc(n * sizeof(double)), *bd = malloc(n * sizeof(double));
    for (int m = 0; m < 2; m++) {
      char opts[160];
      /* b = 1: all of it in the null space; x = 0 is the minimum-norm
       * least-squares solution, found without iterating */
      for (int32_t i = 0; i < n; i++) b[i] = 1.0;
      snprintf(opts, sizeof(opts), "%s -null_space constant -amg_theta 0.02", methods[m]);
      result R = solve(A, b, NULL, opts, 0);
      ck_assert_msg(R.status == NG_SUCCESS, "%s %s b = 1: %s", specs[p][0], methods[m], R.msg);
      ck_assert_int_eq(R.its, 0);
      ck_assert_double_eq_tol(R.removed, 1.0, 1e-12);
      /* b = 1 + 1e-3 random: consistent part tiny beside the inconsistent one */
      perturbed_ones(b, n, 1e-3);
      double inc = inconsistency(b, n);
      snprintf(opts, sizeof(opts), "%s -null_space constant -tol 1e-8 -amg_theta 0.02", methods[m]);
      R = solve(A, b, NULL, opts, 0);
      ck_assert_msg(R.status == NG_SUCCESS, "%s %s b = 1 + 1e-3 rand: %s", specs[p][0], methods[m], R.msg);
      ck_assert_double_eq_tol(R.removed, inc, 1e-10);
      ck_assert_msg(R.mean_x < 1e-12, "mean(x) / max|x| = %g", R.mean_x);
      ck_assert_msg(R.proj_rel < 1e-7, "||P(b - Ax)|| / ||P b|| = %g", R.proj_rel);
      /* a random b whose mean is 1e-6 of max |b| (the case), and the
       * Dirichlet problem of the same size with the same b for comparison */
      ng_test_random(bd, n);
      double mbd = mean(bd, n);
      for (int32_t i = 0; i < n; i++) b[i] = bd[i] - mbd + 1e-6;
      R = solve(A, b, NULL, opts, 0);
      ck_assert_msg(R.status == NG_SUCCESS, "%s %s: %s", specs[p][0], methods[m], R.msg);
      ck_assert_msg(R.mean_x < 1e-12 && R.proj_rel < 1e-7, "mean %g, proj %g", R.mean_x, R.proj_rel);
      /* the explicit API (a scaled constant, set before set_operator) gives the same */
      result E = solve(A, b, NULL, opts, 1);
      ck_assert_int_eq(E.status, NG_SUCCESS);
      ck_assert_int_eq(E.its, R.its);
      ck_assert_double_eq_tol(E.removed, R.removed, 1e-14);
      /* an initial guess with a null-space part: removed, same answer */
      double *x0 = malloc(n * sizeof(double));
      for (int32_t i = 0; i < n; i++) x0[i] = 5.0;
      result X = solve(A, b, x0, opts, 0);
      ck_assert_int_eq(X.status, NG_SUCCESS);
      ck_assert_msg(X.mean_x < 1e-12, "x0 = 5: mean(x) / max|x| = %g", X.mean_x);
      free(x0);
      snprintf(opts, sizeof(opts), "%s -tol 1e-8 -amg_theta 0.02", methods[m]);
      result Dr = solve(D, b, NULL, opts, 0);
      ck_assert_int_eq(Dr.status, NG_SUCCESS);
      printf("%-18s %-28s its %3d (Dirichlet %3d), removed %.2e, mean(x) %.1e, ||P(b-Ax)||/||Pb|| %.1e\n",
             specs[p][0], methods[m], R.its, Dr.its, R.removed, R.mean_x, R.proj_rel);
      /* AMG: within a few of the Dirichlet problem; Jacobi-CG: the Neumann
       * operator's smallest nonzero eigenvalue is about a third of the
       * Dirichlet one's, so up to about twice the iterations */
      if (m == 0) ck_assert_int_le(R.its, Dr.its + 4);
      else ck_assert_int_le(R.its, 5 * Dr.its / 2);
    }
    free(b);
    free(bd);
    ng_matrix_destroy(A);
    ng_matrix_destroy(D);
  }
}
END_TEST

START_TEST(neumann_bicgstab)
{
  ng_matrix A;
  int32_t n;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap7:16:neumann", &A, NULL));
  NG_ASSERT_OK(ng_matrix_get_size(A, NULL, &n, NULL));
  double *b = malloc(n * sizeof(double));
  perturbed_ones(b, n, 1e-2);
  static const char *opts[] = {"-solver pbicgstab -precond amg -null_space constant",
                               "-solver pbicgstab -precond jacobi -null_space constant",
                               "-solver bicgstab -null_space constant", "-solver cg -null_space constant"};
  for (int k = 0; k < 4; k++) {
    result R = solve(A, b, NULL, opts[k], 0);
    ck_assert_msg(R.status == NG_SUCCESS, "%s: %s", opts[k], R.msg);
    ck_assert_msg(R.mean_x < 1e-12 && R.proj_rel < 1e-7, "%s: mean %g, proj %g", opts[k], R.mean_x, R.proj_rel);
    printf("lap7:16:neumann    %-52s its %3d\n", opts[k], R.its);
  }
  free(b);
  ng_matrix_destroy(A);
}
END_TEST

/* Without the null space, CG on the inconsistent system fails, and the
 * message names the cause and the option. */
START_TEST(neumann_without_null_space_names_cause)
{
  ng_matrix A;
  int32_t n;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap7:16:neumann", &A, NULL));
  NG_ASSERT_OK(ng_matrix_get_size(A, NULL, &n, NULL));
  double *b = malloc(n * sizeof(double));
  for (int k = 0; k < 2; k++) {
    ng_test_random(b, n);
    double m = mean(b, n);
    for (int32_t i = 0; i < n; i++) b[i] += 1e-3 - m;
    result R = solve(A, b, NULL, k ? "-solver pcg -precond jacobi" : "-solver pcg -precond amg", 0);
    ck_assert_msg(R.status == NG_ERR_BREAKDOWN || R.status == NG_ERR_DIVERGED, "%s", R.msg);
    ck_assert_msg(strstr(R.msg, "-null_space constant"), "the message does not name the option: %s", R.msg);
    printf("without null space (%s): %s\n", k ? "jacobi" : "amg", R.msg);
  }
  free(b);
  ng_matrix_destroy(A);
}
END_TEST

START_TEST(null_space_api_checks)
{
  ng_matrix A;
  ng_solver S;
  ng_options o;
  ng_vector v[9];
  int nvec;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap7:6:neumann", &A, NULL));
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  for (int k = 0; k < 9; k++) NG_ASSERT_OK(ng_vector_create(A, &v[k]));
  ck_assert_int_eq(ng_solver_set_null_space(S, 9, v), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_solver_set_null_space(S, 1, NULL), NG_ERR_ARGUMENT);
  /* a zero vector, then two dependent ones */
  ck_assert_int_eq(ng_solver_set_null_space(S, 1, v), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "vector 0"));
  NG_ASSERT_OK(ng_vector_fill(v[0], 1.0));
  NG_ASSERT_OK(ng_vector_fill(v[1], -2.0));
  ck_assert_int_eq(ng_solver_set_null_space(S, 2, v), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "combination"));
  NG_ASSERT_OK(ng_solver_get_null_space_size(S, &nvec));
  ck_assert_int_eq(nvec, 0); /* a failed set leaves none */
  NG_ASSERT_OK(ng_solver_set_null_space(S, 1, v));
  NG_ASSERT_OK(ng_solver_get_null_space_size(S, &nvec));
  ck_assert_int_eq(nvec, 1);
  NG_ASSERT_OK(ng_solver_set_null_space(S, 0, NULL)); /* removed */
  NG_ASSERT_OK(ng_solver_get_null_space_size(S, &nvec));
  ck_assert_int_eq(nvec, 0);
  for (int k = 0; k < 9; k++) ng_vector_destroy(v[k]);
  ng_solver_destroy(S);
  /* -null_space constant: one vector after set_operator */
  NG_ASSERT_OK(ng_options_set(o, "null_space", "constant"));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  NG_ASSERT_OK(ng_solver_get_null_space_size(S, &nvec));
  ck_assert_int_eq(nvec, 1);
  ng_solver_destroy(S);
  ng_options_destroy(o);
  ng_matrix_destroy(A);
}
END_TEST

/* 3D upwind convection-diffusion, 7-point, m^3 (Dirichlet): -lap u + w .
 * grad u with w = pe (1, 1, 1): nonsymmetric, its symmetric part SPD. */
static ng_matrix convection_diffusion(int m, double pe)
{
  int32_t n = m * m * m;
  int64_t *rp = malloc((n + 1) * sizeof(int64_t));
  int32_t *col = malloc(7 * n * sizeof(int32_t));
  double *val = malloc(7 * n * sizeof(double));
  int64_t p = 0;
  static const int d[6][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int z = 0, i = 0; z < m; z++)
    for (int y = 0; y < m; y++)
      for (int x = 0; x < m; x++, i++) {
        rp[i] = p;
        for (int k = 0; k < 6; k++) { /* columns ascending: the diagonal between k = 2 and 3 */
          if (k == 3) col[p] = i, val[p++] = 6.0 + 3.0 * pe;
          int X = x + d[k][0], Y = y + d[k][1], Z = z + d[k][2];
          if (X < 0 || Y < 0 || Z < 0 || X >= m || Y >= m || Z >= m) continue;
          col[p] = X + m * (Y + m * Z), val[p++] = -1.0 - (k < 3 ? pe : 0.0); /* upwind: the upstream side */
        }
      }
  rp[n] = p;
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, n, n, rp, col, val, &A));
  free(rp);
  free(col);
  free(val);
  return A;
}

START_TEST(cg_stops_on_nonsymmetric)
{
  ng_matrix A = convection_diffusion(14, 5.0);
  int32_t n;
  NG_ASSERT_OK(ng_matrix_get_size(A, NULL, &n, NULL));
  double *b = malloc(n * sizeof(double));
  for (int32_t i = 0; i < n; i++) b[i] = 1.0;
  static const char *opts[] = {"-solver pcg -precond jacobi", "-solver pcg -precond amg", "-solver cg"};
  for (int k = 0; k < 3; k++) {
    result R = solve(A, b, NULL, opts[k], 0);
    ck_assert_msg(R.status == NG_ERR_DIVERGED || R.status == NG_ERR_BREAKDOWN, "%s: %s (%d its)", opts[k],
                  ng_status_name(R.status), R.its);
    ck_assert_int_lt(R.its, 1000);
    ck_assert_msg(strstr(R.msg, "nonsymmetric") && strstr(R.msg, "gmres or bicgstab"), "%s", R.msg);
    printf("conv-diff %-28s stopped at %d: %s\n", opts[k], R.its, ng_status_name(R.status));
  }
  /* and BiCGSTAB solves it */
  result R = solve(A, b, NULL, "-solver pbicgstab -precond jacobi", 0);
  ck_assert_msg(R.status == NG_SUCCESS, "%s", R.msg);
  free(b);
  ng_matrix_destroy(A);
}
END_TEST

/* -divtol: every method stops with NG_ERR_DIVERGED naming divtol when
 * ||r|| > divtol ||r0||: plain CG's residual on the nonsymmetric matrix
 * grows past ||r0|| (-divtol 1) before the growth safeguard; -divtol 0
 * makes any residual above 0 a divergence, for each method. */
START_TEST(divtol_every_solver)
{
  ng_matrix A = convection_diffusion(10, 5.0);
  int32_t n;
  NG_ASSERT_OK(ng_matrix_get_size(A, NULL, &n, NULL));
  double *b = malloc(n * sizeof(double));
  for (int32_t i = 0; i < n; i++) b[i] = 1.0;
  static const char *opts[] = {"-solver cg -divtol 1", "-solver pcg -precond amg -divtol 0",
                               "-solver bicgstab -divtol 0", "-solver pbicgstab -precond jacobi -divtol 0"};
  for (int k = 0; k < 4; k++) {
    result R = solve(A, b, NULL, opts[k], 0);
    ck_assert_msg(R.status == NG_ERR_DIVERGED, "%s: %s %s", opts[k], ng_status_name(R.status), R.msg);
    ck_assert_msg(strstr(R.msg, "divtol"), "%s", R.msg);
  }
  free(b);
  ng_matrix_destroy(A);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("nullspace");
  TCase *tc = tcase_create("nullspace");
  tcase_add_unchecked_fixture(tc, setup, teardown); /* one context: MPI cannot restart */
  tcase_set_timeout(tc, 120);
  NG_TEST_ADD(tc, neumann_converges_to_min_norm);
  NG_TEST_ADD(tc, neumann_bicgstab);
  NG_TEST_ADD(tc, neumann_without_null_space_names_cause);
  NG_TEST_ADD(tc, null_space_api_checks);
  NG_TEST_ADD(tc, cg_stops_on_nonsymmetric);
  NG_TEST_ADD(tc, divtol_every_solver);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
