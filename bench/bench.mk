# bench/bench.mk: GPU benchmarks (CUDA events, so only in CUDA builds):
# bench/spmv (formats, vector kernels, copy), bench/solve (whole solves) and,
# with MPI, bench/halo (halo transports: exchange, SpMV, AMG-PCG per transport).
if NG_CUDA
noinst_PROGRAMS += bench/spmv bench/solve
bench_spmv_SOURCES = bench/spmv.c bench/bench_util.h
bench_spmv_CPPFLAGS = $(AM_CPPFLAGS) -isystem $(CUDA_HOME)/include
bench_spmv_LDADD = $(NG_LDADD) -lm
bench_solve_SOURCES = bench/solve.c bench/bench_util.h
bench_solve_CPPFLAGS = $(AM_CPPFLAGS) -isystem $(CUDA_HOME)/include
bench_solve_LDADD = $(NG_LDADD) -lm
if NG_MPI
noinst_PROGRAMS += bench/halo
bench_halo_SOURCES = bench/halo.c bench/bench_util.h
bench_halo_CPPFLAGS = $(AM_CPPFLAGS) -isystem $(CUDA_HOME)/include
bench_halo_LDADD = $(NG_LDADD) -lm
endif
endif

# bench/scaling (MPI builds, GPU or CPU): one distributed solve as one JSON
# line; bench/scaling.sh runs it on 1..N ranks, strong and weak.
if NG_MPI
noinst_PROGRAMS += bench/scaling
bench_scaling_SOURCES = bench/scaling.c
bench_scaling_LDADD = $(NG_LDADD) -lm
endif
EXTRA_DIST += bench/scaling.sh
# the measurements behind doc/performance.md and the script that plots them
EXTRA_DIST += bench/plot.py bench/results
