/* bench/scaling.c: one distributed solve, as a user runs it, reported as one
 * JSON line (rank 0) for scaling studies; bench/scaling.sh runs it on 1..N
 * ranks in strong and weak modes.
 *
 *   mpirun -np P bench/scaling -problem SPEC [-weak] [-repeat R] [solver options]
 *
 * -weak: SPEC ("lap27:256" or "lap27:NXxNYxNZ") is one rank's share; the
 * grid is stacked P times along z (the slab partition gives each rank one
 * share). Every other argument goes to the options (-solver, -precond, -tol,
 * -maxit, -format, -comm_transport, -amg_*). The setup is timed once (the
 * first ng_solver_set_operator); the solve is the median of R (default 3)
 * solves from x = 0 after one warm-up. exchange_s: the largest, over ranks,
 * of the seconds the timed solves spent in the matrix's halo exchanges plus
 * the preconditioner's, per solve; update_s: the median of three
 * ng_solver_set_operator calls on the same matrix (the preconditioner's
 * update, as after new values); setup_again_s: the median of three setups
 * of fresh solvers on the same matrix in the now warm process. Public API
 * only. */
#include <nagare.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OK(call)                                                                                           \
  do {                                                                                                     \
    ng_status s_ = (call);                                                                                 \
    if (s_ != NG_SUCCESS) {                                                                                \
      fprintf(stderr, "bench/scaling: %s -> %s: %s\n", #call, ng_status_name(s_), ng_last_error());        \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                        \
    }                                                                                                      \
  } while (0)

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* "lap27:256" or "lap27:AxBxC" stacked `p` times along z. */
static int weak_spec(const char *spec, int p, char *out, size_t len)
{
  const char *colon = strchr(spec, ':');
  long a, b, c;
  char rest[64] = "";
  if (!colon) return 0;
  if (sscanf(colon + 1, "%ldx%ldx%ld%63s", &a, &b, &c, rest) >= 3 ||
      (sscanf(colon + 1, "%ld%63s", &a, rest) >= 1 && (b = c = a)))
    ;
  else
    return 0;
  snprintf(out, len, "%.*s:%ldx%ldx%ld%s", (int)(colon - spec), spec, a, b, c * p, rest);
  return 1;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size, weak = 0, repeat = 3;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *problem = "lap27:64";
  char opts[2048] = "-solver pcg -precond amg -tol 1e-8", spec[128];
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-problem") && i + 1 < argc) problem = argv[++i];
    else if (!strcmp(argv[i], "-weak")) weak = 1;
    else if (!strcmp(argv[i], "-repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), " %s", argv[i]);
  }
  if (repeat < 1) repeat = 1;
  if (repeat > 15) repeat = 15;
  if (!weak) snprintf(spec, sizeof(spec), "%s", problem);
  else if (!weak_spec(problem, size, spec, sizeof(spec))) {
    if (!rank) fprintf(stderr, "bench/scaling: -weak needs a grid problem (lap27:N or lap27:AxBxC), not %s\n", problem);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  ng_context ctx;
  ng_options o;
  ng_matrix A;
  ng_vector b, x;
  ng_solver S;
  const char *format = NULL;
  OK(ng_context_create("auto", &ctx));
  OK(ng_options_create(&o));
  OK(ng_options_set_from_string(o, opts));
  OK(ng_options_get_string(o, "format", &format));
  {
    const char *transport = NULL;
    OK(ng_options_get_string(o, "comm_transport", &transport));
    if (transport && *transport) OK(ng_context_set_transport(ctx, transport));
  }
  OK(ng_matrix_generate(ctx, spec, &A, &b));
  if (format && *format && strcmp(format, "csr")) OK(ng_matrix_set_format(A, format));
  OK(ng_vector_create(A, &x));
  OK(ng_solver_create(ctx, o, &S));
  OK(ng_solver_set_operator(S, A));
  double setup = 0, solve = 0, t[16], c0 = 0, c1 = 0, pc0 = 0, pc1 = 0;
  int its = 0;
  OK(ng_solver_get_times(S, &setup, &solve));
  for (int r = 0; r <= repeat; r++) {
    if (r == 1) { /* after the warm-up */
      OK(ng_matrix_get_comm_info(A, NULL, NULL, NULL, &c0));
      OK(ng_solver_get_precond_comm_seconds(S, &pc0));
    }
    OK(ng_vector_fill(x, 0.0));
    ng_status st = ng_solver_solve(S, b, x);
    if (st != NG_SUCCESS && st != NG_ERR_NOT_CONVERGED) OK(st);
    OK(ng_solver_get_iterations(S, &its));
    double su;
    OK(ng_solver_get_times(S, &su, &t[r]));
  }
  OK(ng_matrix_get_comm_info(A, NULL, NULL, NULL, &c1));
  OK(ng_solver_get_precond_comm_seconds(S, &pc1));
  /* the update as a time-stepping code makes it: the same matrix set again
   * after new values (here the same ones), the median of three */
  double upd[3] = {0, 0, 0}, sv_;
  for (int k = 0; k < 3; k++) {
    OK(ng_solver_set_operator(S, A));
    OK(ng_solver_get_times(S, &upd[k], &sv_));
  }
  qsort(upd, 3, sizeof(double), cmp);
  /* the setup again in this warm process (a fresh solver each time, S
   * gone first): without the first setup's one-time costs (lazily loaded
   * kernels, the allocator's first growth), which make setup_s vary by
   * 20% between runs; the median of three */
  ng_solver_destroy(S);
  S = NULL;
  double again[3];
  for (int k = 0; k < 3; k++) {
    ng_solver S2;
    OK(ng_solver_create(ctx, o, &S2));
    OK(ng_solver_set_operator(S2, A));
    OK(ng_solver_get_times(S2, &again[k], &sv_));
    ng_solver_destroy(S2);
  }
  qsort(again, 3, sizeof(double), cmp);
  double ex = (c1 - c0 + pc1 - pc0) / repeat;
  MPI_Allreduce(MPI_IN_PLACE, &ex, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  qsort(t + 1, repeat, sizeof(double), cmp);
  solve = t[1 + repeat / 2];
  int64_t n;
  int32_t nloc;
  OK(ng_matrix_get_size(A, &n, &nloc, NULL));
  char tr[256] = "";
  OK(ng_matrix_get_transport(A, tr, sizeof(tr)));
  if (!rank) {
    const char *sv = NULL, *pc = NULL;
    OK(ng_options_get_string(o, "solver", &sv));
    OK(ng_options_get_string(o, "precond", &pc));
    printf("{\"bench\":\"scaling\",\"mode\":\"%s\",\"matrix\":\"%s\",\"ranks\":%d,\"n\":%lld,\"rows_per_rank\":%lld,"
           "\"solver\":\"%s\",\"precond\":\"%s\",\"format\":\"%s\",\"transport\":\"%s\",\"device\":\"%s\","
           "\"iterations\":%d,\"setup_s\":%.6g,\"setup_again_s\":%.6g,\"update_s\":%.6g,\"solve_s\":%.6g,\"ms_per_it\":%.6g,"
           "\"exchange_s\":%.6g}\n",
           weak ? "weak" : "strong", spec, size, (long long)n, (long long)(n / size), sv, pc, ng_matrix_format(A),
           ng_context_get_transport(ctx), ng_context_describe(ctx), its, setup, again[1], upd[1], solve, its ? solve * 1e3 / its : 0.0,
           ex);
    fflush(stdout);
  }
  ng_solver_destroy(S);
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
  ng_options_destroy(o);
  ng_context_destroy(ctx);
  MPI_Finalize();
  return 0;
}
