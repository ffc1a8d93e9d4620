/* nagare_petsc.h: nagare as a PETSc preconditioner (libnagare-petsc).
 *
 *   #include <nagare_petsc.h>
 *   PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
 *   PetscCall(PCNagareRegister());          (once, after PetscInitialize)
 *   ... KSPSetFromOptions(ksp) with -pc_type nagare -nagare_precond amg ...
 *
 * or, without code changes, -dll_append /PREFIX/lib/libnagare-petsc.so
 * -pc_type nagare (PETSc then calls PetscDLLibraryRegister_nagare_petsc).
 * Every -nagare_NAME VALUE option (under the PC's prefix) is nagare's -NAME
 * option (-nagare_precond amg -nagare_amg_theta 0.02 -nagare_device gpu);
 * defaults: -precond amg. The operator is the PC's Pmat (any type with
 * MatGetRow: SeqAIJ, MPIAIJ, their CUDA variants); with SAME_NONZERO_PATTERN
 * only the values are copied and the preconditioner updated. Needs PETSc with
 * real double scalars and 32-bit PetscInt, on the MPI nagare was built with. */
#ifndef NAGARE_PETSC_H
#define NAGARE_PETSC_H
#include <petscpc.h>

#define PCNAGARE "nagare"

/* Registers the PC type "nagare" (PCRegister). */
PETSC_EXTERN PetscErrorCode PCNagareRegister(void);
/* Number of fresh setups (matrix copied, preconditioner built) and of
 * value-only updates this PC has done. */
PETSC_EXTERN PetscErrorCode PCNagareGetSetupCounts(PC pc, PetscInt *setups, PetscInt *updates);
/* Dynamic-library entry point (-dll_append libnagare-petsc.so). */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_nagare_petsc(void);
#endif
