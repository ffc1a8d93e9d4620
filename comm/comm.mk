# comm/comm.mk: communicator, partitions, halo plans, transports, hwloc
# binding, and the MPI test suite (run by test/mpi-run.sh with 1, 2, 4 ranks).
libnagare_la_SOURCES += comm/comm.h comm/comm_options.c comm/comm_mpi.h comm/comm.c comm/halo.h comm/halo_plan.c comm/transport.h \
  comm/halo_reverse.c comm/halo_gather.c comm/halo_rows_plan.c comm/halo_identity.c comm/halo_host.c comm/alltoall.c comm/partition.c comm/distribute.c
# Transports (one file each) and their selection: the GPU ones call the CUDA
# runtime from C, so they get CUDA_CPPFLAGS in their own convenience library.
noinst_LTLIBRARIES += comm/libtransport.la
comm_libtransport_la_SOURCES = comm/transport_part.h comm/transport_select.c comm/transport_host.c \
  comm/transport_ipc.c comm/transport_ipc_cache.c comm/transport_cuda_mpi.c
if NG_CUDA
# -isystem: the CUDA headers' deprecation warnings are not ours
comm_libtransport_la_CPPFLAGS = $(AM_CPPFLAGS) -isystem $(CUDA_HOME)/include
else
comm_libtransport_la_CPPFLAGS = $(AM_CPPFLAGS)
endif
libnagare_la_LIBADD += comm/libtransport.la
# hwloc_bind.c needs the CUDA runtime headers for hwloc/cudart.h: its own
# convenience library with CUDA_CPPFLAGS.
noinst_LTLIBRARIES += comm/libbind.la
comm_libbind_la_SOURCES = comm/hwloc_bind.c
comm_libbind_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
libnagare_la_LIBADD += comm/libbind.la
# MPI suite: test/test_mpi (needs MPI and Check), run by scripts on 1, 2 and
# 4 ranks; the scripts skip (77) without MPI. The MPI suites (these two and
# amg/amg.mk's) share test/mpi_testutil.c, built into each.
if NG_CHECK
if NG_MPI
check_PROGRAMS += test/test_mpi
test_test_mpi_SOURCES = test/test_mpi.c test/mpi_testutil.c test/mpi_testutil.h
test_test_mpi_CFLAGS = $(NG_TEST_CFLAGS)
test_test_mpi_LDADD = $(NG_TEST_LDADD)
endif
TESTS += test/mpi_np1.sh test/mpi_np2.sh test/mpi_np4.sh
# Transport suite: test/test_transport on CPU contexts (2, 4 ranks) and on
# GPU contexts (skipped without a device).
if NG_MPI
check_PROGRAMS += test/test_transport
test_test_transport_SOURCES = test/test_transport.c test/mpi_testutil.c test/mpi_testutil.h
test_test_transport_CFLAGS = $(NG_TEST_CFLAGS)
test_test_transport_LDADD = $(NG_TEST_LDADD) -lm
endif
TESTS += test/mpi_transport_np2.sh test/mpi_transport_np4.sh test/mpi_transport_gpu.sh
endif
TESTS += test/mpi_solve_np4.sh test/mpi_gpu_np2.sh test/mpi_cg_single_np4.sh test/mpi_pipecg_np4.sh
EXTRA_DIST += test/mpi_cg_single_np4.sh test/mpi_pipecg_np4.sh test/mpi-run.sh test/mpi_np1.sh test/mpi_np2.sh test/mpi_np4.sh test/mpi_solve_np4.sh test/mpi_gpu_np2.sh \
  test/mpi_transport_np2.sh test/mpi_transport_np4.sh test/mpi_transport_gpu.sh
