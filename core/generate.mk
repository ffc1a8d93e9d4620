# core/generate.mk: the problem generators (lap7, lap27, aniso27, fem27, mps) and their tests
libnagare_la_SOURCES += core/generate.h core/generate.c core/generate_stencil.c \
  core/generate_fem27.c core/generate_elast27.c core/generate_mps.c \
  core/generate_hard.c core/generate_cfd.c
if NG_CHECK
check_PROGRAMS += test/test_generate
test_test_generate_SOURCES = test/test_generate.c
test_test_generate_CFLAGS = $(NG_TEST_CFLAGS)
test_test_generate_LDADD = $(NG_TEST_LDADD)
TESTS += test/test_generate
endif
