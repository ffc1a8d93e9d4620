#!/bin/sh
# test/mpi_transport_np2.sh: the transport suite (test/test_transport) on 2
# ranks of CPU contexts: host and auto only, the others refused.
top="${NG_TOP_BUILDDIR:-.}"
exec "$(dirname "$0")/mpi-run.sh" 2 "$top/test/test_transport" cpu
