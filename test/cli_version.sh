#!/bin/sh
# test/cli_version.sh: "nagare-solve -version" exits 0 without creating a
# device context and prints the package version (as configure has it), the
# library's own version, and one yes/no line per build feature, which must
# agree with config.h (CUDA, MPI, hwloc, Fortran, PETSc). In a CUDA build
# the CUDA line names the architectures of configure (NG_CUDA_ARCHS) and the
# GPUs visible: as many as nvidia-smi lists (when it is there and
# CUDA_VISIBLE_DEVICES is not set), and none with CUDA_VISIBLE_DEVICES="".
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
cuda=$(echo "$out" | grep "^CUDA *:")
if grep -q "^#define NG_HAVE_CUDA 1" "$top/config.h"; then
  archs=$(sed -n 's/^#define NG_CUDA_ARCHS "\(.*\)"/\1/p' "$top/config.h")
  want="sm_$(echo $archs | sed 's/ /, sm_/g')"
  echo "$cuda" | grep -q "^CUDA *: yes (built for $want), GPUs visible: \(none\|1 (.\+)\|[0-9]\+ (.\+)\)$" ||
    { echo "FAIL: CUDA line '$cuda' is not 'CUDA : yes (built for $want), GPUs visible: none|N (names)'"; fail=1; }
  seen=$(echo "$cuda" | sed -n 's/.*GPUs visible: \([0-9]*\).*/\1/p')
  seen=${seen:-0}
  if [ -z "${CUDA_VISIBLE_DEVICES+set}" ] && command -v nvidia-smi > /dev/null 2>&1; then
    smi=$(nvidia-smi -L 2> /dev/null | grep -c "^GPU ")
    [ "$seen" = "$smi" ] || { echo "FAIL: -version sees $seen GPUs, nvidia-smi -L lists $smi"; fail=1; }
  fi
  hidden=$(CUDA_VISIBLE_DEVICES= "$top/nagare-solve" -version 2>&1 | grep "^CUDA *:")
  echo "$hidden" | grep -q "GPUs visible: none$" ||
    { echo "FAIL: with CUDA_VISIBLE_DEVICES=\"\" the CUDA line is '$hidden', not '... GPUs visible: none'"; fail=1; }
else
  echo "$cuda" | grep -q "^CUDA *: no (a CPU-only build" || { echo "FAIL: CUDA line '$cuda' in a build without CUDA"; fail=1; }
fi
# -version wins over everything else on the line, bad options included
"$top/nagare-solve" -tol abc -version > /dev/null 2>&1 || { echo "FAIL: -version after a bad option"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: nagare-solve -version"
exit $fail
