#!/bin/sh
# test/petsc_pc.sh: PETSc KSP CG with -pc_type nagare (AMG) on a 3D Poisson
# matrix, 1 and 2 ranks: converged to rtol 1e-8 in under 30 iterations, true
# residual checked, second setup a value-only update (its SeqAIJ / MPIAIJ value
# copy checked against MatGetRow: -pc_nagare_verify_copy), the -nagare_* options
# taken (none left unused).
top="${NG_TOP_BUILDDIR:-.}"
here="$(dirname "$0")"
prog="$top/petsc/test_pcnagare"
args="-n 20 -maxits 30 -ksp_type cg -pc_type nagare -nagare_precond amg -nagare_amg_theta 0.02 -nagare_device cpu -pc_nagare_verify_copy -options_left"
tmp=${TMPDIR:-/tmp}/ng_petsc.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
for np in 1 2; do
  "$here/mpi-run.sh" $np "$prog" $args > "$tmp/out" 2>&1
  rc=$?
  cat "$tmp/out"
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { echo "FAIL: test_pcnagare on $np rank(s) (exit $rc)"; exit 1; }
  grep -q "^PASSED" "$tmp/out" || { echo "FAIL: no PASSED on $np rank(s)"; exit 1; }
  if grep -i "option left.*nagare" "$tmp/out"; then echo "FAIL: a -nagare_ option was not used"; exit 1; fi
done
echo "PASS: PC nagare in PETSc KSP on 1 and 2 ranks"
