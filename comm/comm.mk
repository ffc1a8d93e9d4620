# comm/comm.mk: communicator, partitions, halo plans, transports, hwloc
# binding, and the MPI test suite (run by test/mpi-run.sh with 1, 2, 4 ranks).
libnagare_la_SOURCES += comm/comm.h comm/comm.c comm/halo.h comm/halo.c comm/transport.h \
  comm/transport_host.c comm/partition.c comm/distribute.c
# hwloc_bind.c needs the CUDA runtime headers for hwloc/cudart.h: its own
# convenience library with CUDA_CPPFLAGS.
noinst_LTLIBRARIES += comm/libbind.la
comm_libbind_la_SOURCES = comm/hwloc_bind.c
comm_libbind_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
libnagare_la_LIBADD += comm/libbind.la
