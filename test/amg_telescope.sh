#!/bin/sh
# test/amg_telescope.sh: the distributed AMG's coarse levels gathered onto
# rank 0 (test/test_amg_telescope) on 2 and 4 ranks, CPU then GPU.
exec "$(dirname "$0")/mpi_cpu_gpu.sh" test_amg_telescope
