#!/bin/sh
# quickstart.sh: installs the Debian packages nagare needs that are missing,
# builds it in this tree (CUDA when nvcc is found, MPI when mpicc is), and runs
# the main example: a 3D Poisson solve with AMG-PCG on the GPU when there is
# one, else the CPU, and ends with a summary of what was built (the library's
# features, the Fortran module and the PETSc plug-in when their compilers and
# libraries were found: gfortran and petsc-dev are installed for them).
# Extra arguments go to examples/poisson3d; configure flags can be given in
# NG_CONFIGURE_FLAGS.
set -e
cd "$(dirname "$0")"
pkgs="build-essential autoconf automake libtool pkg-config check libsubunit-dev zlib1g-dev
      libopenmpi-dev openmpi-bin libhwloc-dev gfortran petsc-dev"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
fi
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure $NG_CONFIGURE_FLAGS
make -j"$(nproc)"
# OpenMPI refuses root without these; harmless for other users and MPIs.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
./examples/poisson3d "$@"

# What was built (configure's own summary is further up the output).
have() { if [ -e "$1" ]; then echo "yes ($1)"; else echo "no"; fi; }
echo
echo "== quickstart summary: built in $PWD"
./nagare-solve -version | sed 's/^/   /'
echo "   library          : $(have libnagare.la) with nagare.h in include/"
echo "   command          : ./nagare-solve (-help lists the options; man page doc/nagare-solve.1)"
echo "   Fortran module   : $(have fortran/nagare.mod), $(have fortran/libnagare_fortran.la)"
echo "   PETSc plug-in    : $(have petsc/libnagare-petsc.la)"
echo "   next: make check (the test suite); make install (prefix: ./configure --prefix=DIR)"
