#!/bin/sh
# test/cli_version.sh: "nagare-solve -version" exits 0 without touching a
# device and prints the package version (as configure has it), the library's
# own version, and one yes/no line per build feature, which must agree with
# config.h (CUDA, MPI, hwloc, Fortran, PETSc).
top="${NG_TOP_BUILDDIR:-.}"
out=$("$top/nagare-solve" -version 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "$out"; echo "FAIL: nagare-solve -version exit $rc"; exit 1; }
echo "$out"
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' "$top/config.h")
echo "$out" | head -1 | grep -q "^nagare-solve $version (library libnagare $version)$" ||
  { echo "FAIL: first line is not 'nagare-solve $version (library libnagare $version)'"; exit 1; }
fail=0
for f in CUDA:NG_HAVE_CUDA MPI:NG_HAVE_MPI hwloc:NG_HAVE_HWLOC zlib:NG_HAVE_ZLIB Fortran:NG_HAVE_FORTRAN PETSc:NG_HAVE_PETSC; do
  name=${f%%:*}; macro=${f#*:}
  want=no; grep -q "^#define $macro 1" "$top/config.h" && want=yes
  got=$(echo "$out" | sed -n "s/^$name *: \([a-z]*\).*/\1/p")
  [ "$got" = "$want" ] || { echo "FAIL: -version says '$name : $got', config.h says $want"; fail=1; }
done
echo "$out" | grep -q "^OpenMP *: \(yes\|no\)" || { echo "FAIL: no OpenMP line"; fail=1; }
# -version wins over everything else on the line, bad options included
"$top/nagare-solve" -tol abc -version > /dev/null 2>&1 || { echo "FAIL: -version after a bad option"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: nagare-solve -version"
exit $fail
