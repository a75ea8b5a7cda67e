#!/usr/bin/env bash
# Benchmarks of `grundy seq CODE --misere` (genus sequences, docs/benchmarks.md).
# Usage: benches/genus.sh [SCRATCH_DIR]   (CARGO_TARGET_DIR=target reuses the build)
# Builds grundy in release mode, then times each case, best of 3 (wall and user seconds,
# peak memory). Baselines in the same run: the normal-play sequence of the same game and
# count, and the whole-position misère search of the largest heap alone
# (`grundy solve CODE N --misere`), which decides one heap's outcome where the genus run
# gives the genus of every heap up to it.
set -euo pipefail
scratch=${1:-/tmp/grundy-bench}
mkdir -p "$scratch"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$scratch/target}
cargo build --release -p grundy-cli
G=$CARGO_TARGET_DIR/release/grundy

best() { # best() LABEL CMD... : best wall, user time and peak memory of 3 runs
  local label=$1; shift
  local bw=999999 bu=999999 bm=0
  for _ in 1 2 3; do
    local out
    out=$( { /usr/bin/time -f "%e %U %M" "$@" > /dev/null; } 2>&1 | tail -1)
    read -r w u m <<< "$out"
    bw=$(echo "$w $bw" | awk '{print ($1<$2)?$1:$2}')
    bu=$(echo "$u $bu" | awk '{print ($1<$2)?$1:$2}')
    bm=$m
  done
  printf '| %s | %s | %s | %s |\n' "$label" "$bw" "$bu" "$((bm / 1024))"
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | wall s | user s | peak MiB |"
echo "| --- | --- | --- | --- |"
for n in 40 50; do
  best "grundy seq 0.77 --misere -n $n" "$G" --no-db seq 0.77 --misere -n $n -q
done
best "grundy seq 0.77 -n 1000 (normal play)" "$G" --no-db seq 0.77 -n 1000 -q
best "grundy solve 0.77 40 --misere (one heap, search)" "$G" --no-db solve 0.77 40 --misere
best "grundy solve 0.77 50 --misere (one heap, search)" "$G" --no-db solve 0.77 50 --misere
best "grundy seq 0.07 --misere -n 50" "$G" --no-db seq 0.07 --misere -n 50 -q
best "grundy seq grundys-game --misere -n 40" "$G" --no-db seq grundys-game --misere -n 40 -q
best "grundy seq sub:1,3,4 --misere -n 1e6" "$G" --no-db seq sub:1,3,4 --misere -n 1e6 -q
best "grundy seq sub:1,3,4 -n 1e6 (normal play)" "$G" --no-db seq sub:1,3,4 -n 1e6 -q
best "grundy seq sub:2,5,6,11 --misere -n 1e6" "$G" --no-db seq sub:2,5,6,11 --misere -n 1e6 -q
# Misère canonical forms (`--canonical`) of the same games, beside their genus runs above.
for n in 40 50 60; do
  best "grundy seq 0.77 --misere --canonical -n $n" "$G" --no-db seq 0.77 --misere --canonical -n $n -q
done
best "grundy seq 0.07 --misere --canonical -n 50" "$G" --no-db seq 0.07 --misere --canonical -n 50 -q
best "grundy seq grundys-game --misere --canonical -n 40" "$G" --no-db seq grundys-game --misere --canonical -n 40 -q
best "grundy seq 0.312 --misere --canonical -n 1e6" "$G" --no-db seq 0.312 --misere --canonical -n 1e6 -q
best "grundy seq 0.312 --misere -n 1e6" "$G" --no-db seq 0.312 --misere -n 1e6 -q
best "grundy seq sub:1,3,4 --misere --canonical -n 1e6" "$G" --no-db seq sub:1,3,4 --misere --canonical -n 1e6 -q
