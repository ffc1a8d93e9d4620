/* petsc/test_pcnagare.c: drives PC "nagare" from a PETSc KSP (CG) on the
 * 7-point Poisson matrix of an n^3 grid (MPIAIJ/SeqAIJ, rows split by PETSc),
 * b = A*1. Solves, then changes the values with the same pattern (a shifted,
 * scaled matrix, as a time step would) and solves again: the second setup
 * must be a value-only update. Fails (exit 1) when a solve does not converge,
 * takes maxits or more iterations, or the true residual is above 2*rtol.
 *   test_pcnagare [-n 24] [-maxits 30] -ksp_type cg -pc_type nagare [-nagare_...] */
#include "nagare_petsc.h"
#include <petscksp.h>

static PetscErrorCode assemble(Mat A, PetscInt n, PetscScalar diag_shift)
{
  PetscInt rstart, rend, nn = n * n;
  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt i = row % n, j = (row / n) % n, k = row / nn, cols[7], m = 0;
    PetscScalar v[7];
    if (k > 0) { cols[m] = row - nn; v[m++] = -1; }
    if (j > 0) { cols[m] = row - n; v[m++] = -1; }
    if (i > 0) { cols[m] = row - 1; v[m++] = -1; }
    cols[m] = row; v[m++] = 6 + diag_shift;
    if (i < n - 1) { cols[m] = row + 1; v[m++] = -1; }
    if (j < n - 1) { cols[m] = row + n; v[m++] = -1; }
    if (k < n - 1) { cols[m] = row + nn; v[m++] = -1; }
    PetscCall(MatSetValues(A, 1, &row, m, cols, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode solve(KSP ksp, Mat A, Vec b, Vec x, PetscInt maxits, const char *what, PetscBool *ok)
{
  Vec r;
  PetscInt its;
  PetscReal rn, bn, rtol;
  KSPConvergedReason reason;
  PetscFunctionBeginUser;
  PetscCall(VecSet(x, 0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1, b));
  PetscCall(VecNorm(r, NORM_2, &rn));
  PetscCall(VecNorm(b, NORM_2, &bn));
  PetscCall(VecDestroy(&r));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s, %" PetscInt_FMT " iterations, true relative residual %.3e\n", what,
                        KSPConvergedReasons[reason], its, (double)(rn / bn)));
  if (reason <= 0 || its >= maxits || rn / bn > 2 * rtol) *ok = PETSC_FALSE;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat A;
  Vec x, b;
  KSP ksp;
  PC pc;
  PetscInt n = 24, maxits = 30, setups = -1, updates = -1;
  PetscMPIInt size;
  PetscBool ok = PETSC_TRUE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PCNagareRegister());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxits", &maxits, NULL));
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n * n * n, n * n * n, 7, NULL, 6, NULL, &A));
  PetscCall(MatSetFromOptions(A));
  PetscCall(assemble(A, n, 0));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(x, 1));
  PetscCall(MatMult(A, x, b));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNAGARE));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_pcnagare: %" PetscInt_FMT "^3 Poisson on %d rank(s)\n", n, (int)size));
  PetscCall(solve(ksp, A, b, x, maxits, "solve 1 (fresh setup)", &ok));

  /* a "time step": new values, same pattern */
  PetscCall(assemble(A, n, 0.5));
  PetscCall(MatScale(A, 2.0));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(solve(ksp, A, b, x, maxits, "solve 2 (values only)", &ok));
  PetscCall(PCNagareGetSetupCounts(pc, &setups, &updates));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fresh setups %" PetscInt_FMT ", value updates %" PetscInt_FMT "\n", setups, updates));
  if (setups != 1 || updates != 1) ok = PETSC_FALSE;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", ok ? "PASSED" : "FAILED"));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return ok ? 0 : 1;
}
