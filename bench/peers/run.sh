#!/bin/sh
# bench/peers/run.sh: nagare against hypre BoomerAMG and PETSc GAMG on the
# same Matrix Market files, CPU, one rank. Not part of the library's build:
# it builds its three small programs here with mpicc and pkg-config when
# libhypre-dev and petsc-dev are installed, writes the problems with
# nagare's own writer, then prints one JSON line per case and solver.
#   bench/peers/run.sh BUILD_DIR [SPEC ...]
# BUILD_DIR: a configured and built nagare tree (its nagare-solve and
# .libs/libnagare). Default specs: het5:512 het7:64 rotaniso:512 lap7:64
# and the CFD classes of issue 31: stretch7:64 jump2q1:70 jump2q1:300
# bubbles7:64 spheres7:64 jump3q1:40 bubbles5:512 layers7:64 p1tet:48
# (core/generate_cfd.c).
# Environment: OMP_NUM_THREADS (nagare's threads; the peers run on one
# core), PEER_DIR (work directory, default /tmp/nagare-peers),
# NAGARE_OPTS (extra nagare-solve options).
set -e
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [SPEC ...]}" && pwd)
shift
specs=${*:-"het5:512 het7:64 rotaniso:512 lap7:64 stretch7:64 jump2q1:70 jump2q1:300 bubbles7:64 spheres7:64 jump3q1:40 bubbles5:512 layers7:64 p1tet:48"}
work=${PEER_DIR:-/tmp/nagare-peers}
mkdir -p "$work"
if ! pkg-config --exists PETSc || [ ! -f /usr/include/hypre/HYPRE.h ]; then
  echo "run.sh: needs petsc-dev and libhypre-dev (apt-get install petsc-dev libhypre-dev)" >&2
  exit 77
fi
CC=${MPICC:-mpicc}
$CC -O2 -I"$src/include" "$here/write_mtx.c" -o "$work/write_mtx" -L"$build/.libs" -lnagare -Wl,-rpath,"$build/.libs"
$CC -O2 -I/usr/include/hypre "$here/peer_hypre.c" -o "$work/peer_hypre" -lHYPRE -lm
$CC -O2 $(pkg-config --cflags PETSc) "$here/peer_petsc.c" -o "$work/peer_petsc" $(pkg-config --libs PETSc) -lm
for spec in $specs; do
  f="$work/$(echo "$spec" | tr ':' '_').mtx"
  [ -f "$f" ] || "$work/write_mtx" "$spec" "$f"
  name=$(basename "$f" .mtx)
  # nagare on the same file: b = 1 (a right-hand side file of ones), x0 = 0, tol 1e-8
  n=$(awk '!/^%/ {print $1; exit}' "$f")
  b="$work/ones_$n.mtx"
  [ -f "$b" ] || { printf '%%%%MatrixMarket matrix array real general\n%s 1\n' "$n"; awk -v n="$n" 'BEGIN {for (i = 0; i < n; i++) print 1}'; } > "$b"
  out=$("$build/nagare-solve" "$f" -rhs "$b" -solver pcg -precond amg -tol 1e-8 -amg_view -monitor $NAGARE_OPTS 2>&1) || true
  its=$(echo "$out" | awk '/^iterations/ {print $3}')
  su=$(echo "$out" | awk '/^setup time/ {print $4}')
  so=$(echo "$out" | awk '/^solve time/ {print $4}')
  # the last hierarchy shown (-amg_coarsening auto may rebuild it as classical)
  oc=$(echo "$out" | grep -o 'operator complexity [0-9.]*' | tail -1 | awk '{print $3}')
  tr=$(echo "$out" | awk '/^relative residual/ {print $6}')
  # the first iteration whose recurrence residual met the tolerance: where
  # BoomerAMG's and GAMG's counts stop (they report the recurrence's
  # residual); nagare goes on from b - A x where that has drifted above it
  met=$(echo "$out" | awk '$1 == "it" && $6 + 0 <= 1e-8 {print $2; exit}')
  ok=true; echo "$out" | grep -q '^error' && ok=false
  cls=false; echo "$out" | grep -q 'auto: classical' && cls=true
  echo "{\"matrix\": \"$name\", \"solver\": \"nagare-amg-pcg\", \"setup_s\": ${su:-null}, \"solve_s\": ${so:-null}, \"iterations\": ${its:-null}, \"recurrence_met_at\": ${met:-null}, \"converged\": $ok, \"true_residual\": ${tr:-null}, \"operator_complexity\": ${oc:-null}, \"auto_classical\": $cls, \"options\": \"$NAGARE_OPTS\"}"
  OMP_NUM_THREADS=1 "$work/peer_hypre" "$f"
  OMP_NUM_THREADS=1 "$work/peer_petsc" "$f"
done
