# amg/amg.mk: smoothed-aggregation AMG and the classical coarsening
# prototype (amg_classical*.c, amg_pmis.c, amg_hmis.c, amg_interp_*.c; host setup, V-cycle on the
# context's memory through the SpMV and vector ops tables; the smoothers are
# in smoother/smoother.mk).
libnagare_la_SOURCES += amg/amg.h amg/amg.c amg/amg_options.c amg/options_registry.c amg/amg_strength.c amg/amg_aggregate.c \
  amg/amg_prolong.c amg/amg_galerkin.c amg/amg_sparsify.c amg/amg_sparsify_path.c \
  amg/amg_classical.c amg/amg_classical_strength.c amg/amg_pmis.c amg/amg_hmis.c amg/amg_interp_rows.c amg/amg_interp_ext.c amg/amg_interp_direct.c \
  amg/amg_setup.c amg/amg_cycle.c amg/amg_wcycle.c amg/amg_kcycle.c amg/dense_chol.c amg/dense_pinv.c \
  amg/amg_dist.h amg/amg_dist_aggregate.c amg/amg_dist_prolong.c amg/amg_dist_galerkin.c amg/amg_dist_sparsify.c amg/amg_dist_local.c amg/amg_dist_offrank.c \
  amg/amg_dist_coarse.c amg/amg_dist_classical.c amg/amg_dist_telescope.c amg/amg_dist_setup.c amg/amg_fine.c \
  amg/amg_single.h amg/amg_single.c
if NG_CUDA
libnagare_la_SOURCES += amg/amg_setup_cuda.cu amg/amg_aggregate_cuda.cu amg/amg_prolong_cuda.cu amg/amg_galerkin_cuda.cu \
  amg/amg_rho_cuda.cu amg/amg_fine_cuda.cu amg/amg_graph_cuda.cu amg/amg_single_cuda.cu \
  amg/amg_coarse_cuda.cu amg/amg_dist_aggregate_cuda.cu amg/amg_dist_prolong_cuda.cu amg/amg_dist_offrank_cuda.cu
endif
EXTRA_DIST += amg/amg_kernels_cuda.cuh amg/amg_setup_cuda.cuh amg/amg_dist_dx.cuh amg/amg_gpu_level.h amg/amg_graph.h
if NG_CHECK
check_PROGRAMS += test/test_amg test/test_amg_gpu
test_test_amg_SOURCES = test/test_amg.c test/coloring_check.h
test_test_amg_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_LDADD = $(NG_TEST_LDADD) -lm
test_test_amg_gpu_SOURCES = test/test_amg_gpu.c test/amg_cuda_host.h test/coloring_check.h test/true_residual.h
test_test_amg_gpu_CFLAGS = $(NG_TEST_CFLAGS)
if NG_CUDA
# a GPU-built level's P, R, A_c and the graph launches, read from the
# device state: test code, built for make check only
check_LTLIBRARIES += test/libamg_cuda_host.la
test_libamg_cuda_host_la_SOURCES = test/amg_cuda_host.cu
NG_AMG_CUDA_HOST = test/libamg_cuda_host.la
else
NG_AMG_CUDA_HOST =
endif
test_test_amg_gpu_LDADD = $(NG_AMG_CUDA_HOST) $(NG_TEST_LDADD) -lm
TESTS += test/test_amg test/test_amg_gpu
check_PROGRAMS += test/test_amg_classical
test_test_amg_classical_SOURCES = test/test_amg_classical.c
test_test_amg_classical_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_classical_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_amg_classical
check_PROGRAMS += test/test_amg_auto
test_test_amg_auto_SOURCES = test/test_amg_auto.c
test_test_amg_auto_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_auto_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_amg_auto
check_PROGRAMS += test/test_amg_cycle
test_test_amg_cycle_SOURCES = test/test_amg_cycle.c
test_test_amg_cycle_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_cycle_LDADD = $(NG_TEST_LDADD) -lm
check_PROGRAMS += test/test_amg_cycle_gpu
test_test_amg_cycle_gpu_SOURCES = test/test_amg_cycle_gpu.c test/amg_cuda_host.h
test_test_amg_cycle_gpu_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_cycle_gpu_LDADD = $(NG_AMG_CUDA_HOST) $(NG_TEST_LDADD) -lm
TESTS += test/test_amg_cycle test/test_amg_cycle_gpu
# the memory accounting and -amg_view's memory line (issue 35 item 2), host
check_PROGRAMS += test/test_amg_memory
test_test_amg_memory_SOURCES = test/test_amg_memory.c
test_test_amg_memory_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_memory_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_amg_memory
endif
# The hierarchy across MPI ranks: test/test_amg_mpi on 1, 2 and 4 ranks.
if NG_CHECK
if NG_MPI
check_PROGRAMS += test/test_amg_mpi
test_test_amg_mpi_SOURCES = test/test_amg_mpi.c test/mpi_testutil.c test/mpi_testutil.h
test_test_amg_mpi_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_mpi_LDADD = $(NG_TEST_LDADD) -lm
endif
TESTS += test/amg_mpi_np1.sh test/amg_mpi_np2.sh test/amg_mpi_np4.sh test/amg_classical_mpi.sh
# The distributed aggregation on the GPU against the host's (2 and 4 ranks
# sharing the node's GPUs; skipped without a device).
if NG_MPI
check_PROGRAMS += test/test_amg_dist_gpu
test_test_amg_dist_gpu_SOURCES = test/test_amg_dist_gpu.c test/mpi_testutil.c test/mpi_testutil.h
test_test_amg_dist_gpu_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_dist_gpu_LDADD = $(NG_TEST_LDADD) -lm
endif
TESTS += test/amg_dist_gpu.sh
# The uncoupled levels (amg_dist_local.c) on 2 and 4 ranks, CPU then GPU.
if NG_MPI
check_PROGRAMS += test/test_amg_uncoupled
test_test_amg_uncoupled_SOURCES = test/test_amg_uncoupled.c test/mpi_testutil.c test/mpi_testutil.h
test_test_amg_uncoupled_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_uncoupled_LDADD = $(NG_TEST_LDADD) -lm
endif
TESTS += test/amg_uncoupled.sh
# The coarse levels gathered onto rank 0 (amg_dist_telescope.c), CPU then GPU.
if NG_MPI
check_PROGRAMS += test/test_amg_telescope
test_test_amg_telescope_SOURCES = test/test_amg_telescope.c test/mpi_testutil.c test/mpi_testutil.h
test_test_amg_telescope_CFLAGS = $(NG_TEST_CFLAGS)
test_test_amg_telescope_LDADD = $(NG_TEST_LDADD) -lm
endif
TESTS += test/amg_telescope.sh
endif
TESTS += test/mpi_amg_solve.sh
EXTRA_DIST += test/amg_classical_mpi.sh test/amg_dist_gpu.sh test/mpi_cpu_gpu.sh test/amg_uncoupled.sh test/amg_telescope.sh test/amg_mpi_np1.sh test/amg_mpi_np2.sh test/amg_mpi_np4.sh test/mpi_amg_solve.sh
