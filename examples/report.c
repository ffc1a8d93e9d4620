/* examples/report.c: solve and report, shared by the example programs.
 * Under MPI rank 0 also prints one row per rank (rows, nonzeros, halo,
 * neighbours, halo-exchange time, transport of each neighbour, seconds in the
 * preconditioner's own exchanges (the distributed AMG's coarse levels),
 * binding), gathered with MPI_Gather; the JSON report (-json) has them too,
 * with the AMG hierarchy, and -history the residual per iteration. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "report.h"
#include "progress.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef NG_HAVE_MPI
#include <mpi.h>
#endif

/* Each rank's row (rows, halo, exchange times, binding) gathered on rank 0
 * into *all (malloc'd, size entries; NULL on the other ranks). Collective. */
static ng_status gather_rank_rows(ng_context ctx, ng_matrix A, ng_solver S, ng_example_rank_row **all)
{
  ng_example_rank_row me;
  int rank, size;
  ng_status st;
  *all = NULL;
  memset(&me, 0, sizeof(me));
  ng_context_rank(ctx, &rank, &size);
  me.rank = rank;
  if ((st = ng_matrix_get_comm_info(A, &me.rows, &me.halo, &me.neighbors, &me.comm_seconds))) return st;
  if ((st = ng_matrix_get_local_nnz(A, &me.nnz))) return st;
  if ((st = ng_solver_get_precond_comm_seconds(S, &me.amg_seconds))) return st;
  if ((st = ng_context_report_binding(ctx, me.binding, sizeof(me.binding)))) return st;
  if ((st = ng_matrix_get_transport(A, me.transport, sizeof(me.transport)))) return st;
  ng_example_rank_row *rows = NULL;
  if (rank == 0 && !(rows = malloc((size_t)size * sizeof(*rows)))) return NG_ERR_MEMORY;
  if (size == 1) {
    rows[0] = me;
    *all = rows;
    return NG_SUCCESS;
  }
#ifdef NG_HAVE_MPI
  if (MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, rows, (int)sizeof(me), MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
    free(rows);
    return NG_ERR_MPI;
  }
#endif
  *all = rows;
  return NG_SUCCESS;
}

/* One row per rank on rank 0 (the binding alone on one rank). */
static void print_rank_rows(const ng_example_rank_row *all, int size)
{
  if (size == 1) {
    printf("binding            : %s\n", all[0].binding);
    return;
  }
  printf("%5s %10s %12s %8s %5s %10s %10s  %-16s %s\n", "rank", "rows", "nonzeros", "halo", "nbrs", "comm s",
         "amg comm s", "transport", "binding");
  for (int r = 0; r < size; r++)
    printf("%5d %10d %12lld %8d %5d %10.4f %10.4f  %-16s %s\n", all[r].rank, (int)all[r].rows, (long long)all[r].nnz,
           (int)all[r].halo, all[r].neighbors, all[r].comm_seconds, all[r].amg_seconds, all[r].transport,
           all[r].binding);
}

int ng_example_write_history(FILE *f, const double *history, int length)
{
  for (int k = 0; k < length; k++)
    fprintf(f, "%d %.10e %.10e\n", k, history[k], history[0] > 0 ? history[k] / history[0] : history[k]);
  fflush(f);
  return ferror(f) ? -1 : 0;
}

ng_status ng_example_register_options(ng_options opts)
{
  return ng_options_register(opts, "bind_memory", "0",
                             "bind each rank's memory to the NUMA node(s) of its cores or GPU (hwloc; also NG_BIND_MEMORY=1)");
}

ng_status ng_example_apply_binding(ng_context ctx, ng_options opts)
{
  int bind = 0;
  const char *transport = "";
  ng_status st = ng_options_get_bool(opts, "bind_memory", &bind);
  if (st == NG_SUCCESS && bind) st = ng_context_bind_memory(ctx);
  if (st == NG_SUCCESS) st = ng_options_get_string(opts, "comm_transport", &transport);
  if (st == NG_SUCCESS && transport && *transport) st = ng_context_set_transport(ctx, transport);
  if (st == NG_SUCCESS) st = ng_options_apply_spmv(opts); /* -csr_spmv_alg, before the matrix is built */
  return st;
}

int ng_example_fail(const char *what, ng_status st)
{
  const char *msg = ng_last_error();
  fprintf(stderr, "error: %s: %s%s%s\n", what, ng_status_name(st), *msg ? ": " : "", msg);
#ifdef NG_HAVE_MPI
  /* the library's collective calls fail on every rank together; a step of
   * the program's own that failed on this rank alone must not leave the
   * others waiting for it. NG_EXAMPLE_NO_ABORT=1 (the MPI fault tests)
   * turns this safety net off, so every rank must fail and exit by itself:
   * a library step that does not agree on an error then shows as a hang. */
  const char *noabort = getenv("NG_EXAMPLE_NO_ABORT");
  int init = 0, fin = 0, size = 1;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1 && !(noabort && !strcmp(noabort, "1"))) {
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
#endif
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
                                      ng_vector x, const char *problem, FILE *json, FILE *history)
{
  ng_solver S;
  int rank, size, its = 0;
  int64_t n, nnz;
  double setup = 0, solve = 0, rel = 0, truerel = 0, removed = 0;
  int nnull = 0;
  const char *solver = "", *precond = "";
  ng_status st, solve_st;
  ng_context_rank(ctx, &rank, &size);
  ng_matrix_get_size(A, &n, NULL, &nnz);
  char phase[128];
  if ((st = ng_solver_create(ctx, opts, &S))) return st;
  if ((st = ng_options_get_string(opts, "precond", &precond))) { ng_solver_destroy(S); return st; }
  snprintf(phase, sizeof(phase), "setting up the %s preconditioner", precond);
  ng_example_progress_begin(phase);
  st = ng_solver_set_operator(S, A);
  ng_example_progress_end();
  if (st) { ng_solver_destroy(S); return st; }
  /* what runs (pcg is cg), not what the options say */
  if ((st = ng_solver_get_method(S, &solver, &precond))) { ng_solver_destroy(S); return st; }
  snprintf(phase, sizeof(phase), "solving with %s / %s", solver, precond);
  ng_example_progress_begin(phase);
  solve_st = ng_solver_solve(S, b, x);
  ng_example_progress_end();
  if (solve_st != NG_SUCCESS && solve_st != NG_ERR_NOT_CONVERGED && solve_st != NG_ERR_BREAKDOWN &&
      solve_st != NG_ERR_DIVERGED) {
    ng_solver_destroy(S);
    return solve_st;
  }
  ng_solver_get_iterations(S, &its);
  ng_solver_get_residual(S, &rel);
  ng_solver_get_times(S, &setup, &solve);
  ng_solver_get_null_space_size(S, &nnull);
  ng_solver_get_rhs_null_component(S, &removed);
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
    if (nnull) /* the recomputed residual cannot go below b's removed part */
      printf("null space         : %d vector%s; b's component in it, removed: %.3e of ||b|| (the rhs inconsistency)\n",
             nnull, nnull == 1 ? "" : "s", removed);
    printf("setup time         : %.3f s\n", setup);
    printf("solve time         : %.3f s (%.3f ms/iteration)\n", solve, its ? 1e3 * solve / its : 0.0);
    fflush(stdout);
  }
  ng_example_rank_row *all = NULL;
  if ((st = gather_rank_rows(ctx, A, S, &all))) { ng_solver_destroy(S); return st; }
  if (rank == 0) print_rank_rows(all, size);
  if (rank == 0 && json) {
    enum { MAX_LEVELS = 64 };
    int64_t level_rows[MAX_LEVELS], level_nnz[MAX_LEVELS];
    ng_precond P = NULL;
    ng_example_result r = {.problem = problem, .device = ng_context_describe(ctx), .solver = solver,
                           .precond = precond, .format = ng_matrix_format(A), .message = ng_last_error(),
                           .n = n, .nnz = nnz, .ranks = size, .iterations = its, .null_space_vectors = nnull,
                           .status = solve_st, .relative_residual = rel, .relative_residual_recomputed = truerel,
                           .setup_s = setup, .solve_s = solve, .rank_rows = all,
                           .level_rows = level_rows, .level_nnz = level_nnz};
    ng_solver_get_history(S, &r.history, &r.history_length);
    int on_device = 0;
    ng_context_on_gpu(ctx, &on_device);
    r.memory_space = on_device ? "device" : "host";
    ng_solver_get_memory(S, on_device, r.memory);
    r.memory_rows = all ? all[0].rows : n;
    ng_solver_get_precond(S, &P);
    if (P && ng_precond_get_levels(P, &r.amg_levels, level_rows, level_nnz, MAX_LEVELS) == NG_SUCCESS &&
        r.amg_levels > MAX_LEVELS)
      r.amg_levels = MAX_LEVELS;
    if (ng_example_write_json(json, &r)) fprintf(stderr, "error: writing the JSON report failed\n");
  }
  if (rank == 0 && history) {
    const double *h = NULL;
    int len = 0;
    ng_solver_get_history(S, &h, &len);
    if (ng_example_write_history(history, h, len)) fprintf(stderr, "error: writing the residual history failed\n");
  }
  free(all);
  ng_solver_destroy(S);
  return solve_st;
}
