/* test/test_mpi_fault.c: bad input on one rank only makes every rank fail,
 * with the same status and the failing rank's message, instead of leaving
 * the others waiting in a collective. Run on 2 and 4 ranks
 * (test/mpi_fault_np2.sh, mpi_fault_np4.sh; make check also runs it on one,
 * where it checks the single-rank verdicts). Every test is collective
 * (CK_FORK=no). The problem is the 1D Laplacian, 200 rows a rank, given
 * through ng_matrix_create_distributed so each rank can spoil its own part:
 *   - a NaN value, a column out of range (creation refuses);
 *   - a zero diagonal on the last rank's rows (setup: Jacobi and AMG);
 *   - a NaN in the last rank's part of b (solve: pcg with jacobi and amg).
 * The allocation-failure side is test/mpi_fault_walk.sh. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef NG_HAVE_MPI
#include <mpi.h>
#endif

#define NLOC 200
static int rank, size;
static ng_context world;

/* Same status (and, when failed, the same message up to the rank prefix the
 * others add) on every rank; returns the status. */
static ng_status same_everywhere(ng_status st, const char *what)
{
  char msg[2048];
  snprintf(msg, sizeof(msg), "%s", st ? ng_last_error() : "");
#ifdef NG_HAVE_MPI
  int v = (int)st, lo, hi;
  MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  ck_assert_msg(lo == hi, "%s: ranks disagree: status %s..%s (rank %d: %s)", what, ng_status_name((ng_status)lo),
                ng_status_name((ng_status)hi), rank, msg);
#endif
  if (rank == 0 && st) printf("%-40s %s: %.200s\n", what, ng_status_name(st), msg); /* for the log */
  return st;
}

/* The failing rank's own message, or "rank R failed: " and it elsewhere. */
static void assert_names(ng_status st, const char *what, int bad_rank, const char *needle)
{
  const char *m = ng_last_error();
  ck_assert_msg(st != NG_SUCCESS, "%s: succeeded on rank %d", what, rank);
  ck_assert_msg(strstr(m, needle) != NULL, "%s: rank %d's message lacks '%s': %s", what, rank, needle, m);
  if (rank != bad_rank) {
    char pre[64];
    snprintf(pre, sizeof(pre), "rank %d failed", bad_rank);
    ck_assert_msg(strstr(m, pre) != NULL, "%s: rank %d's message does not name rank %d: %s", what, rank, bad_rank, m);
  }
}

typedef struct {
  int64_t rowptr[NLOC + 1], col[3 * NLOC];
  double val[3 * NLOC];
} local_rows;

/* This rank's rows of the 1D Laplacian (2, -1), n_global = NLOC * size. */
static void laplacian(local_rows *L)
{
  int64_t n = (int64_t)NLOC * size, first = (int64_t)NLOC * rank, p = 0;
  L->rowptr[0] = 0;
  for (int i = 0; i < NLOC; i++) {
    int64_t g = first + i;
    if (g > 0) { L->col[p] = g - 1; L->val[p++] = -1.0; }
    L->col[p] = g; L->val[p++] = 2.0;
    if (g + 1 < n) { L->col[p] = g + 1; L->val[p++] = -1.0; }
    L->rowptr[i + 1] = p;
  }
}

static ng_status create(const local_rows *L, ng_matrix *A)
{
  return ng_matrix_create_distributed(world, (int64_t)NLOC * size, (int64_t)NLOC * rank,
                                      (int64_t)NLOC * (rank + 1), L->rowptr, L->col, L->val, A);
}

START_TEST(nan_value_on_one_rank)
{
  local_rows L;
  ng_matrix A = NULL;
  laplacian(&L);
  if (rank == size - 1) L.val[L.rowptr[NLOC / 2]] = NAN;
  ng_status st = same_everywhere(create(&L, &A), "NaN value on the last rank");
  assert_names(st, "NaN value", size - 1, "not finite");
  ck_assert_ptr_null(A);
}
END_TEST

START_TEST(column_out_of_range_on_one_rank)
{
  local_rows L;
  ng_matrix A = NULL;
  laplacian(&L);
  if (rank == size - 1) L.col[L.rowptr[NLOC - 1]] = (int64_t)NLOC * size + 7;
  ng_status st = same_everywhere(create(&L, &A), "column out of range on the last rank");
  assert_names(st, "column out of range", size - 1, "column");
  ck_assert_ptr_null(A);
}
END_TEST

static const char *setups[] = {"-solver pcg -precond jacobi", "-solver pcg -precond amg",
                               "-solver pbicgstab -precond amg"};

/* Zero diagonal on the last rank's rows: the preconditioner's setup fails
 * there (the diagonal inverse), set_operator fails on every rank. */
START_TEST(zero_diagonal_on_one_rank)
{
  local_rows L;
  ng_matrix A;
  laplacian(&L);
  if (rank == size - 1)
    for (int i = NLOC / 4; i < NLOC / 2; i++)
      for (int64_t p = L.rowptr[i]; p < L.rowptr[i + 1]; p++)
        if (L.col[p] == (int64_t)NLOC * rank + i) L.val[p] = 0.0;
  NG_ASSERT_OK(create(&L, &A));
  for (int k = 0; k < (int)(sizeof(setups) / sizeof(setups[0])); k++) {
    ng_options o;
    ng_solver S;
    NG_ASSERT_OK(ng_options_create(&o));
    NG_ASSERT_OK(ng_options_set_from_string(o, setups[k]));
    NG_ASSERT_OK(ng_solver_create(world, o, &S));
    char what[96];
    snprintf(what, sizeof(what), "zero diagonal, %s", setups[k]);
    ng_status st = same_everywhere(ng_solver_set_operator(S, A), what);
    assert_names(st, what, size - 1, "diagonal");
    ng_solver_destroy(S);
    ng_options_destroy(o);
  }
  ng_matrix_destroy(A);
}
END_TEST

/* NaN in the last rank's part of b: every rank stops before iterating. */
START_TEST(nan_in_b_on_one_rank)
{
  local_rows L;
  ng_matrix A;
  ng_vector b, x;
  laplacian(&L);
  NG_ASSERT_OK(create(&L, &A));
  NG_ASSERT_OK(ng_vector_create(A, &b));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  for (int k = 0; k < 2; k++) {
    ng_options o;
    ng_solver S;
    double h[NLOC];
    for (int i = 0; i < NLOC; i++) h[i] = 1.0;
    if (rank == size - 1) h[NLOC - 1] = NAN;
    NG_ASSERT_OK(ng_vector_set_values(b, h));
    NG_ASSERT_OK(ng_vector_fill(x, 0.0));
    NG_ASSERT_OK(ng_options_create(&o));
    NG_ASSERT_OK(ng_options_set_from_string(o, setups[k]));
    NG_ASSERT_OK(ng_solver_create(world, o, &S));
    NG_ASSERT_OK(ng_solver_set_operator(S, A));
    char what[96];
    snprintf(what, sizeof(what), "NaN in b, %s", setups[k]);
    ng_status st = same_everywhere(ng_solver_solve(S, b, x), what);
    ck_assert_msg(st == NG_ERR_NUMERIC, "%s: %s: %s", what, ng_status_name(st), ng_last_error());
    ck_assert_msg(strstr(ng_last_error(), "right-hand side") != NULL, "%s: %s", what, ng_last_error());
    ng_solver_destroy(S);
    ng_options_destroy(o);
  }
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
}
END_TEST

int main(void)
{
  if (ng_context_create("cpu", &world) != NG_SUCCESS) {
    fprintf(stderr, "context: %s\n", ng_last_error());
    return 1;
  }
  ng_context_rank(world, &rank, &size);
  Suite *s = suite_create("mpi_fault");
  TCase *tc = tcase_create("mpi_fault");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, nan_value_on_one_rank);
  tcase_add_test(tc, column_out_of_range_on_one_rank);
  tcase_add_test(tc, zero_diagonal_on_one_rank);
  tcase_add_test(tc, nan_in_b_on_one_rank);
  suite_add_tcase(s, tc);
  int rc = ng_test_run(s);
  int worst = rc;
#ifdef NG_HAVE_MPI
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#endif
  ng_context_destroy(world);
  return worst;
}
