#!/bin/sh
# test/mpi_solve_np4.sh: issue 3's done-when, scaled down for CI: nagare-solve
# under mpirun -np 4 takes the 1-rank iteration count (within 1) and prints
# one row per rank.
top="${NG_TOP_BUILDDIR:-.}"
dir="$(dirname "$0")"
out1=$("$dir/mpi-run.sh" 1 "$top/nagare-solve" -problem fem27:24 -solver pcg -precond jacobi) || exit $?
out4=$("$dir/mpi-run.sh" 4 "$top/nagare-solve" -problem fem27:24 -solver pcg -precond jacobi) || exit $?
echo "$out4"
its1=$(echo "$out1" | awk '/^iterations/ {print $3}')
its4=$(echo "$out4" | awk '/^iterations/ {print $3}')
rows=$(echo "$out4" | awk '$1 ~ /^[0-3]$/ && NF >= 7' | wc -l)
echo "iterations: 1 rank $its1, 4 ranks $its4; per-rank rows printed: $rows"
[ -n "$its1" ] && [ -n "$its4" ] || { echo "FAIL: no iteration count"; exit 1; }
d=$((its1 - its4)); [ $d -lt 0 ] && d=$((-d))
[ $d -le 1 ] || { echo "FAIL: iteration counts differ by $d"; exit 1; }
[ "$rows" -eq 4 ] || { echo "FAIL: expected 4 per-rank rows"; exit 1; }
