#!/bin/sh
# test/cli_json.sh: nagare-solve -json. On bcsstk13 (PCG + Jacobi) the JSON
# file parses, and its iterations, n, nnz, status and residuals are those of
# the text report printed beside it, with one history entry per iteration
# plus ||r0||; "-json -" puts only the JSON on standard output (the report on
# standard error); a solve stopped by -maxit gives converged false and the
# status; an unwritable path fails before the solve. The JSON is read with
# python3, else perl's JSON::PP (part of Debian's perl).
data=${NG_TEST_DATA:?NG_TEST_DATA not set}
top=${NG_TOP_BUILDDIR:-.}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=${TMPDIR:-/tmp}/ng_cli_json.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/json-flat.sh" # json_flat FILE, field KEY FLATFILE
fail=0

# 1. a file beside the text report
"$top/nagare-solve" "$data/bcsstk13.mtx" -device cpu -solver pcg -precond jacobi -tol 1e-8 -maxit 5000 \
  -json "$tmp/out.json" > "$tmp/report.txt" 2>&1 || { cat "$tmp/report.txt"; echo "FAIL: nagare-solve exit $?"; exit 1; }
cat "$tmp/report.txt"
json_flat "$tmp/out.json" > "$tmp/f" || { cat "$tmp/out.json"; echo "FAIL: -json FILE is not a JSON object"; exit 1; }
its=$(sed -n 's/^iterations *: *//p' "$tmp/report.txt")
n=$(sed -n 's/^unknowns *: *//p' "$tmp/report.txt")
nnz=$(sed -n 's/^nonzeros *: *//p' "$tmp/report.txt")
rel=$(sed -n 's/^relative residual *: *\([^ ]*\) (solver).*/\1/p' "$tmp/report.txt")
for k in problem n nnz ranks device solver precond format iterations converged status relative_residual \
  relative_residual_recomputed setup_s solve_s residual_history_length memory_space bytes_per_row; do
  grep -q "^$k=" "$tmp/f" || { echo "FAIL: the JSON has no '$k'"; fail=1; }
done
[ -n "$its" ] && [ "$(field iterations "$tmp/f")" = "$its" ] ||
  { echo "FAIL: JSON iterations $(field iterations "$tmp/f"), the report $its"; fail=1; }
[ "$(field n "$tmp/f")" = "$n" ] && [ "$(field nnz "$tmp/f")" = "$nnz" ] ||
  { echo "FAIL: JSON n/nnz $(field n "$tmp/f")/$(field nnz "$tmp/f"), the report $n/$nnz"; fail=1; }
[ "$(field residual_history_length "$tmp/f")" = $((its + 1)) ] ||
  { echo "FAIL: residual_history has $(field residual_history_length "$tmp/f") entries for $its iterations (want $((its + 1)))"; fail=1; }
[ "$(field converged "$tmp/f")" = true ] && [ "$(field status "$tmp/f")" = NG_SUCCESS ] ||
  { echo "FAIL: converged/status $(field converged "$tmp/f")/$(field status "$tmp/f")"; fail=1; }
[ "$(field ranks "$tmp/f")" = 1 ] && [ "$(field solver "$tmp/f")" = cg ] && [ "$(field precond "$tmp/f")" = jacobi ] ||
  { echo "FAIL: ranks/solver/precond $(field ranks "$tmp/f")/$(field solver "$tmp/f")/$(field precond "$tmp/f")"; fail=1; }
awk -v a="$(field relative_residual "$tmp/f")" -v b="$rel" -v t="$(field relative_residual_recomputed "$tmp/f")" \
  'BEGIN { if (b <= 0 || a / b < 0.9999 || a / b > 1.0001 || t > 1.05e-8) exit 1 }' ||
  { echo "FAIL: JSON residuals $(field relative_residual "$tmp/f") / $(field relative_residual_recomputed "$tmp/f"), the report $rel"; fail=1; }

# 2. "-json -": standard output is the JSON alone, the report on stderr
"$top/nagare-solve" -problem lap7:12 -device cpu -monitor -json - > "$tmp/stdout.json" 2> "$tmp/stderr.txt" ||
  { cat "$tmp/stderr.txt"; echo "FAIL: -json - exit $?"; fail=1; }
json_flat "$tmp/stdout.json" > "$tmp/f2" || { cat "$tmp/stdout.json"; echo "FAIL: -json - stdout is not one JSON object"; fail=1; }
its2=$(sed -n 's/^iterations *: *//p' "$tmp/stderr.txt")
[ -n "$its2" ] && [ "$(field iterations "$tmp/f2")" = "$its2" ] ||
  { echo "FAIL: -json -: JSON iterations $(field iterations "$tmp/f2"), the report on stderr '$its2'"; fail=1; }

# 3. stopped by -maxit: reported, exit 1
"$top/nagare-solve" -problem lap7:12 -device cpu -maxit 3 -json "$tmp/nc.json" > "$tmp/nc.txt" 2>&1 &&
  { echo "FAIL: exit 0 with -maxit 3"; fail=1; }
json_flat "$tmp/nc.json" > "$tmp/f3" || { cat "$tmp/nc.json"; echo "FAIL: not-converged JSON does not parse"; fail=1; }
[ "$(field converged "$tmp/f3")" = false ] && [ "$(field status "$tmp/f3")" = NG_ERR_NOT_CONVERGED ] &&
  [ "$(field iterations "$tmp/f3")" = 3 ] && grep -q "^message=.*not converged" "$tmp/f3" ||
  { cat "$tmp/f3"; echo "FAIL: -maxit 3: want converged false, NG_ERR_NOT_CONVERGED, 3 iterations and a message"; fail=1; }

# 4. an unwritable path: refused before the solve, naming the path
out=$("$top/nagare-solve" -problem lap7:12 -device cpu -json "$tmp/no/such/dir/x.json" 2>&1) &&
  { echo "FAIL: exit 0 with an unwritable -json path"; fail=1; }
echo "$out" | grep -q "^error: -json $tmp/no/such/dir/x.json: cannot open for writing" ||
  { echo "FAIL: unwritable -json path: $out"; fail=1; }
echo "$out" | grep -q "^iterations" && { echo "FAIL: solved although the -json path is unwritable"; fail=1; }

[ $fail -eq 0 ] && echo "PASS: -json ($its iterations, $((its + 1)) history entries; -json -; not converged; unwritable path)"
exit $fail
