#!/bin/sh
# test/mpi_transport_gpu.sh: the transports on GPU contexts, 2 and 4 ranks
# sharing the node's GPUs (several ranks on one GPU where there is one):
# test/test_transport gpu (every transport against host), then nagare-solve
# (PCG with Jacobi and with AMG) with -comm_transport host and ipc: the same
# iteration count and residual, and the per-rank report names ipc for every
# neighbour; the same with NG_IPC_CACHE=1 (landing buffers and opened
# handles kept between plans: test_transport, and the AMG solve, whose
# setup makes and destroys plans, matching the ipc run). Skipped without a
# CUDA device.
top="${NG_TOP_BUILDDIR:-.}"
dir="$(dirname "$0")"
probe=$("$top/nagare-solve" -problem lap7:4 -device gpu 2>&1)
if [ $? -ne 0 ]; then
  if echo "$probe" | grep -q "NG_ERR_NO_DEVICE"; then echo "skipped: no CUDA device"; exit 77; fi
  echo "$probe"; echo "FAIL: probe run"; exit 1
fi
for np in 2 4; do
  "$dir/mpi-run.sh" $np "$top/test/test_transport" gpu || exit $?
  # the host ordering's landing-buffer fallback (receive buffer base not found)
  NG_IPC_SYNC=host NG_IPC_LANDING=1 "$dir/mpi-run.sh" $np "$top/test/test_transport" gpu || exit $?
  # the host-wait ordering (kept for comparison in bench/halo)
  NG_IPC_SYNC=host "$dir/mpi-run.sh" $np "$top/test/test_transport" gpu || exit $?
  # the handles kept between plans (comm/transport_ipc_cache.c)
  NG_IPC_CACHE=1 "$dir/mpi-run.sh" $np "$top/test/test_transport" gpu || exit $?
  for solver in "pcg -precond jacobi" "pcg -precond amg"; do
    outh=$("$dir/mpi-run.sh" $np "$top/nagare-solve" -problem fem27:24 -device gpu -solver $solver -comm_transport host) || { rc=$?; echo "$outh"; exit $rc; }
    outi=$("$dir/mpi-run.sh" $np "$top/nagare-solve" -problem fem27:24 -device gpu -solver $solver -comm_transport ipc) || { rc=$?; echo "$outi"; exit $rc; }
    outk=$(NG_IPC_CACHE=1 "$dir/mpi-run.sh" $np "$top/nagare-solve" -problem fem27:24 -device gpu -solver $solver -comm_transport ipc) || { rc=$?; echo "$outk"; exit $rc; }
    itsk=$(echo "$outk" | awk '/^iterations/ {print $3}')
    resk=$(echo "$outk" | sed -n 's/.*: *\([^ ]*\) (solver).*/\1/p')
    echo "$outi"
    itsh=$(echo "$outh" | awk '/^iterations/ {print $3}')
    itsi=$(echo "$outi" | awk '/^iterations/ {print $3}')
    resh=$(echo "$outh" | sed -n 's/.*: *\([^ ]*\) (solver).*/\1/p')
    resi=$(echo "$outi" | sed -n 's/.*: *\([^ ]*\) (solver).*/\1/p')
    echo "$np ranks, $solver: host $itsh iterations ($resh), ipc $itsi iterations ($resi)"
    [ -n "$itsh" ] && [ "$itsh" = "$itsi" ] || { echo "FAIL: iteration counts differ"; exit 1; }
    [ "$resh" = "$resi" ] || { echo "FAIL: residuals differ"; exit 1; }
    echo "$np ranks, $solver: ipc with NG_IPC_CACHE=1 $itsk iterations ($resk)"
    [ "$itsk" = "$itsi" ] && [ "$resk" = "$resi" ] || { echo "FAIL: NG_IPC_CACHE=1 differs from ipc"; exit 1; }
    echo "$outh" | grep -q " host:" || { echo "FAIL: host run does not report host"; exit 1; }
    nip=$(echo "$outi" | awk '$1 ~ /^[0-9]+$/ && NF >= 8 && $5 > 0 && $8 ~ /^ipc:/' | wc -l)
    nnb=$(echo "$outi" | awk '$1 ~ /^[0-9]+$/ && NF >= 8 && $5 > 0' | wc -l)
    [ "$nip" -eq "$nnb" ] && [ "$nnb" -gt 0 ] || { echo "FAIL: $nip of $nnb ranks with neighbours report ipc"; exit 1; }
  done
done
