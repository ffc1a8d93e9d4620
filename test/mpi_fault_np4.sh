#!/bin/sh
# test/mpi_fault_np4.sh: MPI faults on 4 ranks: test/test_mpi_fault (bad
# input on one rank), then the allocation-failure walk
# (test/mpi_fault_walk.sh) over a deterministic stride of rank 2's
# allocations with AMG-PCG (NG_FAULT_STRIDE overrides the stride, 1 walks
# every allocation).
dir=$(dirname "$0")
top="${NG_TOP_BUILDDIR:-.}"
"$dir/mpi-run.sh" 4 "$top/test/test_mpi_fault" || exit $?
"$dir/mpi_fault_walk.sh" 4 2 "${NG_FAULT_STRIDE:-23}" -problem lap27:10 -solver pcg -precond amg
