/* bench/peers/peer_hypre.c: hypre BoomerAMG-preconditioned PCG on a Matrix
 * Market file (one rank), b = 1, x0 = 0, relative tolerance 1e-8 (hypre's
 * PCG with two-norm of the residual), hypre's default BoomerAMG (HMIS
 * coarsening, extended+i interpolation, hybrid symmetric Gauss-Seidel), one
 * V-cycle per application. Prints one JSON line: matrix, solver, setup_s,
 * solve_s, iterations, final relative residual (hypre's recurrence) and the
 * true one, ||b - A x|| / ||b|| computed here from the file's matrix.
 *   peer_hypre FILE.mtx [strong_threshold]   (default 0.25; hypre advises 0.5 in 3D) */
#include "mtx_read.h"
#include <mpi.h>
#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <math.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  if (argc < 2) { fprintf(stderr, "usage: peer_hypre FILE.mtx [strong_threshold]\n"); return 2; }
  double theta = argc > 2 ? atof(argv[2]) : 0.25;
  peer_csr A;
  if (peer_read_mtx(argv[1], &A)) return 1;
  char name[256];
  peer_case_name(argv[1], name, sizeof name);
  HYPRE_Init();
  int n = A.n;
  HYPRE_IJMatrix Aij;
  HYPRE_IJVector bij, xij;
  HYPRE_IJMatrixCreate(MPI_COMM_WORLD, 0, n - 1, 0, n - 1, &Aij);
  HYPRE_IJMatrixSetObjectType(Aij, HYPRE_PARCSR);
  HYPRE_IJMatrixInitialize(Aij);
  for (int i = 0; i < n; i++) {
    HYPRE_Int nc = (HYPRE_Int)(A.rowptr[i + 1] - A.rowptr[i]), row = i;
    HYPRE_Int *cols = malloc(sizeof(HYPRE_Int) * (size_t)(nc + 1));
    for (int k = 0; k < nc; k++) cols[k] = A.col[A.rowptr[i] + k];
    HYPRE_IJMatrixSetValues(Aij, 1, &nc, &row, cols, A.val + A.rowptr[i]);
    free(cols);
  }
  HYPRE_IJMatrixAssemble(Aij);
  HYPRE_ParCSRMatrix parA;
  HYPRE_IJMatrixGetObject(Aij, (void **)&parA);
  double *ones = malloc(sizeof(double) * (size_t)n), *zeros = calloc((size_t)n, sizeof(double));
  HYPRE_Int *idx = malloc(sizeof(HYPRE_Int) * (size_t)n);
  for (int i = 0; i < n; i++) { ones[i] = 1.0; idx[i] = i; }
  HYPRE_IJVectorCreate(MPI_COMM_WORLD, 0, n - 1, &bij);
  HYPRE_IJVectorSetObjectType(bij, HYPRE_PARCSR);
  HYPRE_IJVectorInitialize(bij);
  HYPRE_IJVectorSetValues(bij, n, idx, ones);
  HYPRE_IJVectorAssemble(bij);
  HYPRE_IJVectorCreate(MPI_COMM_WORLD, 0, n - 1, &xij);
  HYPRE_IJVectorSetObjectType(xij, HYPRE_PARCSR);
  HYPRE_IJVectorInitialize(xij);
  HYPRE_IJVectorSetValues(xij, n, idx, zeros);
  HYPRE_IJVectorAssemble(xij);
  HYPRE_ParVector b, x;
  HYPRE_IJVectorGetObject(bij, (void **)&b);
  HYPRE_IJVectorGetObject(xij, (void **)&x);

  HYPRE_Solver pcg, amg;
  HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
  HYPRE_PCGSetTol(pcg, 1e-8);
  HYPRE_PCGSetMaxIter(pcg, 5000);
  HYPRE_PCGSetTwoNorm(pcg, 1);
  HYPRE_BoomerAMGCreate(&amg);
  HYPRE_BoomerAMGSetStrongThreshold(amg, theta);
  HYPRE_BoomerAMGSetMaxIter(amg, 1);
  HYPRE_BoomerAMGSetTol(amg, 0.0);
  HYPRE_PCGSetPrecond(pcg, (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSolve, (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSetup, amg);
  double t0 = MPI_Wtime();
  HYPRE_ParCSRPCGSetup(pcg, parA, b, x);
  double t1 = MPI_Wtime();
  HYPRE_ParCSRPCGSolve(pcg, parA, b, x);
  double t2 = MPI_Wtime();
  HYPRE_Int its;
  double rel;
  HYPRE_PCGGetNumIterations(pcg, &its);
  HYPRE_PCGGetFinalRelativeResidualNorm(pcg, &rel);
  /* the true residual of the returned x, b = 1: hypre reports its recurrence's */
  double *xv = malloc(sizeof(double) * (size_t)n);
  HYPRE_IJVectorGetValues(xij, n, idx, xv);
  double rr = 0.0;
  for (int i = 0; i < n; i++) {
    double ax = 0.0;
    for (long k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) ax += A.val[k] * xv[A.col[k]];
    rr += (1.0 - ax) * (1.0 - ax);
  }
  printf("{\"matrix\": \"%s\", \"solver\": \"boomeramg-pcg\", \"strong_threshold\": %g, \"setup_s\": %.4f, \"solve_s\": %.4f, "
         "\"iterations\": %d, \"rel_residual\": %.3e, \"true_residual\": %.3e}\n",
         name, theta, t1 - t0, t2 - t1, (int)its, rel, sqrt(rr / n));
  free(xv);
  HYPRE_BoomerAMGDestroy(amg);
  HYPRE_ParCSRPCGDestroy(pcg);
  HYPRE_IJMatrixDestroy(Aij);
  HYPRE_IJVectorDestroy(bij);
  HYPRE_IJVectorDestroy(xij);
  HYPRE_Finalize();
  MPI_Finalize();
  return 0;
}
