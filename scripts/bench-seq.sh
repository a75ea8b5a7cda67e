#!/usr/bin/env bash
# Benchmarks of `grundy seq` against ogsolve (docs/benchmarks.md).
# Usage: scripts/bench-seq.sh [SCRATCH_DIR]
# Builds grundy in release mode, installs ogsolve into SCRATCH_DIR (not a dependency of
# grundy), then times each case: user CPU seconds and wall seconds, best of 3 runs.
# grundy copies values from a proven period once there is one (0.16 proves 149459 at heap
# 360163); the --every-heap rows time the method alone, every value computed.
set -euo pipefail
scratch=${1:-/tmp/grundy-bench}
mkdir -p "$scratch"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$scratch/target}
cargo build --release -p grundy-cli
G=$CARGO_TARGET_DIR/release/grundy
O=$scratch/ogs/bin/ogsolve
[ -x "$O" ] || cargo install ogsolve --root "$scratch/ogs"

best() { # best() LABEL CMD... : best wall and user time of 3 runs
  local label=$1; shift
  local bw=999999 bu=999999
  for _ in 1 2 3; do
    local out
    out=$( { /usr/bin/time -f "%e %U" "$@" > /dev/null; } 2>&1 | tail -1)
    local w=${out% *} u=${out#* }
    bw=$(echo "$w $bw" | awk '{print ($1<$2)?$1:$2}')
    bu=$(echo "$u $bu" | awk '{print ($1<$2)?$1:$2}')
  done
  printf '| %s | %s | %s |\n' "$label" "$bw" "$bu"
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | wall s | user s |"
echo "| --- | --- | --- |"
for m in rc rc2 rcs rc2s; do
  best "ogsolve 0.6 -m $m -n 2097151" "$O" 0.6 -m $m -n 2097151
done
best "grundy seq 0.6 -n 2^21 -j 1" "$G" --no-db seq 0.6 -n 2^21 -q -j 1
best "grundy seq 0.6 -n 2^21 -j 2" "$G" --no-db seq 0.6 -n 2^21 -q -j 2
for m in rc rc2 rcs rc2s; do
  best "ogsolve 0.16 -m $m -n 999999" "$O" 0.16 -m $m -n 999999
done
best "grundy seq 0.16 -n 10^6 -j 1" "$G" --no-db seq 0.16 -n 10^6 -q -j 1
best "grundy seq 0.16 -n 10^6 -j 2" "$G" --no-db seq 0.16 -n 10^6 -q -j 2
# The method alone: every heap computed, none copied from the proven period.
best "grundy seq 0.16 -n 10^6 -j 1 --every-heap" "$G" --no-db seq 0.16 -n 10^6 -q -j 1 --every-heap
best "grundy seq 0.16 -n 10^6 -j 2 --every-heap" "$G" --no-db seq 0.16 -n 10^6 -q -j 2 --every-heap
best "grundy seq grundys-game -n 2^21 -j 1" "$G" --no-db seq grundys-game -n 2^21 -q -j 1
best "grundy seq grundys-game -n 2^21 -j 2" "$G" --no-db seq grundys-game -n 2^21 -q -j 2
