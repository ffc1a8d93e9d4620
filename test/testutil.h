/* test/testutil.h: helpers shared by the Check suites: data paths, fresh
 * random inputs, the GPU skip convention, and running a suite. */
#ifndef NG_TESTUTIL_H
#define NG_TESTUTIL_H
#include <check.h>
#include <stdint.h>
#include "nagare.h"

/* Path of a file in test/data (static buffer). */
const char *ng_test_data(const char *name);
/* Path of a fresh temporary file name with the given suffix (static buffer). */
const char *ng_test_tmpfile(const char *suffix);
/* Uniform random values in [-1, 1) from a seed that changes per run
 * (NG_TEST_SEED fixes it); the seed is printed once. */
void ng_test_random(double *x, int64_t n);
unsigned ng_test_seed(void);
/* Returns 1 (and prints "skipped: no CUDA device") when no GPU is usable. */
int ng_test_no_gpu(void);
/* An AMG preconditioner of A on ctx: "-precond amg", then the options. */
ng_precond ng_test_amg(ng_context ctx, ng_matrix A, const char *options);
/* AMG-PCG from x0 = 0 ("-solver pcg -precond amg -tol 1e-8 -maxit 1000", then
 * options): its iterations, or -1 (the error printed) when the solve fails. */
int ng_test_pcg_amg(ng_context ctx, ng_matrix A, ng_vector b, const char *options);
/* z = one application of P to r (host arrays of A's local length). */
void ng_test_apply(ng_precond P, ng_matrix A, const double *r, double *z);
/* Runs a suite; returns the process exit code (77 = skipped if skip_all). */
int ng_test_run(Suite *s);
/* tcase_add_test unless NG_TEST_ONLY (a comma-separated list of test names)
 * leaves this test out: test/gpu_sanitize.sh checks one test of a long GPU
 * suite per compute-sanitizer process, several at once. */
int ng_test_selected(const char *name);
/* A generator spec "name:N..." with N halved (at least 8) when NG_TEST_SMALL
 * is set (racecheck runs of the long AMG suites, test/gpu_sanitize.sh), else
 * spec itself. The result lives until the 8th call after. */
const char *ng_test_spec(const char *spec);
#define NG_TEST_ADD(tc, t)                                                                        \
  do {                                                                                           \
    if (ng_test_selected(#t)) tcase_add_test(tc, t);                                             \
  } while (0)
/* ck_assert that a call succeeded, printing ng_last_error() when not. */
#define NG_ASSERT_OK(call)                                                                  \
  do {                                                                                      \
    ng_status ng_t_s_ = (call);                                                             \
    ck_assert_msg(ng_t_s_ == NG_SUCCESS, "%s -> %s: %s", #call, ng_status_name(ng_t_s_),    \
                  ng_last_error());                                                         \
  } while (0)
#endif
