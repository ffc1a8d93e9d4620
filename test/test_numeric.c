/* test/test_numeric.c: numeric faults end a solve at once with NG_ERR_NUMERIC
 * and a message naming the iteration and the quantity that went non-finite,
 * the same status, iteration count and message on every rank. Run on one
 * rank (make check runs it directly) and on two (test/mpi_numeric_np2.sh):
 * every test is collective (CK_FORK=no), and the fault is planted on the last
 * rank only, so the others learn of it through the global reductions.
 * Cases, for cg, pcg (jacobi, amg), bicgstab and pbicgstab (amg):
 *   - NaN / Inf in b, NaN / Inf in x0: refused before the first iteration;
 *   - matrix values updated to Inf: refused by ng_matrix_update_values, and
 *     the matrix keeps its old values (a solve afterwards still converges);
 *   - A p overflowing (finite values of 1e307): stops at iteration 1;
 *   - a preconditioner whose k-th application produces NaN on one rank
 *     (the preconditioner's ops wrapped through precond/precond.h): stops at
 *     the iteration of that application, naming the preconditioner. */
#include "testutil.h"
#include "../solver/solver.h"
#include <math.h>
#ifdef NG_HAVE_MPI
#include <mpi.h>
#endif

#ifdef NG_NUMERIC_ON_GPU
#define RESOURCE "gpu"
#else
#define RESOURCE "cpu"
#endif

static int rank, size;

typedef struct {
  ng_status st;
  int its;
  char msg[2048];
} result;

/* Same status, iteration count and message on every rank. */
static void assert_same_everywhere(const result *R)
{
#ifdef NG_HAVE_MPI
  unsigned long h = 5381;
  for (const char *c = R->msg; *c; c++) h = h * 33 + (unsigned char)*c;
  long v[3] = {(long)R->st, (long)R->its, (long)(h & 0x7fffffff)}, lo[3], hi[3];
  MPI_Allreduce(v, lo, 3, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(v, hi, 3, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  ck_assert_msg(lo[0] == hi[0] && lo[1] == hi[1] && lo[2] == hi[2],
                "ranks disagree: status %s..%s, iterations %ld..%ld, messages differ: %d (rank %d: %s)",
                ng_status_name((ng_status)lo[0]), ng_status_name((ng_status)hi[0]), lo[1], hi[1], lo[2] != hi[2],
                rank, R->msg);
#else
  (void)R;
#endif
}

typedef struct {
  ng_context ctx;
  ng_matrix A;
  ng_vector b, x;
  int32_t n;
} problem;

static void problem_create(problem *P, const char *spec)
{
  NG_ASSERT_OK(ng_context_create(RESOURCE, &P->ctx));
  NG_ASSERT_OK(ng_matrix_generate(P->ctx, spec, &P->A, &P->b));
  NG_ASSERT_OK(ng_vector_create(P->A, &P->x));
  NG_ASSERT_OK(ng_vector_fill(P->x, 0.0));
  NG_ASSERT_OK(ng_vector_get_size(P->x, &P->n));
}

static void problem_destroy(problem *P)
{
  ng_vector_destroy(P->x);
  ng_vector_destroy(P->b);
  ng_matrix_destroy(P->A);
  ng_context_destroy(P->ctx);
}

/* Sets entry 0 of v to value on the last rank (when it owns rows). */
static void plant(ng_vector v, int32_t n, double value)
{
  double *h = malloc((size_t)(n ? n : 1) * sizeof(double));
  NG_ASSERT_OK(ng_vector_get_values(v, h));
  if (rank == size - 1 && n > 0) h[0] = value;
  NG_ASSERT_OK(ng_vector_set_values(v, h));
  free(h);
}

/* Preconditioner wrapper: the apply_nan-th application puts NaN into z[0]
 * on the last rank. No diagonal(): the solvers take the general path. */
static ng_precond_ops wrapped_ops;
static const ng_precond_ops *inner_ops;
static int apply_calls, apply_nan;
static ng_status poisoned_apply(ng_precond P, const double *r, double *z)
{
  NG_CHECK(inner_ops->apply(P, r, z));
  if (++apply_calls == apply_nan && rank == size - 1 && P->A->n_local > 0) {
    double nan = NAN;
    NG_CHECK(P->ctx->vops->upload(P->ctx, z, &nan, 1));
  }
  return NG_SUCCESS;
}

static result solve(problem *P, const char *opts, int poison_at)
{
  result R = {NG_SUCCESS, -1, ""};
  ng_options o;
  ng_solver S;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, opts));
  NG_ASSERT_OK(ng_options_set(o, "maxit", "10000"));
  NG_ASSERT_OK(ng_solver_create(P->ctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, P->A));
  if (poison_at) {
    ck_assert_ptr_nonnull(S->P);
    inner_ops = S->P->ops;
    wrapped_ops = *inner_ops;
    wrapped_ops.apply = poisoned_apply;
    wrapped_ops.diagonal = NULL;
    S->P->ops = &wrapped_ops;
    apply_calls = 0;
    apply_nan = poison_at;
  }
  R.st = ng_solver_solve(S, P->b, P->x);
  if (R.st != NG_SUCCESS) snprintf(R.msg, sizeof(R.msg), "%s", ng_last_error());
  NG_ASSERT_OK(ng_solver_get_iterations(S, &R.its));
  if (poison_at) S->P->ops = inner_ops;
  if (rank == 0 && R.st != NG_SUCCESS) printf("%-32s %s\n", opts, R.msg); /* the messages, for the log */
  ng_solver_destroy(S);
  ng_options_destroy(o);
  assert_same_everywhere(&R);
  return R;
}

static const char *all_solvers[] = {"-solver cg -precond none", "-solver pcg -precond jacobi", "-solver pcg -precond amg",
                                    "-solver bicgstab -precond none", "-solver pbicgstab -precond amg",
                                    "-solver gmres -precond none", "-solver gmres -precond amg",
                                    "-solver fgmres -precond jacobi"};
#define NSOLVERS (int)(sizeof(all_solvers) / sizeof(all_solvers[0]))

#define ASSERT_NUMERIC(R, opts, ...)                                                                         \
  do {                                                                                                       \
    ck_assert_msg((R).st == NG_ERR_NUMERIC, "%s: %s instead of NG_ERR_NUMERIC: %s", opts,                   \
                  ng_status_name((R).st), (R).msg);                                                          \
    const char *want_[] = {__VA_ARGS__};                                                                     \
    for (size_t w_ = 0; w_ < sizeof(want_) / sizeof(want_[0]); w_++)                                         \
      ck_assert_msg(strstr((R).msg, want_[w_]) != NULL, "%s: message lacks '%s': %s", opts, want_[w_],       \
                    (R).msg);                                                                                \
  } while (0)

START_TEST(nonfinite_rhs)
{
  const double bad[2] = {NAN, INFINITY};
  for (int k = 0; k < NSOLVERS; k++)
    for (int v = 0; v < 2; v++) {
      problem P;
      problem_create(&P, "lap7:8");
      plant(P.b, P.n, bad[v]);
      result R = solve(&P, all_solvers[k], 0);
      ASSERT_NUMERIC(R, all_solvers[k], "right-hand side b has NaN or Inf");
      ck_assert_int_eq(R.its, 0);
      problem_destroy(&P);
    }
}
END_TEST

START_TEST(nonfinite_initial_guess)
{
  const double bad[2] = {NAN, -INFINITY};
  for (int k = 0; k < NSOLVERS; k++)
    for (int v = 0; v < 2; v++) {
      problem P;
      problem_create(&P, "lap7:8");
      plant(P.x, P.n, bad[v]);
      result R = solve(&P, all_solvers[k], 0);
      ASSERT_NUMERIC(R, all_solvers[k], "initial guess x has NaN or Inf");
      ck_assert_int_eq(R.its, 0);
      problem_destroy(&P);
    }
}
END_TEST

/* Values updated to Inf are refused (on every rank that passes one), and
 * the matrix keeps its previous values: the solve afterwards converges. */
START_TEST(values_updated_to_inf)
{
  problem P;
  problem_create(&P, "lap7:8");
  int64_t nnz;
  NG_ASSERT_OK(ng_matrix_get_local_nnz(P.A, &nnz));
  double *val = malloc((size_t)nnz * sizeof(double));
  NG_ASSERT_OK(ng_matrix_values_in_input_order(P.A, val));
  for (int64_t p = 0; p < nnz; p++) val[p] *= 2.0;
  val[nnz - 1] = INFINITY; /* the last one: every value before it is good */
  result R = {ng_matrix_update_values(P.A, val), 0, ""};
  snprintf(R.msg, sizeof(R.msg), "%s", ng_last_error());
  ck_assert_msg(R.st == NG_ERR_NUMERIC && strstr(R.msg, "not finite"), "%s: %s", ng_status_name(R.st), R.msg);
  assert_same_everywhere(&R);
  for (int k = 0; k < NSOLVERS; k++) {
    NG_ASSERT_OK(ng_vector_fill(P.x, 0.0));
    R = solve(&P, all_solvers[k], 0);
    ck_assert_msg(R.st == NG_SUCCESS, "%s after a refused update: %s: %s", all_solvers[k], ng_status_name(R.st),
                  R.msg);
    /* b = A_old * ones: the old matrix gives x = 1 */
    double *xh = malloc((size_t)(P.n ? P.n : 1) * sizeof(double));
    NG_ASSERT_OK(ng_vector_get_values(P.x, xh));
    for (int32_t i = 0; i < P.n; i++) ck_assert_double_eq_tol(xh[i], 1.0, 1e-5);
    free(xh);
  }
  free(val);
  problem_destroy(&P);
}
END_TEST

/* Finite values of 1e307 (6e307 on the diagonal), b = 1: the boundary rows of
 * A p are ~1e307 each and (p, A p) overflows
 * in the first iteration (no preconditioner to rescale it). */
START_TEST(overflow_in_the_iteration)
{
  const char *opts[] = {"-solver cg -precond none", "-solver bicgstab -precond none", "-solver gmres -precond none"};
  for (int k = 0; k < 3; k++) {
    problem P;
    problem_create(&P, "lap7:8");
    int64_t nnz;
    NG_ASSERT_OK(ng_matrix_get_local_nnz(P.A, &nnz));
    double *val = malloc((size_t)nnz * sizeof(double));
    NG_ASSERT_OK(ng_matrix_values_in_input_order(P.A, val));
    for (int64_t p = 0; p < nnz; p++) val[p] *= 1e307;
    NG_ASSERT_OK(ng_matrix_update_values(P.A, val));
    NG_ASSERT_OK(ng_vector_fill(P.b, 1.0));
    result R = solve(&P, opts[k], 0);
    ASSERT_NUMERIC(R, opts[k], "NaN/Inf at iteration 1:", "overflowed");
    ck_assert_int_le(R.its, 1);
    free(val);
    problem_destroy(&P);
  }
}
END_TEST

/* The preconditioner's k-th application gives NaN on the last rank. pcg
 * applies it once before the loop and once per iteration; pbicgstab twice
 * per iteration (M^-1 p, then M^-1 s); gmres and fgmres once per iteration. */
START_TEST(preconditioner_produces_nan)
{
  struct {
    const char *opts;
    int call, iteration;
    const char *what;
  } cases[] = {
      {"-solver pcg -precond amg", 1, 0, "(r, M^-1 r)"},
      {"-solver pcg -precond amg", 4, 3, "(r, M^-1 r)"},
      {"-solver pcg -precond jacobi", 3, 2, "(r, M^-1 r)"},
      {"-solver pbicgstab -precond amg", 3, 2, "(r0hat, A M^-1 p)"},
      {"-solver pbicgstab -precond amg", 4, 2, "A M^-1 s"},
      {"-solver pbicgstab -precond jacobi", 1, 1, "(r0hat, A M^-1 p)"},
      /* gmres and fgmres: once per iteration, from the first */
      {"-solver gmres -precond amg", 1, 1, "h = (v_i, A M^-1 v_j)"},
      {"-solver gmres -precond jacobi", 3, 3, "h = (v_i, A M^-1 v_j)"},
      {"-solver fgmres -precond amg", 2, 2, "h = (v_i, A M^-1 v_j)"},
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    problem P;
    char at[64], prec[64];
    problem_create(&P, "lap7:10");
    result R = solve(&P, cases[k].opts, cases[k].call);
    snprintf(at, sizeof(at), "NaN/Inf at iteration %d:", cases[k].iteration);
    snprintf(prec, sizeof(prec), "the preconditioner %s produced NaN/Inf", strstr(cases[k].opts, "amg") ? "amg" : "jacobi");
    ASSERT_NUMERIC(R, cases[k].opts, at, cases[k].what, prec);
    ck_assert_int_eq(R.its, cases[k].iteration > 0 ? cases[k].iteration - (strstr(cases[k].what, "(r, ") ? 0 : 1) : 0);
    problem_destroy(&P);
  }
}
END_TEST

int main(int argc, char **argv)
{
  ng_context world;
#ifdef NG_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  setenv("CK_FORK", "no", 1); /* collectives cannot run in forked children */
#ifdef NG_NUMERIC_ON_GPU
  if (ng_test_no_gpu()) {
#ifdef NG_HAVE_MPI
    MPI_Finalize();
#endif
    return 77;
  }
#endif
  if (ng_context_create("cpu", &world) != NG_SUCCESS) {
    fprintf(stderr, "context: %s\n", ng_last_error());
    return 1;
  }
  ng_context_rank(world, &rank, &size);
  Suite *s = suite_create("numeric");
  TCase *tc = tcase_create("numeric");
  tcase_set_timeout(tc, 120);
  NG_TEST_ADD(tc, nonfinite_rhs);
  NG_TEST_ADD(tc, nonfinite_initial_guess);
  NG_TEST_ADD(tc, values_updated_to_inf);
  NG_TEST_ADD(tc, overflow_in_the_iteration);
  NG_TEST_ADD(tc, preconditioner_produces_nan);
  suite_add_tcase(s, tc);
  int rc = ng_test_run(s);
  int worst = rc;
#ifdef NG_HAVE_MPI
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#endif
  ng_context_destroy(world);
#ifdef NG_HAVE_MPI
  MPI_Finalize();
#endif
  return worst;
}
