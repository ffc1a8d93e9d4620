#!/bin/sh
# test/mpi_numeric_np2.sh: the numeric-fault suite (test/test_numeric) on 2
# ranks: a NaN planted on one rank stops both at the same iteration.
top="${NG_TOP_BUILDDIR:-.}"
exec "$(dirname "$0")/mpi-run.sh" 2 "$top/test/test_numeric"
