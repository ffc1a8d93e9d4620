/* examples/nagare_solve.c: the nagare-solve command. Solves a Matrix Market
 * file (rhs from -rhs FILE, else b = A*ones) or a generated problem
 * (-problem fem27:64), prints the solve report, writes x with -o FILE.
 *   nagare-solve [matrix.mtx[.gz]] [-rhs b.mtx] [-problem spec] [-o x.mtx] [options]
 *   nagare-solve -version    (version and build features; man page nagare-solve(1)) */
#include "nagare.h"
#include "build_info.h"
#include "report.h"
#include <stdio.h>
#include <string.h>

/* NG_EX_CALL that releases what exists before exiting (no leaks on errors:
 * the sanitizer tree's leak check runs every bad-input case). */
#define TRY(call)                                                            \
  do {                                                                       \
    ng_status try_s_ = (call);                                               \
    if (try_s_ != NG_SUCCESS) { rc = ng_example_fail(#call, try_s_); goto done; } \
  } while (0)

int main(int argc, char **argv)
{
  ng_context ctx = NULL;
  ng_options opts = NULL;
  ng_matrix A = NULL;
  ng_vector b = NULL, x = NULL, ones = NULL;
  const char *problem, *device, *rhs, *out, *format, *path = NULL;
  int rc = 0;
  ng_status st = NG_SUCCESS;
  if (ng_example_version_requested(argc, argv)) {
    ng_example_print_version(argv[0], stdout);
    return 0;
  }
  TRY(ng_options_create(&opts));
  TRY(ng_example_register_options(opts));
  TRY(ng_options_set_from_args(opts, &argc, argv, 1));
  if (ng_options_help_requested(opts)) {
    printf("usage: nagare-solve [matrix.mtx[.gz]] [-rhs b.mtx] [-o x.mtx] [options]\n"
           "       nagare-solve -problem fem27:64 [options]   (a generated problem; see -problem)\n"
           "       nagare-solve -version   (version, build features, GPUs visible)\n");
    ng_options_print_help(opts, stdout);
    ng_options_destroy(opts);
    return 0;
  }
  for (int i = 1; i < argc; i++) {
    if (path) {
      fprintf(stderr, "error: more than one matrix file given ('%s' and '%s')\n", path, argv[i]);
      ng_options_destroy(opts);
      return 2;
    }
    path = argv[i];
  }
  TRY(ng_options_get_string(opts, "device", &device));
  TRY(ng_options_get_string(opts, "problem", &problem));
  TRY(ng_options_get_string(opts, "rhs", &rhs));
  TRY(ng_options_get_string(opts, "o", &out));
  TRY(ng_options_get_string(opts, "format", &format));
  TRY(ng_context_create(device, &ctx));
  TRY(ng_example_apply_binding(ctx, opts));
  if (path) {
    TRY(ng_matrix_read_mtx(ctx, path, &A));
    TRY(ng_vector_create(A, &b));
    if (rhs && *rhs) {
      TRY(ng_vector_read_mtx(b, rhs));
    } else {
      TRY(ng_vector_create(A, &ones));
      TRY(ng_vector_fill(ones, 1.0));
      TRY(ng_matrix_apply(A, ones, b));
      ng_vector_destroy(ones);
      ones = NULL;
    }
  } else {
    TRY(ng_matrix_generate(ctx, problem, &A, &b));
    path = problem;
  }
  if (format && *format && strcmp(format, "csr")) TRY(ng_matrix_set_format(A, format));
  TRY(ng_vector_create(A, &x));
  st = ng_example_solve_and_report(ctx, opts, A, b, x, path);
  if (st != NG_SUCCESS) ng_example_fail("solve", st);
  if (out && *out) {
    ng_status wst = ng_vector_write_mtx(x, out);
    if (wst != NG_SUCCESS) st = (ng_status)ng_example_fail("writing the solution", wst);
  }
  if (st != NG_SUCCESS) rc = 1;
done:
  ng_vector_destroy(ones);
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
  ng_options_destroy(opts);
  ng_context_destroy(ctx);
  return rc;
}
