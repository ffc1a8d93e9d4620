#!/bin/sh
# test/cfd_pressure.sh: examples/cfd_pressure (moving heavy blob, AMG updated
# each step) on a 24^3 grid for 10 steps, on 1 rank and (MPI builds) on 2
# ranks: every step must converge with a recomputed residual below the
# tolerance and a sane iteration count; the AMG hierarchy spans both ranks,
# so the 2-rank bound is the 1-rank one.
top="${NG_TOP_BUILDDIR:-.}"
here="$(dirname "$0")"
prog="$top/examples/cfd_pressure"
args="-n 24 -steps 10 -rho_ratio 1000 -device cpu -tol 1e-8"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
check() { # $1 = output file, $2 = iteration bound, $3 = label
  cat "$1"
  awk -v maxits="$2" -v label="$3" '
    /^ *[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ / {
      rows++
      if (NF != 9) { print "FAIL (" label "): step " $1 " did not converge: " $0; bad = 1 }
      if ($5 < 1 || $5 > maxits) { print "FAIL (" label "): step " $1 " took " $5 " iterations (bound " maxits ")"; bad = 1 }
      if ($7 + 0 > 1.05e-8) { print "FAIL (" label "): step " $1 " true residual " $7; bad = 1 }
    }
    /^all steps converged/ { ok = 1 }
    END {
      if (rows != 10) { print "FAIL (" label "): " rows " table rows, expected 10"; exit 1 }
      if (!ok) { print "FAIL (" label "): no \"all steps converged\""; exit 1 }
      exit bad
    }' "$1"
}
tmp=${TMPDIR:-/tmp}/ng_cfd.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} "$prog" $args > "$tmp/np1.txt" 2>&1 || { cat "$tmp/np1.txt"; echo "FAIL: exit status on 1 rank"; exit 1; }
check "$tmp/np1.txt" 25 "1 rank" || exit 1
"$here/mpi-run.sh" 2 "$prog" $args > "$tmp/np2.txt" 2>&1
rc=$?
if [ $rc -eq 77 ]; then cat "$tmp/np2.txt"; echo "1 rank passed; 2 ranks skipped"; exit 0; fi
[ $rc -eq 0 ] || { cat "$tmp/np2.txt"; echo "FAIL: exit status $rc on 2 ranks"; exit 1; }
check "$tmp/np2.txt" 25 "2 ranks" || exit 1
echo "PASS: cfd_pressure on 1 and 2 ranks"
