# examples/examples.mk: the main example (poisson3d) and the nagare-solve CLI.
noinst_LTLIBRARIES += examples/libreport.la
examples_libreport_la_SOURCES = examples/report.c examples/report.h
noinst_PROGRAMS += examples/poisson3d
examples_poisson3d_SOURCES = examples/poisson3d.c
examples_poisson3d_LDADD = examples/libreport.la $(NG_LDADD)
bin_PROGRAMS += nagare-solve
nagare_solve_SOURCES = examples/nagare_solve.c
nagare_solve_LDADD = examples/libreport.la $(NG_LDADD)
