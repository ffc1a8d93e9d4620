/* bench/peers/write_mtx.c: writes nagare's generated problems as Matrix
 * Market files with nagare's own writer (ng_matrix_write_mtx), for the
 * peer programs: write_mtx SPEC FILE.mtx (e.g. het7:64 het7_64.mtx). */
#include "nagare.h"
#include <stdio.h>

int main(int argc, char **argv)
{
  ng_context ctx;
  ng_matrix A;
  if (argc != 3) { fprintf(stderr, "usage: write_mtx SPEC FILE.mtx\n"); return 2; }
  if (ng_context_create("cpu", &ctx) || ng_matrix_generate(ctx, argv[1], &A, NULL) || ng_matrix_write_mtx(A, argv[2])) {
    fprintf(stderr, "write_mtx %s: %s\n", argv[1], ng_last_error());
    return 1;
  }
  ng_matrix_destroy(A);
  ng_context_destroy(ctx);
  return 0;
}
