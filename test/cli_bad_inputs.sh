#!/bin/sh
# test/cli_bad_inputs.sh: every malformed Matrix Market file in test/data/bad
# must make nagare-solve print an error naming the problem and exit non-zero,
# and (when valgrind is installed) do so with no invalid memory access; a
# file with a zero diagonal in its second row is named "row 2".
# valgrind is slow here (MPI start-up, and ~30 s to load the CUDA libraries in
# a CUDA build), so it checks every 23rd file (two), or all of them with
# NG_VALGRIND_ALL=1; the rest run natively.
data=${NG_TEST_DATA:?NG_TEST_DATA not set}
top=${NG_TOP_BUILDDIR:-.}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
vg=""
if [ -n "$NG_NO_VALGRIND" ]; then
  echo "NG_NO_VALGRIND set (sanitizer build): no valgrind"
elif command -v valgrind >/dev/null 2>&1; then
  vg="valgrind -q --error-exitcode=99 --leak-check=no --suppressions=$data/../valgrind.supp"
else
  echo "valgrind not found: checking exit codes and messages only"
fi
n=0; bad=0; nvg=0
for f in "$data"/bad/*; do
  n=$((n + 1))
  use=""
  if [ -n "$vg" ] && { [ -n "$NG_VALGRIND_ALL" ] || [ $((n % 23)) -eq 1 ]; }; then use=$vg; nvg=$((nvg + 1)); fi
  out=$("$top/libtool" --mode=execute $use "$top/nagare-solve" "$f" -device cpu -precond jacobi 2>&1)
  rc=$?
  name=$(basename "$f")
  if [ $rc -eq 0 ]; then echo "FAIL $name: exit 0"; bad=$((bad + 1)); continue; fi
  if [ $rc -eq 99 ] || echo "$out" | grep -q "^==[0-9]*=="; then
    echo "FAIL $name: valgrind reported errors"; echo "$out"; bad=$((bad + 1)); continue
  fi
  if [ $rc -ge 128 ]; then echo "FAIL $name: killed by signal $((rc - 128))"; bad=$((bad + 1)); continue; fi
  # The message must name the file and a line ("path:line: what").
  if ! echo "$out" | grep -q "$name:[0-9][0-9]*: "; then
    echo "FAIL $name: no 'file:line: message' in: $out"; bad=$((bad + 1)); continue
  fi
done
echo "$n malformed files ($nvg under valgrind), $bad failures"
# A well-formed file whose second row has no diagonal entry: the message
# counts rows from 1 as the file does (and gives the 0-based index too).
zd=${TMPDIR:-/tmp}/ng_zero_diag.$$.mtx
trap 'rm -f "$zd"' EXIT
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 2.0\n2 1 1.0\n1 2 1.0\n3 3 1.0\n' > "$zd"
for pc in jacobi amg; do
  out=$("$top/nagare-solve" "$zd" -device cpu -precond $pc 2>&1)
  rc=$?
  if [ $rc -eq 0 ] || ! echo "$out" | grep -q "row 2 (0-based 1) has a zero or missing diagonal entry"; then
    echo "FAIL zero diagonal in the file's row 2, -precond $pc (exit $rc): $out"; bad=$((bad + 1))
  fi
done
[ $n -ge 40 ] && [ $bad -eq 0 ]
