/* bench/peers/peer_petsc.c: PETSc CG preconditioned by GAMG (smoothed
 * aggregation, PETSc's defaults) on a Matrix Market file (one rank),
 * b = 1, x0 = 0, relative tolerance 1e-8 on the unpreconditioned residual
 * (as nagare and hypre; the true relative residual is printed too). PETSc options on the
 * command line after the file are honoured (e.g. -pc_gamg_threshold 0.02).
 * Prints one JSON line: matrix, solver, setup_s, solve_s, iterations.
 *   peer_petsc FILE.mtx [PETSc options] */
#include "mtx_read.h"
#include <petscksp.h>
#include "petsc_mat.h"

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  if (argc < 2) { fprintf(stderr, "usage: peer_petsc FILE.mtx [PETSc options]\n"); return 2; }
  peer_csr A;
  if (peer_read_mtx(argv[1], &A)) return 1;
  char name[256];
  peer_case_name(argv[1], name, sizeof name);
  int n = A.n;
  Mat M;
  PetscCall(peer_petsc_mat(&A, &M));
  PetscCall(MatSetOption(M, MAT_SPD, PETSC_TRUE));
  Vec b, x, r;
  PetscCall(MatCreateVecs(M, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(b, 1.0));
  PetscCall(VecSet(x, 0.0));
  KSP ksp;
  PC pc;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, M, M));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 5000));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED)); /* ||b - Ax|| / ||b||, as nagare and hypre */
  PetscCall(KSPSetFromOptions(ksp));
  double t0 = MPI_Wtime();
  PetscCall(KSPSetUp(ksp));
  double t1 = MPI_Wtime();
  PetscCall(KSPSolve(ksp, b, x));
  double t2 = MPI_Wtime();
  PetscInt its;
  PetscReal rn, bn;
  KSPConvergedReason reason;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(MatMult(M, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rn));
  PetscCall(VecNorm(b, NORM_2, &bn));
  printf("{\"matrix\": \"%s\", \"solver\": \"gamg-cg\", \"setup_s\": %.4f, \"solve_s\": %.4f, \"iterations\": %d, "
         "\"true_rel_residual\": %.3e, \"converged\": %d}\n",
         name, t1 - t0, t2 - t1, (int)its, (double)(rn / bn), reason > 0);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&M));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&r));
  PetscCall(PetscFinalize());
  return 0;
}
