#!/bin/sh
# test/amg_mpi_np2.sh: the distributed AMG suite (test/test_amg_mpi) on 2 rank(s).
top="${NG_TOP_BUILDDIR:-.}"
exec "$(dirname "$0")/mpi-run.sh" 2 "$top/test/test_amg_mpi"
