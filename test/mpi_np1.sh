#!/bin/sh
# test/mpi_np1.sh: the MPI suite (test/test_mpi) on 1 rank.
top="${NG_TOP_BUILDDIR:-.}"
exec "$(dirname "$0")/mpi-run.sh" 1 "$top/test/test_mpi"
