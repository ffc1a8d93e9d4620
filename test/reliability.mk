# test/reliability.mk: issue 16's tests: allocation-failure walks (host, and
# device on a GPU), NG_FAIL_ALLOC through the environment, numeric faults on
# 1 and 2 ranks. The sanitizer tree (configure --enable-sanitizers) runs
# them like every other test; fuzz/run.sh is separate (clang, libFuzzer).
if NG_CHECK
check_PROGRAMS += test/test_alloc_fail test/test_alloc_fail_gpu
test_test_alloc_fail_SOURCES = test/test_alloc_fail.c
test_test_alloc_fail_CFLAGS = $(NG_TEST_CFLAGS)
test_test_alloc_fail_LDADD = $(NG_TEST_LDADD) -lm
test_test_alloc_fail_gpu_SOURCES = test/test_alloc_fail_gpu.c
EXTRA_test_test_alloc_fail_gpu_SOURCES = test/test_alloc_fail.c
test_test_alloc_fail_gpu_CFLAGS = $(NG_TEST_CFLAGS)
test_test_alloc_fail_gpu_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_alloc_fail test/test_alloc_fail_gpu
endif
TESTS += test/alloc_fail_env.sh
EXTRA_DIST += test/alloc_fail_env.sh test/gpu_sanitize.sh
if NG_CHECK
check_PROGRAMS += test/test_numeric test/test_numeric_gpu
test_test_numeric_SOURCES = test/test_numeric.c
test_test_numeric_CFLAGS = $(NG_TEST_CFLAGS)
test_test_numeric_LDADD = $(NG_TEST_LDADD) -lm
test_test_numeric_gpu_SOURCES = test/test_numeric_gpu.c
EXTRA_test_test_numeric_gpu_SOURCES = test/test_numeric.c
test_test_numeric_gpu_CFLAGS = $(NG_TEST_CFLAGS)
test_test_numeric_gpu_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_numeric test/test_numeric_gpu
endif
TESTS += test/mpi_numeric_np2.sh
EXTRA_DIST += test/mpi_numeric_np2.sh
# The fuzzing harnesses and their corpus (fuzz/run.sh builds them, not make).
EXTRA_DIST += fuzz/run.sh fuzz/fuzz_common.h fuzz/fuzz_mmio_matrix.c fuzz/fuzz_mmio_vector.c \
  fuzz/fuzz_options.c fuzz/fuzz_generate.c fuzz/corpus
# MPI faults (one rank's bad input or failed allocation fails every rank):
# test/test_mpi_fault on 1 rank directly and on 2 and 4 through the scripts,
# which also walk the allocation failures (test/mpi_fault_walk.sh).
if NG_CHECK
check_PROGRAMS += test/test_mpi_fault
test_test_mpi_fault_SOURCES = test/test_mpi_fault.c
test_test_mpi_fault_CFLAGS = $(NG_TEST_CFLAGS)
test_test_mpi_fault_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_mpi_fault
endif
TESTS += test/mpi_fault_np2.sh test/mpi_fault_np4.sh
EXTRA_DIST += test/mpi_fault_walk.sh test/mpi_fault_np2.sh test/mpi_fault_np4.sh
