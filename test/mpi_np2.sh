#!/bin/sh
# test/mpi_np2.sh: the MPI suite (test/test_mpi) on 2 ranks.
top="${NG_TOP_BUILDDIR:-.}"
exec "$(dirname "$0")/mpi-run.sh" 2 "$top/test/test_mpi"
