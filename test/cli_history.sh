#!/bin/sh
# test/cli_history.sh: nagare-solve -history FILE and the -json members
# per_rank and amg_levels (issue 34 item 3).
#  1. bcsstk13, PCG + Jacobi: -history has iterations + 1 lines "k ||r_k||
#     ||r_k||/||r_0||" numbered 0..its, its ||r_k|| are the JSON's
#     residual_history and its last relative residual the solver's; per_rank
#     has one rank with all rows and nonzeros, no halo; no amg_levels (Jacobi).
#  2. lap7:12 with AMG: amg_levels are the -amg_view hierarchy (rows and nnz
#     of each level, level 0 = A).
#  3. 2 MPI ranks (skipped without MPI): per_rank has 2 rows summing to n,
#     each with a halo and a neighbour; amg_levels' level 0 is the global A;
#     the history file (rank 0's) has iterations + 1 lines.
#  4. an unwritable -history path fails before the solve.
# The JSON is flattened with python3, else perl's JSON::PP, into key=value
# lines ("per_rank.0.rows=...", "per_rank_length=1").
data=${NG_TEST_DATA:?NG_TEST_DATA not set}
top=${NG_TOP_BUILDDIR:-.}
here="$(cd "$(dirname "$0")" && pwd)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=${TMPDIR:-/tmp}/ng_cli_history.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/json-flat.sh" # json_flat FILE, field KEY FLATFILE
fail=0

# 1. one rank, Jacobi
"$top/nagare-solve" "$data/bcsstk13.mtx" -device cpu -solver pcg -precond jacobi -tol 1e-8 -maxit 5000 \
  -json "$tmp/1.json" -history "$tmp/1.hist" > "$tmp/1.txt" 2>&1 || { cat "$tmp/1.txt"; echo "FAIL: nagare-solve exit"; exit 1; }
json_flat "$tmp/1.json" > "$tmp/f1" || { cat "$tmp/1.json"; echo "FAIL: the JSON does not parse"; exit 1; }
its=$(field iterations "$tmp/f1"); n=$(field n "$tmp/f1"); nnz=$(field nnz "$tmp/f1")
[ -n "$its" ] && [ "$its" -gt 10 ] || { echo "FAIL: iterations '$its'"; exit 1; }
lines=$(wc -l < "$tmp/1.hist")
[ "$lines" -eq $((its + 1)) ] || { echo "FAIL: -history has $lines lines for $its iterations (want $((its + 1)))"; fail=1; }
awk 'NF != 3 || $1 != NR - 1 { exit 1 }' "$tmp/1.hist" ||
  { head -3 "$tmp/1.hist"; echo "FAIL: -history lines are not 'iteration residual relative' numbered from 0"; fail=1; }
# each ||r_k|| is the JSON's residual_history[k]; the ratios are ||r_k||/||r_0||
sed -n 's/^residual_history\.[0-9]*=//p' "$tmp/f1" > "$tmp/h.json"
awk 'NR == FNR { h[NR - 1] = $1; next }
     { if (h[$1] == "" || $2 / h[$1] < 0.9999 || $2 / h[$1] > 1.0001) bad = 1
       if (FNR == 1) r0 = $2
       if ($3 / ($2 / r0) < 0.9999 || $3 / ($2 / r0) > 1.0001) bad = 1 }
     END { exit bad }' "$tmp/h.json" "$tmp/1.hist" ||
  { echo "FAIL: -history residuals differ from the JSON's residual_history (or relative != r/r0)"; fail=1; }
last=$(tail -1 "$tmp/1.hist" | awk '{ print $3 }')
awk -v a="$last" -v b="$(field relative_residual "$tmp/f1")" 'BEGIN { if (b <= 0 || a / b < 0.9999 || a / b > 1.0001) exit 1 }' ||
  { echo "FAIL: the last -history relative residual $last is not the solver's $(field relative_residual "$tmp/f1")"; fail=1; }
[ "$(field per_rank_length "$tmp/f1")" = 1 ] && [ "$(field per_rank.0.rank "$tmp/f1")" = 0 ] &&
  [ "$(field per_rank.0.rows "$tmp/f1")" = "$n" ] && [ "$(field per_rank.0.nnz "$tmp/f1")" = "$nnz" ] &&
  [ "$(field per_rank.0.halo "$tmp/f1")" = 0 ] && [ "$(field per_rank.0.neighbours "$tmp/f1")" = 0 ] &&
  grep -q "^per_rank\.0\.comm_s=" "$tmp/f1" && grep -q "^per_rank\.0\.amg_comm_s=" "$tmp/f1" ||
  { grep "^per_rank" "$tmp/f1"; echo "FAIL: per_rank on one rank: want rank 0 with $n rows, $nnz nnz, no halo"; fail=1; }
grep -q "^amg_levels" "$tmp/f1" && { echo "FAIL: amg_levels with -precond jacobi"; fail=1; }

# 2. AMG: amg_levels are the -amg_view hierarchy
"$top/nagare-solve" -problem lap7:12 -device cpu -precond amg -amg_view -json "$tmp/2.json" > "$tmp/2.txt" 2>&1 ||
  { cat "$tmp/2.txt"; echo "FAIL: nagare-solve -precond amg exit"; fail=1; }
json_flat "$tmp/2.json" > "$tmp/f2" || { cat "$tmp/2.json"; echo "FAIL: AMG JSON does not parse"; fail=1; }
sed -n 's/^ *level \([0-9]*\): \([0-9]*\) rows, \([0-9]*\) nnz.*/\1 \2 \3/p' "$tmp/2.txt" > "$tmp/view"
nl=$(field amg_levels_length "$tmp/f2")
[ -n "$nl" ] && [ "$nl" -ge 2 ] && [ "$nl" -eq "$(wc -l < "$tmp/view")" ] ||
  { cat "$tmp/2.txt"; echo "FAIL: amg_levels has '$nl' levels, -amg_view $(wc -l < "$tmp/view")"; fail=1; }
while read -r l rows nz; do
  [ "$(field "amg_levels.$l.level" "$tmp/f2")" = "$l" ] && [ "$(field "amg_levels.$l.rows" "$tmp/f2")" = "$rows" ] &&
    [ "$(field "amg_levels.$l.nnz" "$tmp/f2")" = "$nz" ] ||
    { grep "^amg_levels" "$tmp/f2"; echo "FAIL: amg_levels level $l is not -amg_view's $rows rows, $nz nnz"; fail=1; }
done < "$tmp/view"
[ "$(field amg_levels.0.rows "$tmp/f2")" = "$(field n "$tmp/f2")" ] &&
  [ "$(field amg_levels.0.nnz "$tmp/f2")" = "$(field nnz "$tmp/f2")" ] ||
  { echo "FAIL: amg_levels level 0 is not A"; fail=1; }

# 3. two ranks
sh "$here/mpi-run.sh" 2 "$top/nagare-solve" -problem lap7:16 -device cpu -precond amg -json "$tmp/3.json" \
  -history "$tmp/3.hist" > "$tmp/3.txt" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
  cat "$tmp/3.txt"
elif [ $rc -ne 0 ]; then
  cat "$tmp/3.txt"; echo "FAIL: 2 ranks: exit $rc"; fail=1
else
  json_flat "$tmp/3.json" > "$tmp/f3" || { cat "$tmp/3.json"; echo "FAIL: 2-rank JSON does not parse"; fail=1; }
  n3=$(field n "$tmp/f3")
  r0=$(field per_rank.0.rows "$tmp/f3"); r1=$(field per_rank.1.rows "$tmp/f3")
  [ "$(field per_rank_length "$tmp/f3")" = 2 ] && [ "$(field per_rank.1.rank "$tmp/f3")" = 1 ] &&
    [ $((r0 + r1)) -eq "$n3" ] && [ "$(field per_rank.0.neighbours "$tmp/f3")" = 1 ] &&
    [ "$(field per_rank.1.neighbours "$tmp/f3")" = 1 ] && [ "$(field per_rank.0.halo "$tmp/f3")" -gt 0 ] ||
    { grep "^per_rank" "$tmp/f3"; echo "FAIL: 2 ranks: per_rank should hold 2 rows summing to $n3, 1 neighbour each"; fail=1; }
  # the text report's rank rows give the same rows and halos
  awk '$1 ~ /^[01]$/ && NF >= 7 { print $1, $2, $4 }' "$tmp/3.txt" > "$tmp/rows3"
  [ "$(cat "$tmp/rows3")" = "$(printf '0 %s %s\n1 %s %s' "$r0" "$(field per_rank.0.halo "$tmp/f3")" "$r1" \
     "$(field per_rank.1.halo "$tmp/f3")")" ] || { cat "$tmp/3.txt"; echo "FAIL: per_rank differs from the rank rows"; fail=1; }
  [ "$(field amg_levels.0.rows "$tmp/f3")" = "$n3" ] && [ "$(field amg_levels.0.nnz "$tmp/f3")" = "$(field nnz "$tmp/f3")" ] ||
    { echo "FAIL: 2 ranks: amg_levels level 0 is not the global A"; fail=1; }
  [ "$(wc -l < "$tmp/3.hist")" -eq $(($(field iterations "$tmp/f3") + 1)) ] ||
    { echo "FAIL: 2 ranks: -history has $(wc -l < "$tmp/3.hist") lines"; fail=1; }
fi

# 4. an unwritable path: refused before the solve
out=$("$top/nagare-solve" -problem lap7:12 -device cpu -history "$tmp/no/such/dir/h.txt" 2>&1) &&
  { echo "FAIL: exit 0 with an unwritable -history path"; fail=1; }
echo "$out" | grep -q "^error: -history $tmp/no/such/dir/h.txt: cannot open for writing" ||
  { echo "FAIL: unwritable -history path: $out"; fail=1; }
echo "$out" | grep -q "^iterations" && { echo "FAIL: solved although the -history path is unwritable"; fail=1; }

[ $fail -eq 0 ] && echo "PASS: -history ($its iterations, $lines lines), per_rank, amg_levels ($nl levels)"
exit $fail
