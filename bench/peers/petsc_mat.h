/* bench/peers/petsc_mat.h: a peer_csr (mtx_read.h) as a PETSc SeqAIJ
 * matrix, rows preallocated exactly; shared by the PETSc peer programs.
 * Header-only: include it once, after petscksp.h and mtx_read.h. */
#ifndef PEER_PETSC_MAT_H
#define PEER_PETSC_MAT_H

static PetscErrorCode peer_petsc_mat(const peer_csr *A, Mat *M)
{
  int n = A->n;
  PetscInt *nnz = malloc(sizeof(PetscInt) * (size_t)(n + 1));
  PetscFunctionBeginUser;
  for (int i = 0; i < n; i++) nnz[i] = (PetscInt)(A->rowptr[i + 1] - A->rowptr[i]);
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 0, nnz, M));
  for (int i = 0; i < n; i++) {
    PetscInt row = i, nc = nnz[i], *cols = malloc(sizeof(PetscInt) * (size_t)(nc + 1));
    for (PetscInt k = 0; k < nc; k++) cols[k] = A->col[A->rowptr[i] + k];
    PetscCall(MatSetValues(*M, 1, &row, nc, cols, A->val + A->rowptr[i], INSERT_VALUES));
    free(cols);
  }
  PetscCall(MatAssemblyBegin(*M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*M, MAT_FINAL_ASSEMBLY));
  free(nnz);
  PetscFunctionReturn(0);
}
#endif
