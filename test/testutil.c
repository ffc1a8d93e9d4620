/* test/testutil.c: shared test helpers (see testutil.h). */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *ng_test_data(const char *name)
{
  static char buf[4096];
  const char *dir = getenv("NG_TEST_DATA");
  snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "test/data", name);
  return buf;
}

const char *ng_test_tmpfile(const char *suffix)
{
  static char buf[4096];
  static int k;
  const char *dir = getenv("TMPDIR");
  snprintf(buf, sizeof(buf), "%s/ng_test_%d_%d%s", dir ? dir : "/tmp", (int)getpid(), k++, suffix);
  return buf;
}

unsigned ng_test_seed(void)
{
  static unsigned seed;
  static int init;
  if (!init) {
    const char *s = getenv("NG_TEST_SEED");
    seed = s ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
    printf("random seed %u (NG_TEST_SEED=%u repeats it)\n", seed, seed);
    init = 1;
  }
  return seed;
}

/* xorshift64*: small, fast and good enough for test vectors. */
void ng_test_random(double *x, int64_t n)
{
  static uint64_t state;
  if (!state) state = 0x9E3779B97F4A7C15ULL ^ ng_test_seed();
  for (int64_t i = 0; i < n; i++) {
    state ^= state >> 12; state ^= state << 25; state ^= state >> 27;
    uint64_t r = state * 0x2545F4914F6CDD1DULL;
    x[i] = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
  }
}

int ng_test_no_gpu(void)
{
  ng_context ctx = NULL;
  if (ng_context_create("gpu", &ctx) != NG_SUCCESS) {
    printf("skipped: no CUDA device\n");
    return 1;
  }
  ng_context_destroy(ctx);
  return 0;
}

int ng_test_selected(const char *name)
{
  const char *only = getenv("NG_TEST_ONLY");
  if (!only || !*only) return 1;
  size_t len = strlen(name);
  for (const char *p = only; *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == len && !strncmp(p, name, len)) return 1;
    p += n + (end != NULL);
  }
  return 0;
}

const char *ng_test_spec(const char *spec)
{
  static char ring[8][64];
  static int next;
  const char *small = getenv("NG_TEST_SMALL"), *colon = strchr(spec, ':');
  if (!small || !*small || !colon || colon[1] < '0' || colon[1] > '9' || strlen(spec) >= sizeof(ring[0]))
    return spec;
  char *end;
  long n = strtol(colon + 1, &end, 10);
  char *out = ring[next++ % 8];
  snprintf(out, sizeof(ring[0]), "%.*s:%ld%s", (int)(colon - spec), spec, n / 2 > 8 ? n / 2 : 8, end);
  return out;
}

int ng_test_run(Suite *s)
{
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

ng_precond ng_test_amg(ng_context ctx, ng_matrix A, const char *options)
{
  ng_options o;
  ng_precond P;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg"));
  NG_ASSERT_OK(ng_options_set_from_string(o, options));
  NG_ASSERT_OK(ng_precond_create(ctx, o, A, &P));
  ng_options_destroy(o);
  return P;
}

int ng_test_pcg_amg(ng_context ctx, ng_matrix A, ng_vector b, const char *options)
{
  ng_options o;
  ng_solver S;
  ng_vector x;
  int its = -1;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-solver pcg -precond amg -tol 1e-8 -maxit 1000"));
  NG_ASSERT_OK(ng_options_set_from_string(o, options));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  if (ng_solver_solve(S, b, x) == NG_SUCCESS) NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
  else printf("AMG-PCG %s: %s\n", options, ng_last_error());
  ng_vector_destroy(x);
  ng_solver_destroy(S);
  ng_options_destroy(o);
  return its;
}

void ng_test_apply(ng_precond P, ng_matrix A, const double *r, double *z)
{
  ng_vector rv, zv;
  NG_ASSERT_OK(ng_vector_create(A, &rv));
  NG_ASSERT_OK(ng_vector_create(A, &zv));
  NG_ASSERT_OK(ng_vector_set_values(rv, r));
  NG_ASSERT_OK(ng_precond_apply(P, rv, zv));
  NG_ASSERT_OK(ng_vector_get_values(zv, z));
  ng_vector_destroy(rv);
  ng_vector_destroy(zv);
}
