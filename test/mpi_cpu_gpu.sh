#!/bin/sh
# test/mpi_cpu_gpu.sh PROGRAM: an MPI Check program that takes its backend
# as its argument (cpu or gpu) run on 2 and 4 ranks on the CPU, then on 2
# and 4 ranks sharing the node's GPUs; the GPU part is skipped (the program
# exits 77) without a CUDA device, the CPU part being the test there. The
# runner of test/amg_uncoupled.sh and test/amg_telescope.sh.
top="${NG_TOP_BUILDDIR:-.}"
prog="$top/test/${1:?usage: mpi_cpu_gpu.sh PROGRAM}"
for np in 2 4; do
  "$(dirname "$0")/mpi-run.sh" $np "$prog" cpu || exit $?
done
for np in 2 4; do
  "$(dirname "$0")/mpi-run.sh" $np "$prog" gpu
  rc=$?
  [ $rc -eq 77 ] && exit 0 # no device: the CPU part above is the test
  [ $rc -ne 0 ] && exit $rc
done
exit 0
