/* examples/nagare_solve.c: the nagare-solve command. Solves a Matrix Market
 * file (rhs from -rhs FILE, else b = A*ones) or a generated problem
 * (-problem fem27:64), prints the solve report, writes x with -o FILE and
 * the report as JSON with -json FILE (-json -: on standard output, everything
 * else the program prints then goes to standard error) and the residual
 * history with -history FILE.
 *   nagare-solve [matrix.mtx[.gz]] [-rhs b.mtx] [-problem spec] [-o x.mtx] [-json FILE] [-history FILE] [options]
 *   nagare-solve -version    (version and build features; man page nagare-solve(1)) */
#include "nagare.h"
#include "build_info.h"
#include "progress.h"
#include "report.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* NG_EX_CALL that releases what exists before exiting (no leaks on errors:
 * the sanitizer tree's leak check runs every bad-input case). */
#define TRY(call)                                                            \
  do {                                                                       \
    ng_status try_s_ = (call);                                               \
    if (try_s_ != NG_SUCCESS) { rc = ng_example_fail(#call, try_s_); goto done; } \
  } while (0)

/* The -json destination on rank 0 (NULL elsewhere or without -json). "-" is
 * the original standard output, and stdout itself is pointed at stderr, so
 * that the text report, -monitor and -amg_view cannot mix into the JSON. */
static ng_status open_json(ng_context ctx, const char *path, FILE **json, char *why, size_t len)
{
  int rank = 0, fd;
  *json = NULL;
  if (!path || !*path) return NG_SUCCESS;
  ng_context_rank(ctx, &rank, NULL);
  if (!strcmp(path, "-")) {
    fflush(stdout);
    if ((fd = dup(STDOUT_FILENO)) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
      snprintf(why, len, "-json -: cannot redirect standard output: %s", strerror(errno));
      return NG_ERR_IO;
    }
    if (rank != 0) return close(fd), NG_SUCCESS;
    *json = fdopen(fd, "w");
  } else if (rank == 0) {
    *json = fopen(path, "w");
  } else {
    return NG_SUCCESS;
  }
  if (!*json) {
    snprintf(why, len, "-json %s: cannot open for writing: %s", path, strerror(errno));
    return NG_ERR_IO;
  }
  return NG_SUCCESS;
}

/* TRY with a progress line (progress.h) when the call takes long. */
#define PHASE(what, call)                                                    \
  do {                                                                       \
    ng_example_progress_begin(what);                                         \
    ng_status phase_s_ = (call);                                             \
    ng_example_progress_end();                                               \
    if (phase_s_ != NG_SUCCESS) { rc = ng_example_fail(#call, phase_s_); goto done; } \
  } while (0)

int main(int argc, char **argv)
{
  ng_context ctx = NULL;
  ng_options opts = NULL;
  ng_matrix A = NULL;
  ng_vector b = NULL, x = NULL, ones = NULL;
  const char *problem, *device, *rhs, *out, *format, *json_path, *history_path, *progress, *path = NULL;
  double progress_after = 2.0;
  char phase[512];
  FILE *json = NULL, *history = NULL;
  int rc = 0;
  ng_status st = NG_SUCCESS;
  if (ng_example_version_requested(argc, argv)) {
    ng_example_print_version(argv[0], stdout);
    return 0;
  }
  TRY(ng_options_create(&opts));
  TRY(ng_example_register_options(opts));
  TRY(ng_options_register(opts, "json", "",
                          "write the solve's result as one JSON object to this file (rank 0); -: to standard output, "
                          "with the text report on standard error"));
  TRY(ng_options_register(opts, "history", "",
                          "write the residual norm history to this file (rank 0): one line per iteration, "
                          "\"iteration ||r|| ||r||/||r0||\", from iteration 0"));
  TRY(ng_options_register(opts, "progress", "2",
                          "seconds after which a long phase (reading, generating, setup, solve, writing) is "
                          "announced on stderr (rank 0), again every 10 s and with its time at the end; "
                          "negative: never"));
  if (argc == 2 && !strcmp(argv[1], "-help-markdown")) { /* doc/user-guide.md's option reference */
    ng_options_print_markdown(opts, stdout);
    ng_options_destroy(opts);
    return 0;
  }
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
  TRY(ng_options_get_string(opts, "json", &json_path));
  TRY(ng_options_get_string(opts, "history", &history_path));
  TRY(ng_options_get_string(opts, "progress", &progress));
  {
    char *end;
    progress_after = strtod(progress, &end);
    if (end == progress || *end) {
      fprintf(stderr, "error: option -progress: '%s' is not a number of seconds\n", progress);
      rc = 1;
      goto done;
    }
  }
  TRY(ng_context_create(device, &ctx));
  TRY(ng_example_apply_binding(ctx, opts));
  {
    int rank = 0;
    ng_context_rank(ctx, &rank, NULL);
    ng_example_progress_init(rank == 0 ? progress_after : -1.0);
  }
  /* before the solve: an unwritable file is found before a long run */
  {
    char why[512];
    if (open_json(ctx, json_path, &json, why, sizeof(why)) != NG_SUCCESS) {
      rc = ng_example_fail(why, NG_ERR_IO);
      goto done;
    }
    int rank = 0;
    ng_context_rank(ctx, &rank, NULL);
    if (rank == 0 && history_path && *history_path && !(history = fopen(history_path, "w"))) {
      snprintf(why, sizeof(why), "-history %s: cannot open for writing: %s", history_path, strerror(errno));
      rc = ng_example_fail(why, NG_ERR_IO);
      goto done;
    }
  }
  if (path) {
    snprintf(phase, sizeof(phase), "reading %s", path);
    PHASE(phase, ng_matrix_read_mtx(ctx, path, &A));
    TRY(ng_vector_create(A, &b));
    if (rhs && *rhs) {
      snprintf(phase, sizeof(phase), "reading %s", rhs);
      PHASE(phase, ng_vector_read_mtx(b, rhs));
    } else {
      TRY(ng_vector_create(A, &ones));
      TRY(ng_vector_fill(ones, 1.0));
      TRY(ng_matrix_apply(A, ones, b));
      ng_vector_destroy(ones);
      ones = NULL;
    }
  } else {
    snprintf(phase, sizeof(phase), "generating %s", problem);
    PHASE(phase, ng_matrix_generate(ctx, problem, &A, &b));
    path = problem;
  }
  if (format && *format && strcmp(format, "csr")) {
    snprintf(phase, sizeof(phase), "converting the matrix to format %s", format);
    PHASE(phase, ng_matrix_set_format(A, format));
  }
  TRY(ng_vector_create(A, &x));
  st = ng_example_solve_and_report(ctx, opts, A, b, x, path, json, history);
  if (st != NG_SUCCESS) ng_example_fail("solve", st);
  if (out && *out) {
    snprintf(phase, sizeof(phase), "writing %s", out);
    ng_example_progress_begin(phase);
    ng_status wst = ng_vector_write_mtx(x, out);
    ng_example_progress_end();
    if (wst != NG_SUCCESS) st = (ng_status)ng_example_fail("writing the solution", wst);
  }
  if (st != NG_SUCCESS) rc = 1;
done:
  if (json && fclose(json) != 0) {
    fprintf(stderr, "error: -json %s: writing failed: %s\n", json_path, strerror(errno));
    rc = 1;
  }
  if (history && fclose(history) != 0) {
    fprintf(stderr, "error: -history %s: writing failed: %s\n", history_path, strerror(errno));
    rc = 1;
  }
  ng_vector_destroy(ones);
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
  ng_options_destroy(opts);
  ng_context_destroy(ctx);
  return rc;
}
