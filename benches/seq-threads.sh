#!/usr/bin/env bash
# Threads of `grundy seq` (issue 14 item 2, docs/benchmarks.md): heaps per second of
# Officers (0.6) and Grundy's game at 2^21 and 2^24 heaps with -j1, -j2 and -j4 (more threads
# than this machine's cores: the overhead of oversubscription), side by side in one run.
# Usage: benches/seq-threads.sh [RUNS]   (best of RUNS runs, default 3)
set -euo pipefail
runs=${1:-3}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/grundy-bench/target}
cargo build --release -p grundy-cli
G=$CARGO_TARGET_DIR/release/grundy

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| game | heaps | -j | wall s (best of $runs) | user s | heaps/s |"
echo "| --- | --- | --- | --- | --- | --- |"
for game in 0.6 grundys-game; do
  for e in 21 24; do
    n=$((1 << e))
    for j in 1 2 4; do
      bw=999999; bu=0
      for _ in $(seq "$runs"); do
        out=$( { /usr/bin/time -f "%e %U" "$G" --no-db seq "$game" -n "2^$e" -q -j "$j" > /dev/null; } 2>&1 | tail -1)
        w=${out% *}; u=${out#* }
        if awk -v a="$w" -v b="$bw" 'BEGIN{exit !(a<b)}'; then bw=$w; bu=$u; fi
      done
      rate=$(awk -v n="$n" -v w="$bw" 'BEGIN{printf "%.2fM", n/w/1e6}')
      echo "| $game | 2^$e | $j | $bw | $bu | $rate |"
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
