#!/bin/sh
# test/mpi_fault_np2.sh: MPI faults on 2 ranks: test/test_mpi_fault (bad
# input on one rank), then allocation-failure walks (test/mpi_fault_walk.sh)
# over a deterministic stride of one rank's allocations: rank 1 with
# AMG-PCG, rank 0 with Jacobi-PCG, rank 1 with AMG-PCG on uncoupled levels
# (amg/amg_dist_local.c: its allocations between collectives must be
# agreed like the coupled setup's), and rank 1 through three time steps of
# examples/cfd_pressure on uncoupled levels (the updates: the off-rank
# block's values into its kept patterns, amg/amg_dist_offrank.c).
# NG_FAULT_STRIDE overrides the strides (1 walks every allocation: several
# minutes).
dir=$(dirname "$0")
top="${NG_TOP_BUILDDIR:-.}"
"$dir/mpi-run.sh" 2 "$top/test/test_mpi_fault" || exit $?
"$dir/mpi_fault_walk.sh" 2 1 "${NG_FAULT_STRIDE:-29}" -problem lap27:10 -solver pcg -precond amg || exit $?
"$dir/mpi_fault_walk.sh" 2 0 "${NG_FAULT_STRIDE:-47}" -problem lap27:10 -solver pcg -precond jacobi || exit $?
"$dir/mpi_fault_walk.sh" 2 1 "${NG_FAULT_STRIDE:-31}" -problem lap27:10 -solver pcg -precond amg -amg_dist_aggregation uncoupled || exit $?
NG_WALK_BIN="$top/examples/cfd_pressure" "$dir/mpi_fault_walk.sh" 2 1 "${NG_FAULT_STRIDE:-61}" -n 12 -steps 3 -device cpu \
  -amg_dist_aggregation uncoupled
