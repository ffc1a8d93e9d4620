#!/bin/sh
# test/installcheck.sh: the installed nagare works from outside the build
# tree, found through pkg-config alone. "make installcheck" runs it after
# "make install" (.ci/run does, configured with a temporary --prefix; make
# distcheck does too). Checks:
#  1. the installed files: nagare.h, libnagare, nagare.pc, nagare-solve and
#     its man page nagare-solve.1 (formatted without warnings when groff is there);
#  2. nagare-solve -version exits 0 and names pkg-config's version;
#  3. test/install_hello.c, built with `cc $(pkg-config --cflags --libs nagare)`,
#     runs with the installed libnagare (ldd) and solves;
#  4. Fortran builds: examples/poisson_fortran.f90 built with pkg-config
#     nagare-fortran (module nagare from the install) solves on 1 and 2 ranks;
#  5. PETSc builds: petsc/test_pcnagare.c built with pkg-config nagare-petsc
#     drives -pc_type nagare from KSP CG on 1 and 2 ranks;
#  6. test/doc_snippets.sh: the README and user-guide programs, built with
#     the same pkg-config flags.
#  7. the Lmod modulefile share/modulefiles/nagare/VERSION.lua: where Lmod is
#     installed (LMOD_CMD, or Debian's lmod: /usr/share/lmod/lmod/init/sh),
#     "module use PREFIX/share/modulefiles; module load nagare" in a subshell
#     with the environment this script started with, then nagare-solve is
#     the installed one on PATH and test/install_hello.c builds with
#     pkg-config's flags alone and runs (LD_LIBRARY_PATH from the module);
#     skipped with a message without Lmod.
# Environment (make installcheck sets it): NG_PKGCONFIGDIR, NG_BINDIR,
# NG_MANDIR, CC (the configured compiler: mpicc in MPI builds), FC,
# NG_HAVE_FORTRAN and NG_HAVE_PETSC (yes/no: what this build installed).
here="$(cd "$(dirname "$0")" && pwd)"
src="$(dirname "$here")"
pcdir="${NG_PKGCONFIGDIR:?NG_PKGCONFIGDIR not set (run make installcheck)}"
bindir="${NG_BINDIR:?}"; mandir="${NG_MANDIR:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the caller's environment, for the Lmod check (7), which must do without
# the paths set below
ng_orig_pkg_config_path="${PKG_CONFIG_PATH-}"; ng_orig_ld_library_path="${LD_LIBRARY_PATH-}"
# the prefix's .pc files first; PETSc's own stays findable as configure found it
PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
for d in "$PETSC_DIR/$PETSC_ARCH/lib/pkgconfig" "$PETSC_DIR/lib/pkgconfig" /usr/lib/petscdir/*/*/lib/pkgconfig; do
  [ -d "$d" ] && PKG_CONFIG_PATH="$PKG_CONFIG_PATH:$d"
done
export PKG_CONFIG_PATH
tmp=${TMPDIR:-/tmp}/ng_installcheck.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. installed files
[ "$(pkg-config --variable=pcfiledir nagare)" = "$pcdir" ] || fail "pkg-config does not take nagare.pc from $pcdir"
version=$(pkg-config --modversion nagare) || fail "pkg-config --modversion nagare"
libdir=$(pkg-config --variable=libdir nagare); includedir=$(pkg-config --variable=includedir nagare)
for f in "$includedir/nagare.h" "$bindir/nagare-solve" "$mandir/man1/nagare-solve.1"; do
  [ -f "$f" ] || fail "$f is not installed"
done
ls "$libdir"/libnagare.* > /dev/null 2>&1 || fail "no libnagare in $libdir (the libdir of nagare.pc)"
# Programs built here find the installed library as a user's would under a
# non-system prefix: through LD_LIBRARY_PATH (ldd below checks which one).
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; export LD_LIBRARY_PATH
if command -v groff > /dev/null 2>&1; then
  groff -man -Tutf8 -ww -z "$mandir/man1/nagare-solve.1" > "$tmp/groff.log" 2>&1 || fail "groff on nagare-solve.1"
  [ -s "$tmp/groff.log" ] && { cat "$tmp/groff.log"; fail "groff warns on nagare-solve.1"; }
fi
echo "ok: installed files under $(pkg-config --variable=prefix nagare) (nagare $version)"

# 2. nagare-solve -version
"$bindir/nagare-solve" -version > "$tmp/version" 2>&1 || { cat "$tmp/version"; fail "nagare-solve -version exit status"; }
sed 's/^/  /' "$tmp/version"
head -1 "$tmp/version" | grep -q "^nagare-solve $version (library libnagare $version)$" ||
  fail "nagare-solve -version does not name version $version"

# 3. a C program with pkg-config only (plain cc: no MPI wrapper needed)
cc=cc; command -v cc > /dev/null 2>&1 || cc="${CC:-gcc}"
# shellcheck disable=SC2046 # pkg-config output is a word list
$cc -o "$tmp/install_hello" "$here/install_hello.c" $(pkg-config --cflags nagare) $(pkg-config --libs nagare) ||
  fail "install_hello.c does not build with pkg-config nagare"
if command -v ldd > /dev/null 2>&1; then
  lib=$(ldd "$tmp/install_hello" | sed -n 's/.*libnagare\.so[^ ]* => \([^ ]*\).*/\1/p')
  case "$lib" in "$libdir"/*) ;; *) fail "install_hello runs with '$lib', not the installed $libdir/libnagare" ;; esac
fi
"$tmp/install_hello" "$version" || fail "install_hello"
echo "ok: C program built with pkg-config nagare"

# 4. the Fortran example with pkg-config nagare-fortran
if [ "$NG_HAVE_FORTRAN" = yes ]; then
  pkg-config --exists nagare-fortran || fail "nagare-fortran.pc is not installed"
  # shellcheck disable=SC2046
  (cd "$tmp" && ${FC:-gfortran} -o poisson_fortran "$src/examples/poisson_fortran.f90" \
     $(pkg-config --cflags nagare-fortran) $(pkg-config --libs nagare-fortran)) ||
    fail "examples/poisson_fortran.f90 does not build with pkg-config nagare-fortran"
  "$tmp/poisson_fortran" -n 16 -device cpu || fail "poisson_fortran (installed) on 1 rank"
  "$here/mpi-run.sh" 2 "$tmp/poisson_fortran" -n 16 -device cpu
  rc=$?; [ $rc -eq 0 ] || [ $rc -eq 77 ] || fail "poisson_fortran (installed) on 2 ranks (exit $rc)"
  echo "ok: Fortran example built with pkg-config nagare-fortran"
else
  echo "skipped: Fortran (not built)"
fi

# 5. the PETSc plug-in with pkg-config nagare-petsc (PETSc's headers need
# the MPI compiler wrapper)
if [ "$NG_HAVE_PETSC" = yes ]; then
  pkg-config --exists nagare-petsc || fail "nagare-petsc.pc is not installed (or PETSc.pc not found)"
  # shellcheck disable=SC2046
  ${CC:-mpicc} -o "$tmp/test_pcnagare" "$src/petsc/test_pcnagare.c" $(pkg-config --cflags nagare-petsc) \
    $(pkg-config --libs nagare-petsc) ||
    fail "petsc/test_pcnagare.c does not build with pkg-config nagare-petsc"
  for np in 1 2; do
    "$here/mpi-run.sh" $np "$tmp/test_pcnagare" -n 12 -maxits 30 -ksp_type cg -pc_type nagare \
      -nagare_precond amg -nagare_amg_theta 0.02 -nagare_device cpu > "$tmp/petsc.out" 2>&1
    rc=$?
    [ $rc -eq 77 ] && { echo "skipped: PETSc on $np ranks (no mpirun)"; continue; }
    if [ $rc -ne 0 ] || ! grep -q "^PASSED" "$tmp/petsc.out"; then
      cat "$tmp/petsc.out"; fail "installed PETSc plug-in on $np rank(s) (exit $rc)"
    fi
  done
  echo "ok: PETSc plug-in built with pkg-config nagare-petsc, 1 and 2 ranks"
else
  echo "skipped: PETSc plug-in (not built)"
fi

# 6. the documentation's programs against the installed library
SNIP_CC="$cc $(pkg-config --cflags nagare)"; SNIP_C_LIBS="$(pkg-config --libs nagare)"
SNIP_FC=""; SNIP_F_LIBS=""; SNIP_PETSC_CC=""; SNIP_PETSC_LIBS=""
[ "$NG_HAVE_FORTRAN" = yes ] && { SNIP_FC="${FC:-gfortran} $(pkg-config --cflags nagare-fortran)"; SNIP_F_LIBS="$(pkg-config --libs nagare-fortran)"; }
[ "$NG_HAVE_PETSC" = yes ] && { SNIP_PETSC_CC="${CC:-mpicc} $(pkg-config --cflags nagare-petsc)"; SNIP_PETSC_LIBS="$(pkg-config --libs nagare-petsc)"; }
export SNIP_CC SNIP_C_LIBS SNIP_FC SNIP_F_LIBS SNIP_PETSC_CC SNIP_PETSC_LIBS
sh "$here/doc_snippets.sh" || fail "doc snippets against the installed library"
# 7. the Lmod modulefile
prefix=$(pkg-config --variable=prefix nagare)
modfile="$prefix/share/modulefiles/nagare/$version.lua"
[ -f "$modfile" ] || fail "the Lmod modulefile $modfile is not installed"
lmod_init=""
if [ -n "$LMOD_CMD" ] && [ -n "$LMOD_PKG" ] && [ -f "$LMOD_PKG/init/sh" ]; then lmod_init="$LMOD_PKG/init/sh"
elif [ -f /usr/share/lmod/lmod/init/sh ]; then lmod_init=/usr/share/lmod/lmod/init/sh
fi
if [ -n "$lmod_init" ]; then
  (
    PKG_CONFIG_PATH="$ng_orig_pkg_config_path"; LD_LIBRARY_PATH="$ng_orig_ld_library_path"
    export PKG_CONFIG_PATH LD_LIBRARY_PATH
    . "$lmod_init" || fail "sourcing $lmod_init"
    module use "$prefix/share/modulefiles" || fail "module use $prefix/share/modulefiles"
    module load nagare || fail "module load nagare"
    [ "$NAGARE_DIR" = "$prefix" ] || fail "module load nagare: NAGARE_DIR is '$NAGARE_DIR', not $prefix"
    [ "$(command -v nagare-solve)" = "$bindir/nagare-solve" ] ||
      fail "module load nagare: nagare-solve on PATH is '$(command -v nagare-solve)', not $bindir/nagare-solve"
    nagare-solve -version | head -1 | grep -q "^nagare-solve $version " || fail "module load nagare: nagare-solve -version"
    # shellcheck disable=SC2046
    $cc -o "$tmp/lmod_hello" "$here/install_hello.c" $(pkg-config --cflags --libs nagare) ||
      fail "module load nagare: install_hello.c does not build with pkg-config --cflags --libs nagare"
    "$tmp/lmod_hello" "$version" > "$tmp/lmod_hello.out" 2>&1 || { cat "$tmp/lmod_hello.out"; fail "module load nagare: install_hello"; }
    if [ "$NG_HAVE_FORTRAN" = yes ]; then
      [ -f "$NAGARE_FORTRAN_INCLUDE/nagare.mod" ] ||
        fail "module load nagare: no nagare.mod in NAGARE_FORTRAN_INCLUDE='$NAGARE_FORTRAN_INCLUDE'"
    fi
    module unload nagare || fail "module unload nagare"
    [ "$(command -v nagare-solve)" = "$bindir/nagare-solve" ] && fail "module unload nagare leaves nagare-solve on PATH"
    exit 0
  ) || exit 1
  echo "ok: Lmod: module load nagare puts nagare-solve on PATH and pkg-config nagare alone builds and runs a C program"
else
  echo "skipped: Lmod modulefile check (no Lmod: LMOD_CMD unset and no /usr/share/lmod/lmod/init/sh; Debian: apt-get install lmod)"
fi
echo "PASS: installed nagare $version works through pkg-config"
