#!/bin/sh
# test/amg_dist_gpu.sh: the distributed aggregation on the GPU against the
# host's (test/test_amg_dist_gpu) on 2 and 4 ranks sharing the node's GPUs.
# Skipped without a CUDA device (the program says so and exits 77).
# 300 s a run, not mpi-run.sh's 120: 4 ranks time-sharing one GPU (no MPS)
# beside `make -j16 check`'s other jobs took more than 120 s on an H100
# (2026-11-28), where 4 ranks on 4 H100s take 6 s; a hang still fails.
top="${NG_TOP_BUILDDIR:-.}"
NG_MPI_TIMEOUT="${NG_MPI_TIMEOUT:-300}"; export NG_MPI_TIMEOUT
for np in 2 4; do
  "$(dirname "$0")/mpi-run.sh" $np "$top/test/test_amg_dist_gpu" || exit $?
done
