# core/mmio.mk: sources and tests of this module
libnagare_la_SOURCES += core/mmio.c
