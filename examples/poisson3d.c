/* examples/poisson3d.c: the main job. Generates the Q1 FEM Poisson problem
 * (fem27) and solves it with AMG-preconditioned CG, on the GPU when there is
 * one, else the CPU; prints the AMG hierarchy (-amg_view: levels, rows, nnz,
 * complexities, setup phases), size, iterations, residual and times.
 *   poisson3d [-problem fem27:64] [-solver pcg] [-precond amg] [-tol 1e-8] ... */
#include "nagare.h"
#include "report.h"
#include <stdio.h>

int main(int argc, char **argv)
{
  ng_context ctx;
  ng_options opts;
  ng_matrix A;
  ng_vector b, x;
  const char *problem, *device;
  NG_EX_CALL(ng_options_create(&opts));
  NG_EX_CALL(ng_example_register_options(opts));
  NG_EX_CALL(ng_options_set_from_string(opts, "-problem fem27:64 -solver pcg -precond amg -amg_view -tol 1e-8"));
  NG_EX_CALL(ng_options_set_from_args(opts, &argc, argv, 1));
  if (ng_options_help_requested(opts)) {
    printf("usage: %s [options]\n", argv[0]);
    ng_options_print_help(opts, stdout);
    ng_options_destroy(opts);
    return 0;
  }
  NG_EX_CALL(ng_options_get_string(opts, "problem", &problem));
  NG_EX_CALL(ng_options_get_string(opts, "device", &device));
  NG_EX_CALL(ng_context_create(device, &ctx));
  NG_EX_CALL(ng_example_apply_binding(ctx, opts));
  NG_EX_CALL(ng_matrix_generate(ctx, problem, &A, &b));
  NG_EX_CALL(ng_vector_create(A, &x));
  ng_status st = ng_example_solve_and_report(ctx, opts, A, b, x, problem, NULL, NULL);
  if (st != NG_SUCCESS) ng_example_fail("solve", st);
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
  ng_options_destroy(opts);
  ng_context_destroy(ctx);
  return st == NG_SUCCESS ? 0 : 1;
}
