#!/bin/sh
# test/mpi_fault_np2.sh: MPI faults on 2 ranks: test/test_mpi_fault (bad
# input on one rank), then allocation-failure walks (test/mpi_fault_walk.sh)
# over a deterministic stride of rank 1's allocations, AMG-PCG and
# Jacobi-PCG, and of rank 0's for AMG-PCG (NG_FAULT_STRIDE, default 29;
# 1 walks every allocation: about 10 minutes on 2 cores).
dir=$(dirname "$0")
top="${NG_TOP_BUILDDIR:-.}"
"$dir/mpi-run.sh" 2 "$top/test/test_mpi_fault" || exit $?
s="${NG_FAULT_STRIDE:-29}"
"$dir/mpi_fault_walk.sh" 2 1 "$s" -problem lap27:10 -solver pcg -precond amg || exit $?
"$dir/mpi_fault_walk.sh" 2 1 "$s" -problem lap27:10 -solver pcg -precond jacobi || exit $?
"$dir/mpi_fault_walk.sh" 2 0 "$s" -problem lap27:10 -solver pcg -precond amg
