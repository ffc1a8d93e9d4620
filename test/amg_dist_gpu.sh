#!/bin/sh
# test/amg_dist_gpu.sh: the distributed aggregation on the GPU against the
# host's (test/test_amg_dist_gpu) on 2 and 4 ranks sharing the node's GPUs.
# Skipped without a CUDA device (the program says so and exits 77).
top="${NG_TOP_BUILDDIR:-.}"
for np in 2 4; do
  "$(dirname "$0")/mpi-run.sh" $np "$top/test/test_amg_dist_gpu" || exit $?
done
