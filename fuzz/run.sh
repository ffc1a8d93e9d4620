#!/bin/sh
# fuzz/run.sh [SECONDS] [HARNESS...]: builds the libFuzzer harnesses with
# clang (-fsanitize=fuzzer,address,undefined), replays every input of the
# seed corpus in fuzz/corpus/<harness>/ as a regression test, then fuzzes
# each harness for SECONDS (default 45; 0 = replay only). Fails on any
# crash, sanitizer report, leak, timeout or out-of-memory; the input that
# caused it is kept in $NG_FUZZ_BUILD/artifacts/ (fix the bug, then add the
# input to fuzz/corpus/<harness>/ so the replay guards it).
#
# Harnesses: mmio_matrix, mmio_vector (core/mmio.c), options
# (core/options.c), generate (core/generate*.c, comm/partition.c's spec
# parser). The library is compiled here once, CPU only, without MPI, hwloc
# or CUDA (a small config.h written below), into one static archive.
# Environment: CC (default clang), NG_FUZZ_BUILD (default fuzz/build in the
# source tree; git ignores it), NG_FUZZ_JOBS (parallel compiles, default 2).
# New inputs libFuzzer finds go to $NG_FUZZ_BUILD/new/<harness>/, not into
# the tree; merge interesting ones by hand (-merge=1) when updating seeds.
set -eu
cd "$(dirname "$0")/.."
src=$(pwd)
secs=${1:-45}
[ $# -gt 0 ] && shift
harnesses=${*:-mmio_matrix mmio_vector options generate}
CC=${CC:-clang}
build=${NG_FUZZ_BUILD:-$src/fuzz/build}
jobs=${NG_FUZZ_JOBS:-2}
mkdir -p "$build/obj" "$build/artifacts"

command -v "$CC" >/dev/null 2>&1 || { echo "fuzz/run.sh: $CC not found (apt-get install clang)"; exit 2; }
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cflags="-g -O1 -std=gnu11 $san -fsanitize=fuzzer-no-link -I$build -I$src/include -I$src/core -DHAVE_CONFIG_H"

# config.h: the version from configure.ac, zlib when its header is there.
ver=$(sed -n 's/^AC_INIT(\[nagare\], \[\([0-9.]*\)\].*/\1/p' configure.ac)
{
  echo "/* written by fuzz/run.sh */"
  echo "#define PACKAGE_VERSION \"$ver\""
  echo "#define NG_VERSION_MAJOR $(echo "$ver" | cut -d. -f1)"
  echo "#define NG_VERSION_MINOR $(echo "$ver" | cut -d. -f2)"
  echo "#define NG_VERSION_PATCH $(echo "$ver" | cut -d. -f3)"
  if echo '#include <zlib.h>' | "$CC" -E - >/dev/null 2>&1; then echo "#define NG_HAVE_ZLIB 1"; fi
} >"$build/config.h.new"
cmp -s "$build/config.h.new" "$build/config.h" 2>/dev/null || mv "$build/config.h.new" "$build/config.h"
libs="-lm"
grep -q NG_HAVE_ZLIB "$build/config.h" && libs="-lz $libs"

# The library: every C source of the CPU build, compiled when newer than its
# object (make-like, in parallel through xargs).
srcs=$(ls core/*.c dist/*.c comm/*.c spmv/*.c solver/*.c precond/*.c smoother/*.c amg/*.c)
echo "fuzz/run.sh: compiling $(echo "$srcs" | wc -w) library sources with $CC"
echo "$srcs" | tr ' ' '\n' | CFLAGS="$cflags" CC="$CC" build="$build" xargs -P "$jobs" -I{} sh -c '
  o="$build/obj/$(echo {} | tr / _).o"
  if [ ! -f "$o" ] || [ {} -nt "$o" ] || [ "$build/config.h" -nt "$o" ] || [ core/internal.h -nt "$o" ]; then
    $CC $CFLAGS -c {} -o "$o" || exit 255
  fi'
rm -f "$build/libnagare-fuzz.a"
ar rcs "$build/libnagare-fuzz.a" "$build"/obj/*.o

status=0
for h in $harnesses; do
  [ -f "fuzz/fuzz_$h.c" ] || { echo "fuzz/run.sh: no harness fuzz/fuzz_$h.c"; exit 2; }
  # shellcheck disable=SC2086
  $CC $cflags -fsanitize=fuzzer "fuzz/fuzz_$h.c" "$build/libnagare-fuzz.a" $libs -o "$build/fuzz_$h"
  corpus="fuzz/corpus/$h"
  new="$build/new/$h"
  mkdir -p "$new"
  n=$(find "$corpus" -type f | wc -l)
  # ASan: an allocation above 256 MB returns NULL (the reader then fails with
  # NG_ERR_MEMORY, as it must when memory runs out) rather than stopping the
  # fuzzer: a valid header may announce a matrix of any size.
  export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=256:detect_leaks=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  opts="-rss_limit_mb=2048 -timeout=20 -artifact_prefix=$build/artifacts/$h-"
  log="$build/$h.log"
  # shellcheck disable=SC2086
  if ! "$build/fuzz_$h" $opts -runs=0 "$corpus" >"$log" 2>&1; then
    echo "FAIL $h: the corpus replay crashed"; tail -40 "$log"; status=1; continue
  fi
  printf '%-12s corpus: %4d inputs replayed' "$h" "$n"
  if [ "$secs" -gt 0 ]; then
    # shellcheck disable=SC2086
    if ! "$build/fuzz_$h" $opts -max_total_time="$secs" -print_final_stats=1 "$new" "$corpus" >"$log" 2>&1; then
      echo; echo "FAIL $h: crash while fuzzing"; grep -A30 "ERROR\|==ERROR\|runtime error\|deadly signal" "$log" | head -60
      ls "$build/artifacts/$h-"* 2>/dev/null | sed 's/^/  input: /'
      status=1; continue
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    printf ', fuzzed %ss: %s executions, %s, %d new inputs' "$secs" "${execs:-?}" "$cov" "$(find "$new" -type f | wc -l)"
  fi
  echo
done
exit $status
