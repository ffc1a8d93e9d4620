# bench/bench.mk: GPU benchmarks (CUDA events, so only in CUDA builds):
# bench/spmv (formats, vector kernels, copy) and bench/solve (whole solves).
if NG_CUDA
noinst_PROGRAMS += bench/spmv bench/solve
bench_spmv_SOURCES = bench/spmv.c bench/bench_util.h
bench_spmv_CPPFLAGS = $(AM_CPPFLAGS) -isystem $(CUDA_HOME)/include
bench_spmv_LDADD = $(NG_LDADD) -lm
bench_solve_SOURCES = bench/solve.c bench/bench_util.h
bench_solve_CPPFLAGS = $(AM_CPPFLAGS) -isystem $(CUDA_HOME)/include
bench_solve_LDADD = $(NG_LDADD) -lm
endif
