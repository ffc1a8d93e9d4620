# examples/examples.mk: the main example (poisson3d) and the nagare-solve CLI.
noinst_LTLIBRARIES += examples/libreport.la
examples_libreport_la_SOURCES = examples/report.c examples/report_json.c examples/report.h examples/build_info.c \
  examples/build_info.h examples/progress.c examples/progress.h
examples_libreport_la_LIBADD = -lpthread
noinst_PROGRAMS += examples/poisson3d
examples_poisson3d_SOURCES = examples/poisson3d.c
examples_poisson3d_LDADD = examples/libreport.la $(NG_LDADD)
bin_PROGRAMS += nagare-solve
nagare_solve_SOURCES = examples/nagare_solve.c
nagare_solve_LDADD = examples/libreport.la $(NG_LDADD)
# The time-stepping pattern: pressure projection with moving density (issue 15).
noinst_PROGRAMS += examples/cfd_pressure
examples_cfd_pressure_SOURCES = examples/cfd_pressure.c
examples_cfd_pressure_LDADD = examples/libreport.la $(NG_LDADD) -lm
TESTS += test/cfd_pressure.sh
EXTRA_DIST += test/cfd_pressure.sh
