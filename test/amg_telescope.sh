#!/bin/sh
# test/amg_telescope.sh: the distributed AMG's coarse levels gathered onto
# rank 0 (test/test_amg_telescope) on 2 and 4 ranks on the CPU, then on 2
# and 4 ranks sharing the node's GPUs (that part skipped without a CUDA
# device).
top="${NG_TOP_BUILDDIR:-.}"
for np in 2 4; do
  "$(dirname "$0")/mpi-run.sh" $np "$top/test/test_amg_telescope" cpu || exit $?
done
for np in 2 4; do
  "$(dirname "$0")/mpi-run.sh" $np "$top/test/test_amg_telescope" gpu
  rc=$?
  [ $rc -eq 77 ] && exit 0 # no device: the CPU part above is the test
  [ $rc -ne 0 ] && exit $rc
done
exit 0
