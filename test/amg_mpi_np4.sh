#!/bin/sh
# test/amg_mpi_np4.sh: the distributed AMG suite (test/test_amg_mpi) on 4 rank(s).
top="${NG_TOP_BUILDDIR:-.}"
exec "$(dirname "$0")/mpi-run.sh" 4 "$top/test/test_amg_mpi"
