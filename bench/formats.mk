# bench/formats.mk: the SpMV format benchmark (issue 5), bench/formats.
noinst_PROGRAMS += bench/formats
bench_formats_SOURCES = bench/formats.c
bench_formats_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
bench_formats_LDADD = $(NG_LDADD)
