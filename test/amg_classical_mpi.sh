#!/bin/sh
# test/amg_classical_mpi.sh: -amg_coarsening classical across ranks
# (test/test_amg_mpi classical: P, R, A_c and the iteration counts equal one
# rank's) on 1, 2 and 4 ranks, each run with its own time limit (300 s: the
# sanitizer tree's 4 ranks on 2 cores).
top="${NG_TOP_BUILDDIR:-.}"
NG_MPI_TIMEOUT="${NG_MPI_TIMEOUT:-300}"; export NG_MPI_TIMEOUT
for np in 1 2 4; do
  "$(dirname "$0")/mpi-run.sh" $np "$top/test/test_amg_mpi" classical || exit $?
done
