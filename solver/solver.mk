# solver/solver.mk: the public solver API, the Krylov building blocks, one
# file per method (pcg and pbicgstab are names of cg and bicgstab; gmres.c
# holds GMRES and FGMRES; cg_single.c the one-reduction CG; null_space.c the
# singular systems' bookkeeping) and the tests.
libnagare_la_SOURCES += solver/solver.h solver/solver_options.c solver/solver.c solver/krylov_util.c solver/null_space.c solver/registry.c \
  solver/cg.c solver/krylov_adapt.c solver/lanczos.c solver/cg_single.c solver/bicgstab.c solver/gmres.c solver/pipecg.c
if NG_CHECK
check_PROGRAMS += test/test_solver
test_test_solver_SOURCES = test/test_solver.c test/solver_helpers.h
test_test_solver_CFLAGS = $(NG_TEST_CFLAGS)
test_test_solver_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_solver
check_PROGRAMS += test/test_gmres
test_test_gmres_SOURCES = test/test_gmres.c test/solver_helpers.h
test_test_gmres_CFLAGS = $(NG_TEST_CFLAGS)
test_test_gmres_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_gmres
check_PROGRAMS += test/test_nullspace
test_test_nullspace_SOURCES = test/test_nullspace.c
test_test_nullspace_CFLAGS = $(NG_TEST_CFLAGS)
test_test_nullspace_LDADD = $(NG_TEST_LDADD) -lm
TESTS += test/test_nullspace
endif
# issue 32 under MPI: Neumann problems with -null_space constant on 1, 2, 4 ranks
TESTS += test/mpi_null_space.sh
EXTRA_DIST += test/mpi_null_space.sh
