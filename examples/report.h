/* examples/report.h: the solve report shared by poisson3d and nagare-solve
 * (problem size, iterations, residuals, setup/solve times), printed on rank 0. */
#ifndef NG_EXAMPLES_REPORT_H
#define NG_EXAMPLES_REPORT_H
#include "nagare.h"
#include <stdio.h>

/* Prints a failed call's status and message on stderr and returns 1. */
int ng_example_fail(const char *what, ng_status st);
#define NG_EX_CALL(call)                                 \
  do {                                                   \
    ng_status ng_ex_s_ = (call);                         \
    if (ng_ex_s_ != NG_SUCCESS) return ng_example_fail(#call, ng_ex_s_); \
  } while (0)

/* -bind_memory: registered before parsing, applied after the context exists
 * (with -comm_transport, a library option that needs the context too, and
 * -csr_spmv_alg, which must come before the matrix is built). */
ng_status ng_example_register_options(ng_options opts);
ng_status ng_example_apply_binding(ng_context ctx, ng_options opts);

/* ||b - A x|| / ||b|| recomputed from scratch (independent of the solver's
 * recursive residual). */
ng_status ng_example_true_residual(ng_matrix A, ng_vector b, ng_vector x, double *rel);

/* One rank's row of the MPI report (gathered on rank 0): its rows, local
 * nonzeros, halo, neighbours, seconds in halo exchanges and in the
 * preconditioner's own exchanges, transport and binding. */
typedef struct {
  int rank, neighbors;
  int32_t rows, halo;
  int64_t nnz;
  double comm_seconds, amg_seconds;
  char transport[64];
  char binding[200];
} ng_example_rank_row;

/* What one solve gave: the report's numbers (rank 0's view; the norms and
 * sizes are global). history: ||r0||, then ||r|| after each iteration. */
typedef struct {
  const char *problem, *device, *solver, *precond, *format, *message;
  int64_t n, nnz;
  int ranks, iterations, null_space_vectors, history_length;
  ng_status status;
  double relative_residual, relative_residual_recomputed, setup_s, solve_s;
  const double *history;
  const ng_example_rank_row *rank_rows; /* nranks_rows = ranks entries, or NULL */
  int amg_levels;                       /* 0: no AMG hierarchy */
  const int64_t *level_rows, *level_nnz;
  /* rank 0's bytes (ng_solver_get_memory) in the context's memory space
   * (memory_space: "host" or "device"): matrix, hierarchy, setup peak,
   * Krylov; rows: rank 0's rows (bytes_per_row's divisor) */
  const char *memory_space;
  int64_t memory[4], memory_rows;
} ng_example_result;

/* Writes r as one JSON object (report_json.c); 0, or -1 on a write error. */
int ng_example_write_json(FILE *f, const ng_example_result *r);

/* Writes the residual history, one line per entry: "iteration ||r|| ||r||/||r0||"
 * (0, or -1 on a write error). */
int ng_example_write_history(FILE *f, const double *history, int length);

/* Solves A x = b with the options' solver and prints the report; json (rank
 * 0's, may be NULL) also receives it as one JSON object, history (rank 0's,
 * may be NULL) the residual history (ng_example_write_history). Returns the
 * solve status (NG_ERR_NOT_CONVERGED etc. are reported, not fatal). */
ng_status ng_example_solve_and_report(ng_context ctx, ng_options opts, ng_matrix A, ng_vector b,
                                      ng_vector x, const char *problem, FILE *json, FILE *history);
#endif
