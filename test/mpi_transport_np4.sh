#!/bin/sh
# test/mpi_transport_np4.sh: the transport suite on 4 CPU ranks (rank 1
# owns no rows in the random partitions).
top="${NG_TOP_BUILDDIR:-.}"
exec "$(dirname "$0")/mpi-run.sh" 4 "$top/test/test_transport" cpu
