#!/bin/sh
# test/cli_bad_inputs.sh: every malformed Matrix Market file in test/data/bad
# must make nagare-solve print an error naming the problem and exit non-zero,
# and (when valgrind is installed) do so with no invalid memory access.
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
[ $n -ge 40 ] && [ $bad -eq 0 ]
