#!/bin/sh
# test/gpu_sanitize.sh [TOOL...]: every GPU test under NVIDIA compute-sanitizer
# (issue 16): memcheck (with device leak checks), racecheck, initcheck and
# synccheck by default, or the tools named. Fails on any reported error.
#
# Run it on a GPU machine from a CUDA build tree after `make check` built the
# programs (configure with NVCCFLAGS=-lineinfo for source lines in reports):
#   cd build && sh ../test/gpu_sanitize.sh            # all four tools
#   sh ../test/gpu_sanitize.sh memcheck initcheck     # some
# Environment: COMPUTE_SANITIZER (the tool's path), NG_CS_FLAGS (extra
# compute-sanitizer flags, e.g. a --kernel-name-exclude for a library kernel,
# with a note why), NG_CS_TIMEOUT (seconds per case, default 1800),
# NG_CS_LOGDIR (where the per-case logs go, default ./gpu-sanitize-logs).
#
# Cases: the GPU suites (test_gpu, test_formats_gpu, test_amg_gpu,
# test_numeric_gpu; Check without fork, so one process is checked), the
# device allocation-failure walk (memcheck only: its device leak check after
# every failed run is the point; the other tools add nothing on host-side
# error paths), nagare-solve on generated problems through each solver and
# preconditioner, and 2-rank GPU solves with compute-sanitizer under mpirun
# (one instance per rank).
# A case that skips (exit 77: no device) counts as a failure here: this
# script exists to run on a GPU.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
top=${NG_TOP_BUILDDIR:-$(pwd)}
if [ ! -x "$top/nagare-solve" ] || ! grep -q "define NG_HAVE_CUDA 1" "$top/config.h" 2>/dev/null; then
  echo "gpu_sanitize.sh: run from a CUDA build tree (nagare-solve and config.h with NG_HAVE_CUDA; make check first)"
  exit 2
fi
CS=${COMPUTE_SANITIZER:-}
if [ -z "$CS" ]; then
  CS=$(command -v compute-sanitizer 2>/dev/null || true)
  [ -n "$CS" ] || CS=/usr/local/cuda/bin/compute-sanitizer
fi
[ -x "$CS" ] || { echo "gpu_sanitize.sh: compute-sanitizer not found (set COMPUTE_SANITIZER)"; exit 2; }
for t in test/test_gpu test/test_formats_gpu test/test_amg_gpu test/test_numeric_gpu test/test_alloc_fail_gpu; do
  [ -x "$top/$t" ] || { echo "gpu_sanitize.sh: $top/$t missing: run make check (or make $t) first"; exit 2; }
done

export NG_TEST_DATA="$src/test/data" NG_TOP_BUILDDIR="$top" CK_FORK=no
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
logdir=${NG_CS_LOGDIR:-$(pwd)/gpu-sanitize-logs}
mkdir -p "$logdir"
tools=${*:-memcheck racecheck initcheck synccheck}
tmo=${NG_CS_TIMEOUT:-1800}
solve="$top/nagare-solve"
nfail=0; nrun=0

# cs TOOL NAME COMMAND...: one case; its log is $logdir/TOOL-NAME.log.
# With ranks=N set (N > 0) it runs under mpirun on N ranks.
ranks=0
cs() {
  tool=$1; name=$2; shift 2
  extra=""
  case $tool in
    # API errors are not memory defects: the library checks every CUDA return
    # code itself, and test_gpu provokes "out of memory" on purpose to test
    # that check (reported as an API error with "explicit")
    memcheck) extra="--leak-check full --report-api-errors no" ;;
    racecheck) extra="--racecheck-report all" ;;
  esac
  log="$logdir/$tool-$name.log"
  start=$(date +%s)
  # --target-processes all: the build tree's programs are libtool wrapper
  # scripts that exec the real binary. ranks > 0: mpirun starts one
  # compute-sanitizer per rank (each prints its own ERROR SUMMARY).
  mpi=""
  [ "$ranks" -gt 0 ] && mpi="mpirun --oversubscribe -np $ranks"
  # shellcheck disable=SC2086
  timeout "$tmo" $mpi "$CS" --tool "$tool" $extra --error-exitcode 99 --target-processes all \
    --print-limit 50 ${NG_CS_FLAGS:-} "$@" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  nrun=$((nrun + 1))
  # Every checked process ends with "ERROR SUMMARY: N errors".
  errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9][0-9]*\) error.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
  nsum=$(grep -c "ERROR SUMMARY" "$log")
  status=ok
  if [ $rc -eq 124 ]; then status="timed out after ${tmo}s"
  elif [ $rc -eq 77 ]; then status="skipped (no device?)"
  elif [ $rc -ne 0 ]; then status="exit $rc"
  elif [ "$errs" -ne 0 ]; then status="$errs errors"
  elif [ "$nsum" -eq 0 ]; then status="no ERROR SUMMARY (nothing checked?)"
  fi
  printf '%-10s %-28s %5ss  %s\n' "$tool" "$name" "$secs" "$status"
  if [ "$status" != ok ]; then
    nfail=$((nfail + 1))
    grep -m 20 -E "^=========  *(Invalid|Program hit|Uninitialized|Race|Barrier|Leaked|Error|Warning)|ERROR SUMMARY" "$log" | sed 's/^/    /'
    echo "    full log: $log"
  fi
}

for tool in $tools; do
  case $tool in memcheck|racecheck|initcheck|synccheck) ;; *) echo "unknown tool '$tool'"; exit 2 ;; esac
  cs "$tool" test_gpu "$top/test/test_gpu"
  cs "$tool" test_formats_gpu "$top/test/test_formats_gpu"
  cs "$tool" test_amg_gpu "$top/test/test_amg_gpu"
  cs "$tool" test_numeric_gpu "$top/test/test_numeric_gpu"
  [ "$tool" = memcheck ] && cs "$tool" test_alloc_fail_gpu "$top/test/test_alloc_fail_gpu"
  cs "$tool" solve-pcg-amg-lap27 "$solve" -problem lap27:24 -device gpu -solver pcg -precond amg
  cs "$tool" solve-pcg-jacobi-fem27 "$solve" -problem fem27:16 -device gpu -solver pcg -precond jacobi -format auto
  cs "$tool" solve-pbicgstab-amg-mps "$solve" -problem mps:12 -device gpu -solver pbicgstab -precond amg
  cs "$tool" solve-pbicgstab-mtx "$solve" "$src/test/data/bcsstk13.mtx" -device gpu -solver pbicgstab -precond amg -maxit 3000
  # Two ranks: mpirun starts compute-sanitizer once per rank (each writes
  # its own ERROR SUMMARY into the shared log).
  if grep -q "define NG_HAVE_MPI 1" "$top/config.h" && command -v mpirun >/dev/null 2>&1; then
    ranks=2
    cs "$tool" solve-2ranks-pcg-amg "$solve" -problem lap27:24 -device gpu -solver pcg -precond amg
    cs "$tool" solve-2ranks-pbicgstab "$solve" -problem fem27:16 -device gpu -solver pbicgstab -precond jacobi
    ranks=0
  fi
done
echo "gpu_sanitize.sh: $nrun cases, $nfail failed (logs in $logdir)"
[ $nfail -eq 0 ]
