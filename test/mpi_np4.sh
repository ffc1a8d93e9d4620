#!/bin/sh
# test/mpi_np4.sh: the MPI suite (test/test_mpi) on 4 ranks.
top="${NG_TOP_BUILDDIR:-.}"
exec "$(dirname "$0")/mpi-run.sh" 4 "$top/test/test_mpi"
