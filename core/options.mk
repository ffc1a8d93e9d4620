# core/options.mk: the options database and its tests.
libnagare_la_SOURCES += core/options.h core/options.c core/options_help.c core/core_options.c
if NG_CHECK
check_PROGRAMS += test/test_options
test_test_options_SOURCES = test/test_options.c
test_test_options_CFLAGS = $(NG_TEST_CFLAGS)
test_test_options_LDADD = $(NG_TEST_LDADD)
TESTS += test/test_options
endif
