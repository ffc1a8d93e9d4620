#!/bin/sh
# test/mpi_cg_single_np4.sh: CG with one reduction an iteration
# (solver/cg_single.c, -cg_single_reduction 1) against the textbook
# form (-cg_single_reduction 0) on 4 ranks and against one rank: the same
# iteration counts (within 1) and a recomputed relative residual under the
# tolerance, for pcg + Jacobi on fem27 (a varying diagonal) and cg with no
# preconditioner on lap27. NG_TEST_DEVICE=gpu runs it on the GPU.
top="${NG_TOP_BUILDDIR:-.}"
dir="$(dirname "$0")"
dev="${NG_TEST_DEVICE:-cpu}"
fail=0
check() { # label, np, single, args...
  label=$1 np=$2 single=$3; shift 3
  out=$("$dir/mpi-run.sh" "$np" "$top/nagare-solve" -device "$dev" -cg_single_reduction "$single" "$@") || {
    echo "$out"; echo "FAIL: $label: nagare-solve exited with an error"; exit 1; }
  its=$(echo "$out" | awk '/^iterations/ {print $3}')
  rel=$(echo "$out" | awk '/^relative residual/ {print $6}')
  echo "$label: np $np single $single: $its iterations, recomputed relative residual $rel"
  eval "its_$label$np$single=$its; rel_$label$np$single=$rel"
}
near() { d=$(($1 - $2)); [ $d -lt 0 ] && d=$((-d)); [ $d -le 1 ]; }
below() { awk -v r="$1" -v t="$2" 'BEGIN { exit !(r + 0 > 0 && r + 0 < t) }'; }
for label in fem lap; do
  if [ $label = fem ]; then set -- -problem fem27:20 -solver pcg -precond jacobi -tol 1e-9 -maxit 2000
  else set -- -problem lap27:24 -solver cg -precond none -tol 1e-9 -maxit 2000; fi
  check $label 1 1 "$@"; check $label 4 1 "$@"; check $label 4 0 "$@"
  eval "a=\$its_${label}11 b=\$its_${label}41 c=\$its_${label}40 r=\$rel_${label}41"
  [ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] || { echo "FAIL: $label: no iteration count"; fail=1; continue; }
  near "$b" "$c" || { echo "FAIL: $label: single reduction $b iterations, textbook $c"; fail=1; }
  near "$b" "$a" || { echo "FAIL: $label: 4 ranks $b iterations, 1 rank $a"; fail=1; }
  tol=1e-8
  below "$r" "$tol" || { echo "FAIL: $label: recomputed relative residual $r not below $tol"; fail=1; }
done
exit $fail
