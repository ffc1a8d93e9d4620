#!/bin/sh
# test/mpi_null_space.sh: issue 32 under MPI. nagare-solve with
# -null_space constant -precond amg on pure-Neumann problems converges on
# 1, 2 and 4 ranks with at most 2 more iterations than on 1 rank: the
# generated lap7/lap27 ":neumann" (consistent b), the same with a coarsest
# level of 1000+ rows (-amg_max_levels 2: the distributed coarse solve's
# pseudo-inverse), and a Neumann lap7 file with an inconsistent b (b = 1 +
# 1e-3 sin(i), written here) whose removed null-space part is reported.
top="${NG_TOP_BUILDDIR:-.}"
dir="$(dirname "$0")"
tmp="${TMPDIR:-/tmp}/ng_mpi_null_$$"
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
# 7-point Neumann Laplacian on 16^3 nodes, rows summing to zero
awk -v N=16 'BEGIN {
  n = N * N * N; nnz = 0
  for (z = 0; z < N; z++) for (y = 0; y < N; y++) for (x = 0; x < N; x++) {
    i = x + N * (y + N * z) + 1; d = 0
    if (x > 0) { e[++nnz] = i " " i - 1 " -1"; d++ }
    if (x < N - 1) { e[++nnz] = i " " i + 1 " -1"; d++ }
    if (y > 0) { e[++nnz] = i " " i - N " -1"; d++ }
    if (y < N - 1) { e[++nnz] = i " " i + N " -1"; d++ }
    if (z > 0) { e[++nnz] = i " " i - N * N " -1"; d++ }
    if (z < N - 1) { e[++nnz] = i " " i + N * N " -1"; d++ }
    e[++nnz] = i " " i " " d
  }
  print "%%MatrixMarket matrix coordinate real general"; print n, n, nnz
  for (k = 1; k <= nnz; k++) print e[k]
}' > "$tmp/neumann.mtx" || exit 1
awk -v n=4096 'BEGIN { print "%%MatrixMarket matrix array real general"; print n, 1
  for (i = 1; i <= n; i++) printf "%.17g\n", 1 + 1e-3 * sin(i) }' > "$tmp/b.mtx" || exit 1
field() { echo "$1" | awk -v k="$2" '$0 ~ "^" k {sub(/^[^:]*: */, ""); print; exit}'; }
for case in "-problem lap7:24:neumann" "-problem lap27:24:neumann -amg_theta 0.02" \
            "-problem lap7:24:neumann -amg_max_levels 2" "$tmp/neumann.mtx -rhs $tmp/b.mtx"; do
  i1=
  for np in 1 2 4; do
    out=$("$dir/mpi-run.sh" $np "$top/nagare-solve" $case -null_space constant -precond amg) || {
      rc=$?; echo "$out"; [ $rc -eq 77 ] && exit 77; echo "FAIL: $case on $np ranks"; exit 1; }
    iN=$(field "$out" iterations)
    echo "$case: $np rank(s) $iN iterations; $(field "$out" "null space")"
    echo "$out" | grep -q "^status *: NG_SUCCESS" || { echo "$out"; echo "FAIL: not converged"; exit 1; }
    [ -n "$i1" ] || i1=$iN
    [ "$iN" -le $((i1 + 2)) ] || { echo "$out"; echo "FAIL: $np ranks take $iN iterations, 1 rank $i1"; exit 1; }
  done
  # the file's b = 1 + 1e-3 sin(i): almost all of it is the constant
  case "$case" in *b.mtx*)
    echo "$out" | grep -Eq "removed: (1\.000e\+00|9\.99[0-9]e-01)" || { echo "$out"; echo "FAIL: the removed part of b not reported"; exit 1; } ;;
  esac
done
