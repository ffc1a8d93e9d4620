# test/test.mk: shared test utilities and the core suites. Each module's
# fragment adds its own suites to check_PROGRAMS and TESTS.
AM_TESTS_ENVIRONMENT = NG_TEST_DATA=$(abs_top_srcdir)/test/data; export NG_TEST_DATA; \
  NG_TOP_BUILDDIR=$(abs_top_builddir); export NG_TOP_BUILDDIR; $(NG_SAN_TESTS_ENVIRONMENT)
# The sanitizer tree (configure --enable-sanitizers): abort on the first
# finding, leak check at exit with the third-party suppressions of
# test/lsan.supp, and no valgrind (it cannot run ASan binaries). Full
# (slow) unwinding on malloc and Open MPI keeping its plugins loaded
# (disable_dlclose) let the suppressions see the library names in the
# leak stacks; otherwise they read "<unknown module>".
if NG_SANITIZERS
NG_SAN_TESTS_ENVIRONMENT = \
  ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:fast_unwind_on_malloc=0:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1; \
  export ASAN_OPTIONS; \
  LSAN_OPTIONS=suppressions=$(abs_top_srcdir)/test/lsan.supp:print_suppressions=0; export LSAN_OPTIONS; \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; export UBSAN_OPTIONS; \
  OMPI_MCA_mca_base_component_disable_dlclose=1; export OMPI_MCA_mca_base_component_disable_dlclose; \
  NG_NO_VALGRIND=1; export NG_NO_VALGRIND;
endif
if NG_CHECK
noinst_LTLIBRARIES += test/libtestutil.la
test_libtestutil_la_SOURCES = test/testutil.c test/testutil.h
test_libtestutil_la_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
NG_TEST_LDADD = test/libtestutil.la $(NG_LDADD) $(CHECK_LIBS)
NG_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
check_PROGRAMS += test/test_core
test_test_core_SOURCES = test/test_core.c
test_test_core_CFLAGS = $(NG_TEST_CFLAGS)
test_test_core_LDADD = $(NG_TEST_LDADD)
TESTS += test/test_core
endif
# Offset and size arithmetic past 2^31 entries (issue 16 item 6), CPU only
if NG_CHECK
check_PROGRAMS += test/test_sizes
test_test_sizes_SOURCES = test/test_sizes.c
test_test_sizes_CFLAGS = $(NG_TEST_CFLAGS)
test_test_sizes_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_sizes
endif
# Command-line checks of nagare-solve (issue 2's done-when).
TESTS += test/cli_solve.sh test/cli_json.sh test/cli_history.sh test/cli_bad_inputs.sh
EXTRA_DIST += test/cli_solve.sh test/cli_json.sh test/cli_history.sh test/cli_bad_inputs.sh test/json-flat.sh test/valgrind.supp test/lsan.supp
EXTRA_DIST += test/data
# GPU path against the host reference (skips without a device)
if NG_CHECK
check_PROGRAMS += test/test_gpu
test_test_gpu_SOURCES = test/test_gpu.c test/true_residual.h
test_test_gpu_CFLAGS = $(NG_TEST_CFLAGS)
test_test_gpu_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_gpu
endif
# GPU CSR with 64-bit row offsets (issue 16 item 6; NG_TEST_BIG=lap27:432 adds the 2.17e9-entry case)
if NG_CHECK
check_PROGRAMS += test/test_big64_gpu
test_test_big64_gpu_SOURCES = test/test_big64_gpu.c
test_test_big64_gpu_CFLAGS = $(NG_TEST_CFLAGS)
test_test_big64_gpu_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_big64_gpu
endif
