# fortran/fortran.mk: Fortran 2003 bindings (module nagare in
# libnagare_fortran, the .mod installed beside nagare.h), the Fortran example
# and its test; built when configure finds a Fortran compiler (--enable-fortran).
EXTRA_DIST += fortran/nagare.f90 fortran/nagare_fortran.c examples/poisson_fortran.f90 \
  test/fortran_poisson.sh test/test_fortran.f90 nagare-fortran.pc.in
if NG_FORTRAN
# modules are written to and read from fortran/ in the build tree
AM_FCFLAGS = $(FC_MODOUT)fortran $(FC_MODINC)fortran
lib_LTLIBRARIES += fortran/libnagare_fortran.la
fortran_libnagare_fortran_la_SOURCES = fortran/nagare.f90 fortran/nagare_fortran.c
fortran_libnagare_fortran_la_LIBADD = libnagare.la
fortran_libnagare_fortran_la_LDFLAGS = -version-info 0:0:0
pkgconfig_DATA += nagare-fortran.pc
fmoddir = $(includedir)
nodist_fmod_DATA = fortran/nagare.$(FC_MODEXT)
fortran/nagare.$(FC_MODEXT): fortran/libnagare_fortran.la
CLEANFILES += fortran/nagare.$(FC_MODEXT)

noinst_PROGRAMS += examples/poisson_fortran
examples_poisson_fortran_SOURCES = examples/poisson_fortran.f90
examples_poisson_fortran_LDADD = fortran/libnagare_fortran.la libnagare.la
examples/poisson_fortran.$(OBJEXT): fortran/libnagare_fortran.la
TESTS += test/fortran_poisson.sh

check_PROGRAMS += test/test_fortran
test_test_fortran_SOURCES = test/test_fortran.f90
test_test_fortran_LDADD = fortran/libnagare_fortran.la libnagare.la
test/test_fortran.$(OBJEXT): fortran/libnagare_fortran.la
TESTS += test/test_fortran
# the test program's own module (test_fortran_monitor), written beside the library's
CLEANFILES += fortran/test_fortran_monitor.$(FC_MODEXT)
endif
