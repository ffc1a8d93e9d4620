# comm/comm.mk: communicator, partitions, halo plans and transports.
libnagare_la_SOURCES += comm/comm.h comm/comm.c comm/halo.c
