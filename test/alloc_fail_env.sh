#!/bin/sh
# test/alloc_fail_env.sh: NG_FAIL_ALLOC / NG_FAIL_ALLOC_DEVICE through the
# environment: nagare-solve with its Nth host allocation failing exits 1
# with a message naming the allocation, for a few N across the run (options,
# reading, setup, solve). The device variable is checked on a GPU only; there
# a failed allocation with a fallback may also end in a converged solve.
top=${NG_TOP_BUILDDIR:-.}
data=${NG_TEST_DATA:?NG_TEST_DATA not set}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bad=0
check() { # VAR N DEVICE WANT
  out=$(env "$1=$2" "$top/libtool" --mode=execute "$top/nagare-solve" "$data/494_bus.mtx" -device "$3" \
    -solver pcg -precond amg 2>&1)
  rc=$?
  # a device allocation may have a fallback (a GPU level built on the host,
  # the V-cycle's finest-level copy left out): then the solve must succeed
  if [ "$4" = device ] && [ $rc -eq 0 ] && echo "$out" | grep -q "^status *: NG_SUCCESS"; then
    echo "ok   $1=$2: failed allocation absorbed by a fallback, solve converged"
  elif [ $rc -ne 1 ] || ! echo "$out" | grep -q "injected failure of $4 allocation #$2,"; then
    echo "FAIL $1=$2 (-device $3): exit $rc: $out"; bad=$((bad + 1))
  else
    echo "ok   $1=$2: $(echo "$out" | grep -o "allocating [^(]*([0-9]* bytes)\|for [^:]*: out of memory" | head -1)"
  fi
}
# The run's allocation count T: the largest N that fails (bisection; a run
# with N > T succeeds). Then N = 1, T/4, T/2, 3T/4, T (options, reading,
# AMG setup; the solve itself allocates nothing).
fails() {
  env "NG_FAIL_ALLOC=$1" "$top/libtool" --mode=execute "$top/nagare-solve" "$data/494_bus.mtx" -device cpu \
    -solver pcg -precond amg 2>&1 | grep -q "injected failure of host allocation"
}
lo=1; hi=65536
fails $lo || { echo "FAIL: NG_FAIL_ALLOC=1 does not fail"; exit 1; }
if fails $hi; then echo "FAIL: NG_FAIL_ALLOC=$hi still fails (more allocations than expected?)"; exit 1; fi
while [ $((hi - lo)) -gt 1 ]; do
  mid=$(((lo + hi) / 2))
  if fails $mid; then lo=$mid; else hi=$mid; fi
done
echo "nagare-solve (494_bus, pcg + amg) makes $lo host allocations"
for n in 1 $((lo / 4)) $((lo / 2)) $((3 * lo / 4)) $lo; do check NG_FAIL_ALLOC $n cpu host; done
if "$top/libtool" --mode=execute "$top/nagare-solve" -problem lap7:4 -device gpu >/dev/null 2>&1; then
  for n in 1 3 20; do check NG_FAIL_ALLOC_DEVICE $n gpu device; done
else
  echo "no GPU: NG_FAIL_ALLOC_DEVICE not checked"
fi
[ $bad -eq 0 ]
