# core/core.mk: errors, memory, containers, context, matrices, vectors, options.
libnagare_la_SOURCES += core/internal.h core/error.c core/memory.c core/version.c \
  core/sizes.h core/sizes.c core/coo.c core/csr.c core/index_map.c core/context.c core/matrix.c core/vector.c core/vec_host.c core/trace.h core/trace.c
