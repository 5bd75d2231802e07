#!/usr/bin/env bash
# The machine's read-bandwidth ceiling for a decode step's matmuls, the control for issue 12's F32 decode target:
# bench/native/row-stream.c (built here with gcc -O3 -march=native -fopenmp) streams a 400 MiB float buffer, the
# F32 124.7M model's matmul weights, as rows of 768, on one and two threads, with and without transparent huge
# pages. Needs gcc with OpenMP (Debian: gcc).
#
#   bench/memory-ceiling.sh [MIB] [PASSES]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mib="${1:-400}"
passes="${2:-20}"
command -v gcc >/dev/null || { echo "memory-ceiling.sh needs gcc (apt-get install gcc)" >&2; exit 1; }
bin="$(mktemp -d)/row-stream"
trap 'rm -rf "$(dirname "$bin")"' EXIT
gcc -O3 -march=native -fopenmp "$root/bench/native/row-stream.c" -o "$bin"
for threads in 1 2; do
  for huge in 0 1; do
    OMP_NUM_THREADS=$threads "$bin" "$mib" "$passes" "$huge"
  done
done
