# precond/amg.mk: smoothed-aggregation AMG (host setup, V-cycle on the
# context's memory through the SpMV and vector ops tables).
libnagare_la_SOURCES += precond/amg.h precond/amg.c precond/amg_strength.c precond/amg_aggregate.c \
  precond/amg_prolong.c precond/amg_galerkin.c precond/amg_sparsify.c precond/amg_sparsify_path.c precond/amg_setup.c precond/amg_cycle.c precond/amg_wcycle.c precond/dense_chol.c precond/dense_pinv.c \
  precond/amg_dist.h precond/amg_dist_aggregate.c precond/amg_dist_prolong.c precond/amg_dist_galerkin.c precond/amg_dist_sparsify.c \
  precond/amg_dist_coarse.c precond/amg_dist_setup.c precond/smoother.h precond/smoother_jacobi.c precond/smoother_mcgs.c \
  precond/smoother_chebyshev.c precond/coloring.c precond/amg_fine.c \
  precond/amg_single.h precond/amg_single.c
if NG_CUDA
libnagare_la_SOURCES += precond/amg_setup_cuda.cu precond/amg_fine_cuda.cu precond/amg_graph_cuda.cu precond/amg_single_cuda.cu precond/smoother_mcgs_cuda.cu precond/coloring_cuda.cu \
  precond/amg_coarse_cuda.cu precond/amg_dist_aggregate_cuda.cu precond/amg_dist_prolong_cuda.cu
endif
EXTRA_DIST += precond/amg_kernels_cuda.cuh precond/amg_dist_dx.cuh
if NG_CHECK
check_PROGRAMS += test/test_amg test/test_amg_gpu
test_test_amg_SOURCES = test/test_amg.c
test_test_amg_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_LDADD = $(NG_TEST_LDADD) -lm
test_test_amg_gpu_SOURCES = test/test_amg_gpu.c
test_test_amg_gpu_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_gpu_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_amg test/test_amg_gpu
check_PROGRAMS += test/test_amg_cycle
test_test_amg_cycle_SOURCES = test/test_amg_cycle.c
test_test_amg_cycle_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_cycle_LDADD = $(NG_TEST_LDADD) -lm
check_PROGRAMS += test/test_amg_cycle_gpu
test_test_amg_cycle_gpu_SOURCES = test/test_amg_cycle_gpu.c
test_test_amg_cycle_gpu_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_cycle_gpu_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_amg_cycle test/test_amg_cycle_gpu
endif
# The hierarchy across MPI ranks: test/test_amg_mpi on 1, 2 and 4 ranks.
if NG_CHECK
if NG_MPI
check_PROGRAMS += test/test_amg_mpi
test_test_amg_mpi_SOURCES = test/test_amg_mpi.c test/mpi_testutil.c test/mpi_testutil.h
test_test_amg_mpi_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_mpi_LDADD = $(NG_TEST_LDADD) -lm
endif
TESTS += test/amg_mpi_np1.sh test/amg_mpi_np2.sh test/amg_mpi_np4.sh
# The distributed aggregation on the GPU against the host's (2 and 4 ranks
# sharing the node's GPUs; skipped without a device).
if NG_MPI
check_PROGRAMS += test/test_amg_dist_gpu
test_test_amg_dist_gpu_SOURCES = test/test_amg_dist_gpu.c test/mpi_testutil.c test/mpi_testutil.h
test_test_amg_dist_gpu_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_dist_gpu_LDADD = $(NG_TEST_LDADD) -lm
endif
TESTS += test/amg_dist_gpu.sh
endif
TESTS += test/mpi_amg_solve.sh
EXTRA_DIST += test/amg_dist_gpu.sh test/amg_mpi_np1.sh test/amg_mpi_np2.sh test/amg_mpi_np4.sh test/mpi_amg_solve.sh
