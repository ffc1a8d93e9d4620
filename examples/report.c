/* examples/report.c: solve and report, shared by the example programs. */
#include "report.h"
#include <stdio.h>

int ng_example_fail(const char *what, ng_status st)
{
  fprintf(stderr, "error: %s: %s: %s\n", what, ng_status_name(st), ng_last_error());
  return 1;
}

ng_status ng_example_true_residual(ng_matrix A, ng_vector b, ng_vector x, double *rel)
{
  ng_vector r;
  double nb, nr;
  ng_status st = ng_vector_create(A, &r);
  if (st) return st;
  if (!(st = ng_matrix_apply(A, x, r)) && !(st = ng_vector_axpy(-1.0, b, r)) && !(st = ng_vector_norm2(r, &nr)) &&
      !(st = ng_vector_norm2(b, &nb)))
    *rel = nb > 0 ? nr / nb : nr;
  ng_vector_destroy(r);
  return st;
}

ng_status ng_example_solve_and_report(ng_context ctx, ng_options opts, ng_matrix A, ng_vector b,
                                      ng_vector x, const char *problem)
{
  ng_solver S;
  int rank, size, its = 0;
  int64_t n, nnz;
  double setup = 0, solve = 0, rel = 0, truerel = 0;
  const char *solver = "", *precond = "";
  ng_status st, solve_st;
  ng_context_rank(ctx, &rank, &size);
  ng_options_get_string(opts, "solver", &solver);
  ng_options_get_string(opts, "precond", &precond);
  ng_matrix_get_size(A, &n, NULL, &nnz);
  if ((st = ng_solver_create(ctx, opts, &S))) return st;
  if ((st = ng_solver_set_operator(S, A))) { ng_solver_destroy(S); return st; }
  solve_st = ng_solver_solve(S, b, x);
  if (solve_st != NG_SUCCESS && solve_st != NG_ERR_NOT_CONVERGED && solve_st != NG_ERR_BREAKDOWN &&
      solve_st != NG_ERR_DIVERGED) {
    ng_solver_destroy(S);
    return solve_st;
  }
  ng_solver_get_iterations(S, &its);
  ng_solver_get_residual(S, &rel);
  ng_solver_get_times(S, &setup, &solve);
  if ((st = ng_example_true_residual(A, b, x, &truerel))) { ng_solver_destroy(S); return st; }
  if (rank == 0) {
    printf("problem            : %s\n", problem);
    printf("device             : %s (%d rank%s)\n", ng_context_describe(ctx), size, size == 1 ? "" : "s");
    printf("unknowns           : %lld\n", (long long)n);
    printf("nonzeros           : %lld\n", (long long)nnz);
    printf("solver / precond   : %s / %s, format %s\n", solver, precond, ng_matrix_format(A));
    printf("status             : %s%s%s\n", ng_status_name(solve_st), solve_st ? ": " : "",
           solve_st ? ng_last_error() : "");
    printf("iterations         : %d\n", its);
    printf("relative residual  : %.6e (solver)  %.6e (recomputed ||b-Ax||/||b||)\n", rel, truerel);
    printf("setup time         : %.3f s\n", setup);
    printf("solve time         : %.3f s (%.3f ms/iteration)\n", solve, its ? 1e3 * solve / its : 0.0);
  }
  ng_solver_destroy(S);
  return solve_st;
}
