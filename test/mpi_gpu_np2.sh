#!/bin/sh
# test/mpi_gpu_np2.sh: two ranks on GPU contexts (sharing the node's GPUs):
# the halo goes device -> host -> MPI -> device through the host-staging
# transport. PCG+Jacobi, BiCGSTAB, AMG-PCG and AMG-GMRES (the hierarchy across both
# ranks, V-cycle on the GPU) must match the 1-rank GPU iteration count within
# 1 and the recomputed residual must meet the tolerance.
# Skipped without a CUDA device.
top="${NG_TOP_BUILDDIR:-.}"
dir="$(dirname "$0")"
probe=$("$top/nagare-solve" -problem lap7:4 -device gpu 2>&1)
if [ $? -ne 0 ]; then
  if echo "$probe" | grep -q "NG_ERR_NO_DEVICE"; then echo "skipped: no CUDA device"; exit 77; fi
  echo "$probe"; echo "FAIL: probe run"; exit 1
fi
for solver in "pcg -precond jacobi" "bicgstab -precond none" "pcg -precond amg" "gmres -precond amg -amg_smoother jacobi"; do
  # mpi-run.sh exits 77 (skip) in a build without MPI: pass that on.
  out1=$("$dir/mpi-run.sh" 1 "$top/nagare-solve" -problem lap27:32 -device gpu -solver $solver) || { rc=$?; echo "$out1"; exit $rc; }
  out2=$("$dir/mpi-run.sh" 2 "$top/nagare-solve" -problem lap27:32 -device gpu -solver $solver) || { rc=$?; echo "$out2"; exit $rc; }
  echo "$out2"
  its1=$(echo "$out1" | awk '/^iterations/ {print $3}')
  its2=$(echo "$out2" | awk '/^iterations/ {print $3}')
  res2=$(echo "$out2" | sed -n 's/.*(solver) *\([^ ]*\) (recomputed.*/\1/p')
  echo "$solver: 1 rank $its1, 2 ranks $its2 iterations, recomputed residual $res2"
  [ -n "$its1" ] && [ -n "$its2" ] && [ -n "$res2" ] || { echo "FAIL: missing report lines"; exit 1; }
  echo "$out2" | grep -q "(2 ranks)" || { echo "FAIL: not a 2-rank run"; exit 1; }
  d=$((its1 - its2)); [ $d -lt 0 ] && d=$((-d))
  [ $d -le 1 ] || { echo "FAIL: iteration counts differ by $d"; exit 1; }
  awk -v r="$res2" 'BEGIN { exit !(r <= 1.05e-8) }' || { echo "FAIL: residual $res2"; exit 1; }
done
