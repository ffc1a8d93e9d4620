#!/bin/sh
# test/mpi_pipecg_np4.sh: pipelined CG (solver/pipecg.c) against CG on 1
# and 4 ranks, fem27:20 with Jacobi, AMG and no preconditioner: the same
# iteration counts (within 1) and a recomputed relative residual under the
# tolerance; a null space is refused with a message naming cg.
# NG_TEST_DEVICE=gpu runs it on the GPU.
top="${NG_TOP_BUILDDIR:-.}"
dir="$(dirname "$0")"
dev="${NG_TEST_DEVICE:-cpu}"
fail=0
run() { # np, args... -> "iterations recomputed"
  np=$1; shift
  out=$("$dir/mpi-run.sh" "$np" "$top/nagare-solve" -device "$dev" "$@" 2>&1) || { echo "$out" >&2; echo "error"; return; }
  echo "$out" | awk '/^iterations/ {i = $3} /^relative residual/ {r = $6} END {print i, r}'
}
for pc in jacobi amg none; do
  args="-problem fem27:20 -precond $pc -tol 1e-9 -maxit 2000"
  ref=$(run 1 -solver cg $args)
  for np in 1 4; do
    got=$(run "$np" -solver pipecg $args)
    echo "$pc: cg (1 rank) $ref, pipecg ($np ranks) $got"
    its_cg=${ref%% *} its_pipe=${got%% *} rel=${got#* }
    case "$its_cg$its_pipe" in *[!0-9]*|'') echo "FAIL: $pc np $np: no result"; fail=1; continue ;; esac
    d=$((its_cg - its_pipe)); [ $d -lt 0 ] && d=$((-d))
    [ $d -le 1 ] || { echo "FAIL: $pc np $np: pipecg $its_pipe iterations, cg $its_cg"; fail=1; }
    awk -v r="$rel" 'BEGIN { exit !(r + 0 > 0 && r + 0 < 1e-8) }' || { echo "FAIL: $pc np $np: recomputed residual $rel"; fail=1; }
  done
done
msg=$("$dir/mpi-run.sh" 1 "$top/nagare-solve" -device "$dev" -problem lap7:12:neumann -solver pipecg -null_space constant 2>&1)
echo "$msg" | grep -q "pipecg: a null space is not supported.*use -solver cg" || { echo "$msg"; echo "FAIL: null space not refused"; fail=1; }
exit $fail
