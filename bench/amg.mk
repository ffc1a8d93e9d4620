# bench/amg.mk: AMG benchmark (JSON lines: setup, solve, levels, cycle shares).
noinst_PROGRAMS += bench/amg
bench_amg_SOURCES = bench/amg.c
bench_amg_LDADD = $(NG_LDADD) -lm
