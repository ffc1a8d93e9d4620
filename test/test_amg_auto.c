/* test/test_amg_auto.c: -amg_coarsening auto, the default (amg/amg.c's
 * amg_adapt, solver/krylov_adapt.c, solver/lanczos.c). The Lanczos estimate
 * from CG's coefficients is the exact condition number when CG has run as
 * many iterations as the matrix has distinct eigenvalues, and grows with
 * the iterations before; on lap27 auto keeps aggregation and its solve is
 * aggregation's bit for bit; on jump2q1 (Q1, jumps with a rotated
 * anisotropy) it rebuilds as classical after -amg_auto_its iterations,
 * needs fewer iterations than aggregation, and a second solve and an
 * update of the values are those of classical coarsening bit for bit;
 * the K-cycle keeps aggregation; GMRES, FGMRES and BiCGSTAB report too; bad
 * options are clear errors. */
#include "testutil.h"
#include "../solver/solver.h"
#include <math.h>
#include <limits.h>

static ng_context ctx;
static void setup(void) { NG_ASSERT_OK(ng_context_create("cpu", &ctx)); }
static void teardown(void) { ng_context_destroy(ctx); }

/* CG on diag(d) (n entries) from x0 = 0 with b = 1: its alpha and beta. */
static void cg_diag(const double *d, int n, int k, double *alpha, double *beta)
{
  double x[16] = {0}, r[16], p[16], q[16], rr = 0;
  for (int i = 0; i < n; i++) r[i] = 1.0, p[i] = 1.0, rr += 1.0;
  for (int j = 0; j < k; j++) {
    double pq = 0, rn = 0;
    for (int i = 0; i < n; i++) q[i] = d[i] * p[i], pq += p[i] * q[i];
    alpha[j] = rr / pq;
    for (int i = 0; i < n; i++) x[i] += alpha[j] * p[i], r[i] -= alpha[j] * q[i], rn += r[i] * r[i];
    beta[j] = rn / rr;
    rr = rn;
    for (int i = 0; i < n; i++) p[i] = r[i] + beta[j] * p[i];
  }
}

START_TEST(lanczos_kappa_is_exact_at_n)
{
  const double d[6] = {1.0, 1.7, 2.5, 3.1, 4.9, 6.0};
  double alpha[6], beta[6], prev = 1.0;
  cg_diag(d, 6, 6, alpha, beta);
  for (int k = 1; k <= 6; k++) {
    double kap = ng_krylov_lanczos_kappa(alpha, beta, k);
    /* Ritz values interlace: the estimate grows with k, up to 6 */
    ck_assert_msg(kap >= prev - 1e-12 && kap <= 6.0 + 1e-9, "k %d: estimate %.6f (before %.6f)", k, kap, prev);
    prev = kap;
  }
  ck_assert_msg(fabs(prev - 6.0) < 1e-8, "estimate after 6 iterations %.12f, not 6", prev);
  alpha[2] = -alpha[2]; /* an indefinite preconditioner */
  ck_assert(isinf(ng_krylov_lanczos_kappa(alpha, beta, 6)));
  ck_assert(isnan(ng_krylov_lanczos_kappa(alpha, beta, 0)));
  ck_assert(isnan(ng_krylov_lanczos_kappa(alpha, beta, NG_LANCZOS_MAX + 1)));
}
END_TEST

/* A CG solver with AMG and the options, on A; the solution into xs
 * (host, n_local) and its iterations returned. */
static ng_solver make_solver(ng_matrix A, const char *opts)
{
  ng_options o;
  ng_solver S;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-solver cg -precond amg -tol 1e-8 -maxit 2000"));
  NG_ASSERT_OK(ng_options_set_from_string(o, opts));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  ng_options_destroy(o);
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  return S;
}

/* One solve from x = 0 with b = 1: its status, *its, and x into xs (may be NULL). */
static ng_status solve_status(ng_solver S, ng_matrix A, double *xs, int *its)
{
  ng_vector b, x;
  *its = -1;
  NG_ASSERT_OK(ng_vector_create(A, &b));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_fill(b, 1.0));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  ng_status st = ng_solver_solve(S, b, x);
  NG_ASSERT_OK(ng_solver_get_iterations(S, its));
  if (xs && st == NG_SUCCESS) NG_ASSERT_OK(ng_vector_get_values(x, xs));
  ng_vector_destroy(b);
  ng_vector_destroy(x);
  return st;
}

static int solve(ng_solver S, ng_matrix A, double *xs)
{
  int its;
  ng_status st = solve_status(S, A, xs, &its);
  ck_assert_msg(st == NG_SUCCESS, "solve: %s", ng_last_error());
  return its;
}

/* Iterations, or INT_MAX when the solve fails (the error cleared). */
static int solve_or_fail(ng_solver S, ng_matrix A)
{
  int its;
  ng_status st = solve_status(S, A, NULL, &its);
  return st == NG_SUCCESS ? its : INT_MAX;
}

static const char *describe(ng_solver S)
{
  static char buf[8192];
  ng_precond P;
  NG_ASSERT_OK(ng_solver_get_precond(S, &P));
  NG_ASSERT_OK(ng_precond_describe(P, buf, sizeof(buf)));
  return buf;
}

/* Two solvers, options oa and ob, on the matrix of spec (b = 1, x0 = 0):
 * their iterations (ib = INT_MAX when b_may_fail and the second solve
 * fails), whether their x agree bit for bit, and the first one's -amg_view
 * text. */
typedef struct {
  int ia, ib, same;
  char view[8192];
} pair_result;

static pair_result solve_pair(const char *spec, const char *oa, const char *ob, int b_may_fail)
{
  pair_result R;
  ng_matrix A;
  int32_t n;
  int64_t ng, nz;
  NG_ASSERT_OK(ng_matrix_generate(ctx, spec, &A, NULL));
  NG_ASSERT_OK(ng_matrix_get_size(A, &ng, &n, &nz));
  double *xa = malloc((size_t)n * sizeof(double)), *xb = calloc((size_t)n, sizeof(double));
  ng_solver Sa = make_solver(A, oa), Sb = make_solver(A, ob);
  R.ia = solve(Sa, A, xa);
  R.ib = b_may_fail ? solve_or_fail(Sb, A) : solve(Sb, A, xb);
  R.same = R.ib != INT_MAX && memcmp(xa, xb, (size_t)n * sizeof(double)) == 0;
  snprintf(R.view, sizeof(R.view), "%s", describe(Sa));
  ng_solver_destroy(Sa);
  ng_solver_destroy(Sb);
  free(xa);
  free(xb);
  ng_matrix_destroy(A);
  return R;
}

START_TEST(auto_keeps_aggregation_on_lap27)
{
  pair_result R = solve_pair("lap27:14", "-tol 1e-11", "-tol 1e-11 -amg_coarsening aggregation", 0);
  ck_assert_msg(R.ia > 8, "lap27:14 converged in %d iterations: before auto's estimate (8), the test shows nothing",
                R.ia);
  ck_assert_int_eq(R.ia, R.ib);
  ck_assert_msg(R.same, "auto's x differs from aggregation's");
  ck_assert_msg(strstr(R.view, "auto: aggregation kept"), "%s", R.view);
}
END_TEST

START_TEST(auto_switches_on_jumps)
{
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "jump2q1:40", &A, NULL));
  int32_t n;
  int64_t ng, nz;
  NG_ASSERT_OK(ng_matrix_get_size(A, &ng, &n, &nz));
  double *xa = malloc((size_t)n * sizeof(double)), *xc = malloc((size_t)n * sizeof(double)),
         *xg = malloc((size_t)n * sizeof(double));
  ng_solver Sa = make_solver(A, ""), Sc = make_solver(A, "-amg_coarsening classical"),
            Sg = make_solver(A, "-amg_coarsening aggregation");
  int ia = solve(Sa, A, xa), ic = solve(Sc, A, xc), ig = solve(Sg, A, xg);
  ck_assert_msg(strstr(describe(Sa), "auto: classical"), "%s", describe(Sa));
  ck_assert_msg(ia < ig, "jump2q1:40: auto %d iterations, aggregation %d", ia, ig);
  /* 8 with aggregation, then classical's (from x or from 0) */
  ck_assert_msg(ia <= 8 + ic, "jump2q1:40: auto %d iterations, classical %d", ia, ic);
  /* the second solve is classical coarsening's, bit for bit */
  ia = solve(Sa, A, xa);
  ck_assert_int_eq(ia, ic);
  ck_assert_msg(memcmp(xa, xc, (size_t)n * sizeof(double)) == 0, "second solve: auto's x differs from classical's");
  /* new values, same pattern (the diagonal times 1.5): the update sets the
   * classical hierarchy up again */
  int64_t nnz;
  NG_ASSERT_OK(ng_matrix_get_local_nnz(A, &nnz));
  double *v = malloc((size_t)nnz * sizeof(double));
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->local.rowptr[i]; k < A->local.rowptr[i + 1]; k++)
      v[k] = A->local.val[k] * (A->local.col[k] == i ? 1.5 : 1.0);
  NG_ASSERT_OK(ng_matrix_update_values(A, v));
  NG_ASSERT_OK(ng_solver_set_operator(Sa, A));
  ck_assert_msg(strstr(describe(Sa), "auto: classical"), "after the update: %s", describe(Sa));
  ng_solver_destroy(Sc);
  Sc = make_solver(A, "-amg_coarsening classical");
  ia = solve(Sa, A, xa);
  ic = solve(Sc, A, xc);
  ck_assert_int_eq(ia, ic);
  ck_assert_msg(memcmp(xa, xc, (size_t)n * sizeof(double)) == 0, "updated: auto's x differs from classical's");
  free(v);
  ng_solver_destroy(Sa);
  ng_solver_destroy(Sc);
  ng_solver_destroy(Sg);
  free(xa);
  free(xc);
  free(xg);
  ng_matrix_destroy(A);
}
END_TEST

/* GMRES, FGMRES, BiCGSTAB (solver/gmres.c, bicgstab.c: the reduction of
 * ||r||) and pipelined CG (pipecg.c: of ||r||_M^-1) report too: on lap27
 * auto's solve is aggregation's bit for bit;
 * on jump2q1 auto rebuilds as classical after 8 iterations and converges
 * in fewer iterations than aggregation (GMRES ends its cycle there and
 * updates x before M changes; FGMRES goes on in its cycle; BiCGSTAB starts
 * again from b - A x). */
START_TEST(other_solvers_report_too)
{
  const char *methods[] = {"gmres", "fgmres", "bicgstab", "pipecg"};
  for (int k = 0; k < 4; k++) {
    char oa[96], og[128], who[96];
    /* lap27: to 1e-12, past the verdict at 8 */
    snprintf(oa, sizeof(oa), "-solver %s -tol 1e-12", methods[k]);
    snprintf(og, sizeof(og), "-solver %s -tol 1e-12 -amg_coarsening aggregation", methods[k]);
    pair_result R = solve_pair("lap27:14", oa, og, 0);
    snprintf(who, sizeof(who), "aggregation kept, %s reduced ||r||", methods[k]);
    /* BiCGSTAB converges before the verdict (6 iterations, 12 cycles) */
    ck_assert_msg(R.ia > 8 || k == 2, "%s lap27:14: %d iterations, before the verdict", methods[k], R.ia);
    ck_assert_msg(R.ia <= 8 || strstr(R.view, who), "%s", R.view);
    ck_assert_int_eq(R.ia, R.ib);
    ck_assert_msg(R.same, "%s: auto's x differs from aggregation's", methods[k]);
    printf("%-8s lap27:14   auto %3d iterations, aggregation %3d\n", methods[k], R.ia, R.ib);
    /* aggregation alone may fail on jump2q1 (pipelined CG breaks down at 149) */
    snprintf(oa, sizeof(oa), "-solver %s", methods[k]);
    snprintf(og, sizeof(og), "-solver %s -amg_coarsening aggregation", methods[k]);
    R = solve_pair("jump2q1:40", oa, og, 1);
    snprintf(who, sizeof(who), "classical, as %s with aggregation", methods[k]);
    ck_assert_msg(strstr(R.view, who), "%s", R.view);
    ck_assert_msg(R.ia < R.ib, "%s jump2q1:40: auto %d iterations, aggregation %d", methods[k], R.ia, R.ib);
    if (R.ib == INT_MAX) printf("%-8s jump2q1:40 auto %3d iterations, aggregation failed\n", methods[k], R.ia);
    else printf("%-8s jump2q1:40 auto %3d iterations, aggregation %3d\n", methods[k], R.ia, R.ib);
  }
}
END_TEST

/* BiCGSTAB diverging before the verdict (here with -divtol 10, at its first
 * iteration; jump2q1:300 does it at the default 1e4, iteration 5): auto
 * asks the preconditioner at once, which rebuilds as classical, and the
 * method starts again from x0 and converges; aggregation alone reports
 * NG_ERR_DIVERGED. */
START_TEST(bicgstab_divergence_rescued)
{
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "jump2q1:40", &A, NULL));
  int32_t n;
  int64_t ng, nz;
  NG_ASSERT_OK(ng_matrix_get_size(A, &ng, &n, &nz));
  double *xa = malloc((size_t)n * sizeof(double));
  ng_solver Sa = make_solver(A, "-solver bicgstab -divtol 10"),
            Sg = make_solver(A, "-solver bicgstab -divtol 10 -amg_coarsening aggregation");
  int ia = solve(Sa, A, xa);
  const char *d = describe(Sa);
  ck_assert_msg(strstr(d, "classical, as bicgstab with aggregation diverged at iteration"), "%s", d);
  ck_assert_msg(ia > 1 && ia < 40, "jump2q1:40 rescued: %d iterations", ia);
  ng_vector b, x;
  NG_ASSERT_OK(ng_vector_create(A, &b));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_fill(b, 1.0));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  ck_assert_int_eq(ng_solver_solve(Sg, b, x), NG_ERR_DIVERGED);
  printf("bicgstab jump2q1:40 -divtol 10: auto %d iterations, aggregation diverged\n", ia);
  ng_vector_destroy(b);
  ng_vector_destroy(x);
  ng_solver_destroy(Sa);
  ng_solver_destroy(Sg);
  free(xa);
  ng_matrix_destroy(A);
}
END_TEST

/* After the rebuild CG starts again from x or from 0, whichever leaves the
 * smaller residual (ng_krylov_restart_point): on spheres7:24 the 8
 * aggregation iterations leave ||b - A x|| = 10 ||b||, so the solve goes on
 * from 0 and is classical coarsening's own, bit for bit, 8 iterations
 * later. */
START_TEST(restart_from_zero_when_worse)
{
  pair_result R = solve_pair("spheres7:24", "", "-amg_coarsening classical", 0);
  ck_assert_msg(strstr(R.view, "auto: classical"), "%s", R.view);
  ck_assert_msg(R.ia == 8 + R.ib, "spheres7:24: auto %d iterations, classical %d", R.ia, R.ib);
  ck_assert_msg(R.same, "auto's x differs from classical's");
}
END_TEST

/* A long window (the GPU's default is 100 iterations): past the 32
 * coefficients the condition estimate keeps, the verdict still comes at
 * -amg_auto_its and is judged on its second half. */
START_TEST(long_window)
{
  pair_result R = solve_pair("jump2q1:40", "-amg_auto_its 40 -amg_auto_rate 0.5", "-amg_coarsening classical", 0);
  ck_assert_msg(strstr(R.view, "auto: classical") && strstr(R.view, "over 40 iterations"), "%s", R.view);
  ck_assert_msg(R.ia > 40 && R.ia <= 40 + R.ib, "jump2q1:40, verdict after 40: %d iterations (classical alone %d)",
                R.ia, R.ib);
}
END_TEST

/* The K-cycle (a nonlinear preconditioner, no Lanczos estimate) keeps
 * aggregation: the same iterations and x as -amg_coarsening aggregation. */
START_TEST(kcycle_keeps_aggregation)
{
  pair_result R = solve_pair("jump2q1:24", "-amg_cycle k", "-amg_cycle k -amg_coarsening aggregation", 0);
  ck_assert_int_eq(R.ia, R.ib);
  ck_assert_msg(R.same, "K-cycle: auto's x differs from aggregation's");
  ck_assert_msg(!strstr(R.view, "auto: classical"), "%s", R.view);
}
END_TEST

START_TEST(bad_options)
{
  ng_matrix A;
  const char *bad[] = {"-amg_auto_rate 0", "-amg_auto_rate 1.5", "-amg_auto_its 1", "-amg_auto_its 1001"};
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap27:6", &A, NULL));
  for (int k = 0; k < 4; k++) {
    ng_options o;
    ng_precond P = NULL;
    NG_ASSERT_OK(ng_options_create(&o));
    ng_status st = ng_options_set_from_string(o, "-precond amg");
    if (st == NG_SUCCESS) st = ng_options_set_from_string(o, bad[k]);
    if (st == NG_SUCCESS) st = ng_precond_create(ctx, o, A, &P);
    ck_assert_int_eq(st, NG_ERR_ARGUMENT);
    ck_assert_msg(strstr(ng_last_error(), "amg_auto_"), "%s", ng_last_error());
    ng_options_destroy(o);
  }
  ng_matrix_destroy(A);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("amg_auto");
  TCase *tc = tcase_create("auto");
  tcase_add_unchecked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, lanczos_kappa_is_exact_at_n);
  tcase_add_test(tc, auto_keeps_aggregation_on_lap27);
  tcase_add_test(tc, auto_switches_on_jumps);
  tcase_add_test(tc, long_window);
  tcase_add_test(tc, other_solvers_report_too);
  tcase_add_test(tc, bicgstab_divergence_rescued);
  tcase_add_test(tc, restart_from_zero_when_worse);
  tcase_add_test(tc, kcycle_keeps_aggregation);
  tcase_add_test(tc, bad_options);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
