# petsc/petsc.mk: the PETSc plug-in libnagare-petsc (PC type "nagare",
# header nagare_petsc.h, nagare-petsc.pc) and its KSP test on 1 and 2 ranks;
# built when configure finds PETSc through pkg-config (--with-petsc).
EXTRA_DIST += petsc/pcnagare.c petsc/nagare_petsc.h petsc/test_pcnagare.c test/petsc_pc.sh nagare-petsc.pc.in
if NG_PETSC
lib_LTLIBRARIES += petsc/libnagare-petsc.la
petsc_libnagare_petsc_la_SOURCES = petsc/pcnagare.c petsc/nagare_petsc.h
petsc_libnagare_petsc_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/petsc $(PETSC_CFLAGS)
petsc_libnagare_petsc_la_LIBADD = libnagare.la $(PETSC_LIBS)
petsc_libnagare_petsc_la_LDFLAGS = -version-info 0:0:0
include_HEADERS += petsc/nagare_petsc.h
pkgconfig_DATA += nagare-petsc.pc

check_PROGRAMS += petsc/test_pcnagare
petsc_test_pcnagare_SOURCES = petsc/test_pcnagare.c
petsc_test_pcnagare_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/petsc $(PETSC_CFLAGS)
petsc_test_pcnagare_LDADD = petsc/libnagare-petsc.la libnagare.la $(PETSC_LIBS)
TESTS += test/petsc_pc.sh
endif
