#!/bin/sh
# quickstart.sh: installs the Debian packages nagare needs that are missing,
# builds it in this tree (CUDA when nvcc is found, MPI when mpicc is), and runs
# the main example: a 3D Poisson solve with AMG-PCG on the GPU when there is
# one, else the CPU. Extra arguments go to examples/poisson3d; configure flags
# can be given in NG_CONFIGURE_FLAGS.
set -e
cd "$(dirname "$0")"
pkgs="build-essential autoconf automake libtool pkg-config check libsubunit-dev zlib1g-dev
      libopenmpi-dev openmpi-bin libhwloc-dev"
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
