/* bench/peers/peer_petsc_null.c: issue 32's comparison. PETSc CG on a
 * singular Matrix Market matrix with the constant null space attached
 * (MatNullSpaceCreate(has_cnst), MatSetNullSpace and, so that KSPSolve
 * removes it from an inconsistent b, MatSetTransposeNullSpace; KSP removes it
 * and from the preconditioned residual), preconditioned by GAMG or Jacobi
 * (-pc_type), one rank, x0 = 0, relative tolerance 1e-8 on the
 * unpreconditioned residual (as nagare). b from an array file (else
 * b = 1). Prints one JSON line: iterations, ||P(b - A x)|| / ||P b||,
 * mean(x), the removed part of b.
 *   peer_petsc_null FILE.mtx [RHS.mtx] [PETSc options, e.g. -pc_type jacobi] */
#include "mtx_read.h"
#include <petscksp.h>
#include "petsc_mat.h"

/* an array Matrix Market vector of n entries into v (1: an error) */
static int read_array(const char *path, int n, double *v)
{
  FILE *f = fopen(path, "r");
  char line[256];
  int rows = 0, cols = 0, k = 0;
  if (!f) return 1;
  while (fgets(line, sizeof line, f) && line[0] == '%') {}
  if (sscanf(line, "%d %d", &rows, &cols) != 2 || rows != n) { fclose(f); return 1; }
  while (k < n && fscanf(f, "%lf", &v[k]) == 1) k++;
  fclose(f);
  return k != n;
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  if (argc < 2) { fprintf(stderr, "usage: peer_petsc_null FILE.mtx [RHS.mtx] [PETSc options]\n"); return 2; }
  peer_csr A;
  if (peer_read_mtx(argv[1], &A)) return 1;
  int n = A.n;
  double *bv = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) bv[i] = 1.0;
  if (argc > 2 && argv[2][0] != '-' && read_array(argv[2], n, bv)) { fprintf(stderr, "bad rhs %s\n", argv[2]); return 1; }
  Mat M;
  PetscCall(peer_petsc_mat(&A, &M));
  MatNullSpace nsp;
  PetscCall(MatNullSpaceCreate(PETSC_COMM_SELF, PETSC_TRUE, 0, NULL, &nsp));
  PetscCall(MatSetNullSpace(M, nsp));
  PetscCall(MatSetTransposeNullSpace(M, nsp)); /* so that KSPSolve removes it from b (inconsistent b) */
  Vec b, x, r, pb;
  PetscCall(MatCreateVecs(M, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecDuplicate(b, &pb));
  for (int i = 0; i < n; i++) PetscCall(VecSetValue(b, i, bv[i], INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscReal bn, pbn, rn;
  PetscCall(VecNorm(b, NORM_2, &bn));
  PetscCall(VecCopy(b, pb));
  PetscCall(MatNullSpaceRemove(nsp, pb));
  PetscCall(VecNorm(pb, NORM_2, &pbn));
  PetscCall(VecSet(x, 0.0));
  KSP ksp;
  PC pc;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, M, M));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 5000));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscInt its;
  KSPConvergedReason reason;
  PetscScalar sx;
  const char *pctype;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PCGetType(pc, &pctype));
  PetscCall(MatMult(M, x, r));
  PetscCall(VecAYPX(r, -1.0, pb)); /* P b - A x: A x has no constant part */
  PetscCall(MatNullSpaceRemove(nsp, r));
  PetscCall(VecNorm(r, NORM_2, &rn));
  PetscCall(VecSum(x, &sx));
  printf("{\"matrix\": \"%s\", \"solver\": \"petsc-cg-%s-nullspace\", \"iterations\": %d, \"proj_rel_residual\": %.3e, "
         "\"mean_x\": %.3e, \"removed\": %.3e, \"reason\": %d}\n",
         argv[1], pctype, (int)its, (double)(rn / pbn), (double)(sx / n), (double)(sqrt(fmax(bn * bn - pbn * pbn, 0)) / bn),
         (int)reason);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(MatDestroy(&M));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&pb));
  free(bv);
  PetscCall(PetscFinalize());
  return 0;
}
