/* examples/nagare_solve.c: the nagare-solve command. Solves a Matrix Market
 * file (rhs from -rhs FILE, else b = A*ones) or a generated problem
 * (-problem fem27:64), prints the solve report, writes x with -o FILE.
 *   nagare-solve [matrix.mtx[.gz]] [-rhs b.mtx] [-problem spec] [-o x.mtx] [options] */
#include "nagare.h"
#include "report.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
  ng_context ctx;
  ng_options opts;
  ng_matrix A;
  ng_vector b, x;
  const char *problem, *device, *rhs, *out, *format, *path = NULL;
  NG_EX_CALL(ng_options_create(&opts));
  NG_EX_CALL(ng_example_register_options(opts));
  NG_EX_CALL(ng_options_set_from_args(opts, &argc, argv, 1));
  if (ng_options_help_requested(opts)) {
    printf("usage: %s [matrix.mtx] [options]\n", argv[0]);
    ng_options_print_help(opts, stdout);
    ng_options_destroy(opts);
    return 0;
  }
  for (int i = 1; i < argc; i++) {
    if (path) {
      fprintf(stderr, "error: more than one matrix file given ('%s' and '%s')\n", path, argv[i]);
      return 2;
    }
    path = argv[i];
  }
  NG_EX_CALL(ng_options_get_string(opts, "device", &device));
  NG_EX_CALL(ng_options_get_string(opts, "problem", &problem));
  NG_EX_CALL(ng_options_get_string(opts, "rhs", &rhs));
  NG_EX_CALL(ng_options_get_string(opts, "o", &out));
  NG_EX_CALL(ng_options_get_string(opts, "format", &format));
  NG_EX_CALL(ng_context_create(device, &ctx));
  NG_EX_CALL(ng_example_apply_binding(ctx, opts));
  if (path) {
    NG_EX_CALL(ng_matrix_read_mtx(ctx, path, &A));
    NG_EX_CALL(ng_vector_create(A, &b));
    if (rhs && *rhs) {
      NG_EX_CALL(ng_vector_read_mtx(b, rhs));
    } else {
      ng_vector ones;
      NG_EX_CALL(ng_vector_create(A, &ones));
      NG_EX_CALL(ng_vector_fill(ones, 1.0));
      NG_EX_CALL(ng_matrix_apply(A, ones, b));
      ng_vector_destroy(ones);
    }
  } else {
    NG_EX_CALL(ng_matrix_generate(ctx, problem, &A, &b));
    path = problem;
  }
  if (format && *format && strcmp(format, "csr")) NG_EX_CALL(ng_matrix_set_format(A, format));
  NG_EX_CALL(ng_vector_create(A, &x));
  ng_status st = ng_example_solve_and_report(ctx, opts, A, b, x, path);
  if (st != NG_SUCCESS) ng_example_fail("solve", st);
  if (out && *out) {
    ng_status wst = ng_vector_write_mtx(x, out);
    if (wst != NG_SUCCESS) st = (ng_status)ng_example_fail("writing the solution", wst);
  }
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
  ng_options_destroy(opts);
  ng_context_destroy(ctx);
  return st == NG_SUCCESS ? 0 : 1;
}
