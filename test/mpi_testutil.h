/* test/mpi_testutil.h: helpers shared by the MPI Check suites (test_mpi,
 * test_amg_mpi, test_transport, test_amg_dist_gpu): main()'s start and end
 * (one test seed for all ranks, CK_FORK=no, a context on every rank or a
 * skip, the worst result over the ranks), a random global matrix and row
 * partitions that are the same on every rank, this rank's rows of a whole
 * matrix, and a solve that reports its iterations. */
#ifndef NG_MPI_TESTUTIL_H
#define NG_MPI_TESTUTIL_H
#include "testutil.h"
#include "../solver/solver.h"

/* The most ranks the suites take (partition arrays are int64_t[65]). */
#define NG_MPI_TEST_MAX_RANKS 64

/* MPI_Init, this rank and the size; rank 0's test seed into NG_TEST_SEED
 * on every rank (random inputs must be the same everywhere); CK_FORK=no
 * (collectives cannot run in forked children). Returns 0 to go on, or the
 * exit code 77 (MPI already finalised) past NG_MPI_TEST_MAX_RANKS ranks. */
int ng_mpi_test_init(int *argc, char ***argv, int *rank, int *size);
/* *ctx on every rank of MPI_COMM_WORLD for resource ("cpu", "gpu"). Returns
 * 0, or (MPI finalised) 77 with "skipped: no CUDA device" when a rank has
 * no device, else 1 with the failure on rank 0. */
int ng_mpi_test_context(const char *resource, ng_context *ctx);
/* Runs s on every rank, destroys ctx, finalises MPI; returns the worst
 * rank's exit code (the job fails when any rank failed). */
int ng_mpi_test_finish(Suite *s, ng_context ctx);

/* A global random matrix, identical on every rank: n rows, a diagonal plus
 * up to 6 random columns per row, some far away so that most ranks
 * neighbour most others. */
typedef struct {
  int64_t n, *rp, *col;
  double *val;
} ng_test_gcsr;
void ng_test_gcsr_random(ng_test_gcsr *A, int64_t n);
void ng_test_gcsr_free(ng_test_gcsr *A);

/* Row ranges starts[0..size] tiling 0..n, the same on every rank: random
 * and uneven (rank 1 owns no rows when there are 3 or more ranks), or even
 * when random is 0. Draws size random numbers either way, so that the
 * partitions after it do not depend on the kinds before. */
void ng_mpi_test_starts(int64_t n, int random, int64_t *starts);
/* This rank's rows starts[rank]..starts[rank+1] of G, or of the whole CSR
 * W, as a distributed matrix on ctx. */
ng_status ng_mpi_test_rows(ng_context ctx, const ng_test_gcsr *G, const int64_t *starts, ng_matrix *A);
ng_status ng_mpi_test_csr_rows(ng_context ctx, const ng_csr *W, const int64_t *starts, ng_matrix *A);

/* Solves the generated problem spec (or the file path, b = 1) with the
 * options on ctx, asserting every call; returns the iterations, the
 * solver's residual in *res (when res is not NULL) and ||b - A x|| / ||b||
 * recomputed in *rec. */
/* z = M r on this rank's rows, r_i = 1 + sin(global row i): the same r on
 * every rank count (V-cycles compared across updates and partitions). */
void ng_mpi_test_vcycle(ng_precond P, ng_matrix A, double *z);

/* A smooth, nonconstant value of global index g (tests' vectors by global
 * row, the same on every partition). */
double ng_mpi_test_value(int64_t g);
/* New values, same pattern, for A made from the whole W by starts: each
 * entry scaled by 1 + 0.2 sin(0.3 (i + j)), shift added on the diagonal
 * (an update that changes the values but keeps A positive definite). */
void ng_mpi_test_new_values(ng_matrix A, const ng_csr *W, const int64_t *starts, double shift);

int ng_mpi_test_solve(ng_context ctx, const char *spec, const char *path, const char *opts, double *res,
                      double *rec);
#endif
