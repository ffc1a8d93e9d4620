/* test/install_hello.c: a program built against the installed nagare with
 * pkg-config only (test/installcheck.sh). Checks that the library it runs
 * with has the version pkg-config gave (argv[1]) and solves a small 3D
 * Poisson problem with AMG-PCG to 1e-8, the residual recomputed here. */
#include <nagare.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call) do { ng_status s_ = (call); if (s_ != NG_SUCCESS) { \
  fprintf(stderr, "FAIL: %s: %s: %s\n", #call, ng_status_name(s_), ng_last_error()); return 1; } } while (0)

int main(int argc, char **argv)
{
  ng_context ctx; ng_options opts; ng_matrix A; ng_vector b, x, r; ng_solver S;
  int its, major, minor, patch;
  double rnorm, bnorm;
  char v[64];
  CHECK(ng_version(&major, &minor, &patch));
  snprintf(v, sizeof v, "%d.%d.%d", major, minor, patch);
  if (argc < 2 || strcmp(argv[1], v) || strcmp(ng_version_string(), v)) {
    fprintf(stderr, "FAIL: library version %s (%s), pkg-config says %s\n", v, ng_version_string(), argc > 1 ? argv[1] : "?");
    return 1;
  }
  CHECK(ng_options_create(&opts));
  CHECK(ng_options_set_from_string(opts, "-solver pcg -precond amg -tol 1e-8 -device cpu"));
  CHECK(ng_context_create("cpu", &ctx));
  CHECK(ng_matrix_generate(ctx, "lap7:20", &A, &b));
  CHECK(ng_vector_create(A, &x)); CHECK(ng_vector_create(A, &r));
  CHECK(ng_vector_fill(x, 0.0));
  CHECK(ng_solver_create(ctx, opts, &S));
  CHECK(ng_solver_set_operator(S, A));
  CHECK(ng_solver_solve(S, b, x));
  CHECK(ng_solver_get_iterations(S, &its));
  CHECK(ng_matrix_apply(A, x, r));            /* r = b - A x */
  CHECK(ng_vector_axpy(-1.0, b, r));
  CHECK(ng_vector_norm2(r, &rnorm)); CHECK(ng_vector_norm2(b, &bnorm));
  printf("libnagare %s (%s): lap7:20 solved in %d iterations, ||b-Ax||/||b|| = %.2e\n", v, ng_context_describe(ctx), its,
         rnorm / bnorm);
  ng_solver_destroy(S); ng_vector_destroy(r); ng_vector_destroy(x); ng_vector_destroy(b); ng_matrix_destroy(A);
  ng_options_destroy(opts); ng_context_destroy(ctx);
  if (!(rnorm <= 1.05e-8 * bnorm) || its < 1 || its > 30) { fprintf(stderr, "FAIL: residual or iterations\n"); return 1; }
  return 0;
}
