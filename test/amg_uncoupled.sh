#!/bin/sh
# test/amg_uncoupled.sh: the uncoupled levels of the distributed AMG
# (test/test_amg_uncoupled) on 2 and 4 ranks, CPU then GPU.
exec "$(dirname "$0")/mpi_cpu_gpu.sh" test_amg_uncoupled
