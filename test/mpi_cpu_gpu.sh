#!/bin/sh
# test/mpi_cpu_gpu.sh PROGRAM: an MPI Check program that takes its backend
# as its argument (cpu or gpu) run on 2 and 4 ranks on the CPU, then on 2
# and 4 ranks sharing the node's GPUs; the GPU part is skipped (the program
# exits 77) without a CUDA device, the CPU part being the test there. The
# runner of test/amg_uncoupled.sh and test/amg_telescope.sh.
top="${NG_TOP_BUILDDIR:-.}"
prog="$top/test/${1:?usage: mpi_cpu_gpu.sh PROGRAM}"
# The CPU runs get 300 s: amg_telescope's 4-rank CPU run, 1 s alone, passed
# mpi-run.sh's 120 s in a make -j32 check on 2 H200s' 32 cores beside the
# MPI fault walks (2026-11-29); a hang still fails.
for np in 2 4; do
  NG_MPI_TIMEOUT="${NG_MPI_TIMEOUT:-300}" "$(dirname "$0")/mpi-run.sh" $np "$prog" cpu || exit $?
done
# The GPU runs get 360 s, not mpi-run.sh's 120: ranks that share a GPU
# with a parallel make check's other GPU tests wait a time slice of every
# other context at each exchange. amg_telescope's 4-rank GPU run takes 4 s
# alone and 18 s with 5 copies beside it (2 H200s, 2026-11-29), and passed
# 120 s in a make -j24 check there: slow, not hung.
for np in 2 4; do
  NG_MPI_TIMEOUT="${NG_MPI_TIMEOUT:-360}" "$(dirname "$0")/mpi-run.sh" $np "$prog" gpu
  rc=$?
  [ $rc -eq 77 ] && exit 0 # no device: the CPU part above is the test
  [ $rc -ne 0 ] && exit $rc
done
exit 0
