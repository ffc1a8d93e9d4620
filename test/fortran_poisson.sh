#!/bin/sh
# test/fortran_poisson.sh: the Fortran example (module nagare) solves a 7-point
# Poisson problem with AMG-PCG and checks its own residual and error (exit 1
# on failure); on 1 rank, then (MPI builds) on 2 ranks with slab rows given
# through ng_matrix_create_distributed with 1-based indices.
top="${NG_TOP_BUILDDIR:-.}"
here="$(dirname "$0")"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$top/examples/poisson_fortran" -n 20 -device cpu || { echo "FAIL: poisson_fortran on 1 rank"; exit 1; }
"$here/mpi-run.sh" 2 "$top/examples/poisson_fortran" -n 20 -device cpu
rc=$?
[ $rc -eq 77 ] && { echo "2 ranks skipped"; exit 0; }
[ $rc -eq 0 ] || { echo "FAIL: poisson_fortran on 2 ranks (exit $rc)"; exit 1; }
echo "PASS: Fortran bindings on 1 and 2 ranks"
