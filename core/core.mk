# core/core.mk: errors, memory, containers, host vector kernels, trace.
libnagare_la_SOURCES += core/core.h core/error.c core/memory.c core/memtrack.c core/version.c \
  core/sizes.h core/sizes.c core/coo.c core/csr.c core/index_map.c core/vec_host.c core/trace.h core/trace.c
