# core/mmio.mk: sources and tests of this module (Matrix Market I/O)
libnagare_la_SOURCES += core/mmio.c
if NG_CHECK
check_PROGRAMS += test/test_mmio
test_test_mmio_SOURCES = test/test_mmio.c
test_test_mmio_CFLAGS = $(NG_TEST_CFLAGS)
test_test_mmio_LDADD = $(NG_TEST_LDADD)
TESTS += test/test_mmio
endif
