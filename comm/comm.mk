# comm/comm.mk: communicator, partitions, halo plans, transports, hwloc
# binding, and the MPI test suite (run by test/mpi-run.sh with 1, 2, 4 ranks).
libnagare_la_SOURCES += comm/comm.h comm/comm.c comm/halo.h comm/halo.c comm/transport.h \
  comm/transport_host.c comm/partition.c comm/distribute.c
