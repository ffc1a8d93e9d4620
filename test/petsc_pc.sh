#!/bin/sh
# test/petsc_pc.sh: PETSc KSP CG with -pc_type nagare (AMG) on a 3D Poisson
# matrix, 1 and 2 ranks: converged to rtol 1e-8 in under 30 iterations, true
# residual checked, second setup a value-only update (its SeqAIJ / MPIAIJ value
# copy checked against MatGetRow: -pc_nagare_verify_copy), the -nagare_* options
# taken (none left unused). Then issue 32's plug-in items: -ksp_type bicg
# (PCApplyTranspose) converges in CG's iteration counts on 1 and 2 ranks;
# -help lists the -nagare_amg_* options; a Krylov option given to the PC
# (-nagare_tol) and a transpose of an unsymmetric cycle are refused with a
# message.
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
its() { grep "^solve [12]" "$1" | sed 's/.* \([0-9]*\) iterations.*/\1/' | tr '\n' ' '; }
small="-n 16 -maxits 30 -pc_type nagare -nagare_device cpu"
for np in 1 2; do
  "$here/mpi-run.sh" $np "$prog" $small -ksp_type cg > "$tmp/cg" 2>&1
  "$here/mpi-run.sh" $np "$prog" $small -ksp_type bicg > "$tmp/bicg" 2>&1 || { cat "$tmp/bicg"; echo "FAIL: bicg on $np rank(s)"; exit 1; }
  grep -q "^PASSED" "$tmp/bicg" || { cat "$tmp/bicg"; echo "FAIL: bicg on $np rank(s) did not pass"; exit 1; }
  echo "np $np: cg iterations $(its "$tmp/cg"), bicg $(its "$tmp/bicg")"
  [ "$(its "$tmp/cg")" = "$(its "$tmp/bicg")" ] || { echo "FAIL: bicg and cg iterations differ"; exit 1; }
done
"$here/mpi-run.sh" 1 "$prog" $small -ksp_type cg -help > "$tmp/help" 2>&1
for o in nagare_amg_theta nagare_amg_smoother nagare_precond; do
  grep -q "^ *-$o " "$tmp/help" || { grep nagare "$tmp/help"; echo "FAIL: -help does not list -$o"; exit 1; }
done
if grep -q -- "-nagare_tol " "$tmp/help"; then echo "FAIL: -help lists -nagare_tol (a KSP option)"; exit 1; fi
"$here/mpi-run.sh" 1 "$prog" $small -ksp_type cg -nagare_tol 1e-3 > "$tmp/tol" 2>&1
grep -q "nagare_tol does not apply to a preconditioner.*-ksp_rtol" "$tmp/tol" || { cat "$tmp/tol"; echo "FAIL: -nagare_tol not refused"; exit 1; }
"$here/mpi-run.sh" 1 "$prog" $small -ksp_type bicg -nagare_amg_presweeps 1 > "$tmp/t" 2>&1
grep -q "no transpose of a V-cycle with 1 sweeps before and 2 after" "$tmp/t" || { cat "$tmp/t"; echo "FAIL: unsymmetric transpose not refused"; exit 1; }
echo "PASS: PC nagare in PETSc KSP on 1 and 2 ranks (cg, bicg), -help, refusals"
