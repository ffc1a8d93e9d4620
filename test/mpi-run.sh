#!/bin/sh
# test/mpi-run.sh NP PROGRAM [ARGS]: runs an MPI test program on NP ranks for
# make check. Skips (77) without an MPI build or mpirun; a timeout turns a
# hang into a failure. Oversubscribed on small machines: one OpenMP thread a
# rank and yielding MPI waits keep 4 ranks on 2 cores fast. Runs as root in
# CI (OMPI_ALLOW_RUN_AS_ROOT).
np="$1"; shift
prog="$1"; shift
top="${NG_TOP_BUILDDIR:-.}"
if ! grep -q "define NG_HAVE_MPI 1" "$top/config.h" 2>/dev/null; then
  echo "skipped: nagare built without MPI"; exit 77
fi
MPIRUN="${MPIRUN:-mpirun}"
if ! command -v "$MPIRUN" >/dev/null 2>&1; then
  echo "skipped: $MPIRUN not found"; exit 77
fi
OMPI_ALLOW_RUN_AS_ROOT=1; OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; CK_FORK=no
OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
OMPI_MCA_mpi_yield_when_idle=1; OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM CK_FORK OMP_NUM_THREADS
export OMPI_MCA_mpi_yield_when_idle OMPI_MCA_rmaps_base_oversubscribe
out=$(mktemp) && err=$(mktemp) || exit 99
trap 'rm -f "$out" "$err"' EXIT
run() { timeout "${NG_MPI_TIMEOUT:-120}" "$MPIRUN" --oversubscribe -np "$np" "$prog" "$@" > "$out" 2> "$err"; }
run "$@"
rc=$?
# The sanitizer tree: LeakSanitizer's own tracer can crash at exit under
# oversubscription ("Tracer caught signal 11", then "LeakSanitizer has
# encountered a fatal error"; seen on 4 ranks on 2 cores, depending on the
# build, with the solve done and correct). That is the tool failing, not a
# leak found: the run is repeated once without the leak check (ASan and
# UBSan still on) and says so on stderr. A leak report still fails.
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "LeakSanitizer has encountered a fatal error" "$err"; then
  echo "note: $prog on $np ranks: LeakSanitizer's tracer crashed at exit; run again without the leak check" >&2
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"; export ASAN_OPTIONS
  run "$@"
  rc=$?
fi
cat "$out"; cat "$err" >&2
if [ $rc -eq 124 ]; then echo "FAIL: $prog on $np ranks timed out (hang?)"; exit 1; fi
exit $rc
