/* test/test_amg_gpu.c: AMG on the GPU against the host. The hierarchy is
 * built by the same host code, so the GPU V-cycle applied to a random vector
 * must equal the host one to rounding (rho estimates and SpMV sums differ in
 * the last bits, amplified by the coarse solve: 1e-9 of max |z| is allowed,
 * a wrong level gives O(1)), and AMG-PCG must take the same number
 * of iterations within 1. Skips (77) without a CUDA device. */
#include "testutil.h"
#include "../precond/amg.h"
#include <math.h>
#include <stdlib.h>

static ng_context host, gpu;
static void setup(void)
{
  NG_ASSERT_OK(ng_context_create("gpu", &gpu));
  NG_ASSERT_OK(ng_context_create("cpu", &host));
}
static void teardown(void)
{
  ng_context_destroy(gpu);
  ng_context_destroy(host);
}

static ng_precond make_amg(ng_context c, ng_matrix A)
{
  ng_options o;
  ng_precond P;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg -amg_sweeps 2,2,1"));
  NG_ASSERT_OK(ng_precond_create(c, o, A, &P));
  ng_options_destroy(o);
  return P;
}

static int pcg_iterations(ng_context c, ng_matrix A, ng_vector b)
{
  ng_options o;
  ng_solver S;
  ng_vector x;
  int its;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-solver pcg -precond amg -tol 1e-8"));
  NG_ASSERT_OK(ng_solver_create(c, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  NG_ASSERT_OK(ng_solver_solve(S, b, x));
  NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
  ng_vector_destroy(x);
  ng_solver_destroy(S);
  ng_options_destroy(o);
  return its;
}

START_TEST(gpu_matches_host)
{
  const char *specs[] = {"fem27:40", "lap27:33", "aniso27:24"};
  for (int s = 0; s < 3; s++) {
    ng_matrix A[2];
    ng_vector b[2], r[2], z[2];
    ng_precond P[2];
    int its[2];
    ng_context c[2] = {host, gpu};
    for (int k = 0; k < 2; k++) {
      NG_ASSERT_OK(ng_matrix_generate(c[k], specs[s], &A[k], &b[k]));
      NG_ASSERT_OK(ng_vector_create(A[k], &r[k]));
      NG_ASSERT_OK(ng_vector_create(A[k], &z[k]));
    }
    int32_t n = A[0]->n_local;
    double *rv = malloc(n * sizeof(double)), *zh = malloc(n * sizeof(double)), *zg = malloc(n * sizeof(double));
    ng_test_random(rv, n);
    for (int k = 0; k < 2; k++) {
      P[k] = make_amg(c[k], A[k]);
      NG_ASSERT_OK(ng_vector_set_values(r[k], rv));
      NG_ASSERT_OK(ng_precond_apply(P[k], r[k], z[k]));
    }
    NG_ASSERT_OK(ng_vector_get_values(z[0], zh));
    NG_ASSERT_OK(ng_vector_get_values(z[1], zg));
    double dmax = 0, zmax = 0;
    for (int32_t i = 0; i < n; i++) {
      dmax = fmax(dmax, fabs(zh[i] - zg[i]));
      zmax = fmax(zmax, fabs(zh[i]));
    }
    ck_assert_msg(dmax <= 1e-9 * zmax, "%s: GPU V-cycle differs from the host by %.3e (max |z| %.3e)", specs[s], dmax,
                  zmax);
    for (int k = 0; k < 2; k++) its[k] = pcg_iterations(c[k], A[k], b[k]);
    printf("%s: V-cycle max difference %.2e (|z| %.2e), pcg iterations host %d gpu %d\n", specs[s], dmax, zmax, its[0],
           its[1]);
    ck_assert_int_le(abs(its[0] - its[1]), 1);
    for (int k = 0; k < 2; k++) {
      ng_precond_destroy(P[k]);
      ng_vector_destroy(z[k]);
      ng_vector_destroy(r[k]);
      ng_vector_destroy(b[k]);
      ng_matrix_destroy(A[k]);
    }
    free(rv);
    free(zh);
    free(zg);
  }
}
END_TEST

int main(void)
{
  if (ng_test_no_gpu()) return 77;
  setenv("CK_FORK", "no", 1); /* CUDA does not survive fork() after the device check */
  Suite *s = suite_create("amg_gpu");
  TCase *tc = tcase_create("amg_gpu");
  tcase_add_unchecked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, gpu_matches_host);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
