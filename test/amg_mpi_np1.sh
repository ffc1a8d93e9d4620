#!/bin/sh
# test/amg_mpi_np1.sh: the distributed AMG suite (test/test_amg_mpi) on 1 rank(s).
top="${NG_TOP_BUILDDIR:-.}"
exec "$(dirname "$0")/mpi-run.sh" 1 "$top/test/test_amg_mpi"
