# core/generate.mk: sources and tests of this module
libnagare_la_SOURCES += core/generate.c
