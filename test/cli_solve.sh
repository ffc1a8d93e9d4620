#!/bin/sh
# test/cli_solve.sh: nagare-solve solves a real SPD matrix (bcsstk13, b = A*1)
# with PCG+Jacobi; the residual it reports must match one recomputed here, in
# awk, from the .mtx file and the solution it wrote with -o. Progress lines:
# none for phases shorter than -progress (default 2 s, 60 here); with -progress 0 a
# start and an end line for every phase, on stderr only.
data=${NG_TEST_DATA:?NG_TEST_DATA not set}
top=${NG_TOP_BUILDDIR:-.}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=${TMPDIR:-/tmp}/ng_cli_solve.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
"$top/nagare-solve" "$data/bcsstk13.mtx" -device cpu -solver pcg -precond jacobi -tol 1e-8 -maxit 5000 \
  -o "$tmp/x.mtx" -progress 60 > "$tmp/report.txt" 2>&1 || { cat "$tmp/report.txt"; echo "FAIL: nagare-solve exit $?"; exit 1; }
cat "$tmp/report.txt"
reported=$(sed -n 's/^relative residual *: *\([^ ]*\) (solver).*/\1/p' "$tmp/report.txt")
[ -n "$reported" ] || { echo "FAIL: no residual in the report"; exit 1; }
# Independent residual: read A (symmetric, lower triangle stored) and x.
awk -v reported="$reported" '
  FNR == 1 { file++ }
  /^%/ { next }
  file == 1 && !have_size { n = $1; have_size = 1; next }
  file == 1 { i = $1; j = $2; v = $3; r[++k] = i; c[k] = j; a[k] = v; next }
  file == 2 && !have_xsize { have_xsize = 1; next }
  file == 2 { x[++m] = $1; next }
  END {
    if (m != n) { print "FAIL: solution has " m " entries, matrix " n; exit 1 }
    for (e = 1; e <= k; e++) {
      b[r[e]] += a[e]; ax[r[e]] += a[e] * x[c[e]]
      if (r[e] != c[e]) { b[c[e]] += a[e]; ax[c[e]] += a[e] * x[r[e]] }
    }
    for (i = 1; i <= n; i++) { d = b[i] - ax[i]; rr += d * d; bb += b[i] * b[i] }
    rel = sqrt(rr / bb)
    printf "recomputed relative residual %.6e, reported %s\n", rel, reported
    if (rel > 1.05e-8) { print "FAIL: residual above the tolerance"; exit 1 }
    q = rel / reported; if (q < 0.9 || q > 1.1) { print "FAIL: reported and recomputed residuals differ"; exit 1 }
  }' "$data/bcsstk13.mtx" "$tmp/x.mtx" || exit 1
# every phase of the run above took well under 60 s: no progress line
grep "^nagare-solve:" "$tmp/report.txt" && { echo "FAIL: progress lines for phases under -progress 60"; exit 1; }
"$top/nagare-solve" "$data/bcsstk13.mtx" -device cpu -maxit 5000 -o "$tmp/x.mtx" -progress 0 \
  > "$tmp/out.txt" 2> "$tmp/err.txt" || { cat "$tmp/err.txt"; echo "FAIL: -progress 0 exit $?"; exit 1; }
grep "^nagare-solve:" "$tmp/out.txt" && { echo "FAIL: progress lines on stdout"; exit 1; }
for phase in "reading $data/bcsstk13.mtx" "setting up the jacobi preconditioner" "solving with cg / jacobi" \
  "writing $tmp/x.mtx"; do
  grep -q -x "nagare-solve: $phase \.\.\." "$tmp/err.txt" && grep -q "^nagare-solve: $phase: done in [0-9.]* s$" "$tmp/err.txt" ||
    { cat "$tmp/err.txt"; echo "FAIL: -progress 0: no start and end lines for '$phase'"; exit 1; }
done
"$top/nagare-solve" -problem lap7:8 -device cpu -progress 0 2>&1 >/dev/null | grep -q "^nagare-solve: generating lap7:8: done" ||
  { echo "FAIL: -progress 0: no line for the generation"; exit 1; }
"$top/nagare-solve" -problem lap7:8 -device cpu -progress soon > /dev/null 2>&1 && { echo "FAIL: -progress soon accepted"; exit 1; }
echo "PASS: nagare-solve on bcsstk13; progress lines"
