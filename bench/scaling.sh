#!/bin/sh
# bench/scaling.sh: strong and weak scaling of one problem over 1..N ranks
# (one GPU a rank on a GPU build), one JSON line per run from bench/scaling.
#
#   bench/scaling.sh [-n N] [-mode strong|weak|both] [-problem SPEC] [-weak-problem SPEC] \
#                    [-transports "ipc host"] [-- solver options...]
#
# Strong: -problem (default lap27:256) on 1..N ranks. Weak: -weak-problem
# (default lap27:128) is one rank's share, stacked along z. Each run is
# repeated per transport in -transports (default: the library's choice).
# Example (the issue 29 tables):
#   bench/scaling.sh -n 4 -- -solver pcg -precond amg -tol 1e-8
#   bench/scaling.sh -n 4 -mode strong -- -solver pcg -precond jacobi -tol 0 -maxit 200
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${NG_SCALING_BIN:-$here/scaling}
n=4 mode=both problem=lap27:256 weakp=lap27:128 transports=""
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=$2; shift 2 ;;
    -mode) mode=$2; shift 2 ;;
    -problem) problem=$2; shift 2 ;;
    -weak-problem) weakp=$2; shift 2 ;;
    -transports) transports=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "bench/scaling.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mpirun=${MPIRUN:-mpirun}
run() { # ranks, mode flag, problem, transport, options...
  p=$1 wflag=$2 spec=$3 tr=$4; shift 4
  [ -n "$tr" ] && set -- "$@" -comm_transport "$tr"
  $mpirun --bind-to none -np "$p" "$bin" -problem "$spec" $wflag "$@"
}
for tr in ${transports:--}; do
  [ "$tr" = - ] && tr=""
  p=1
  while [ "$p" -le "$n" ]; do
    case $mode in strong|both) run "$p" "" "$problem" "$tr" "$@" ;; esac
    case $mode in weak|both) run "$p" -weak "$weakp" "$tr" "$@" ;; esac
    p=$((p + 1))
  done
done
