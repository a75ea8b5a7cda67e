#!/usr/bin/env bash
# Officers (0.6) and Grundy's game to 2^21, 2^24 and 2^26 heaps: `grundy seq -j1` and `-j2`
# against ogsolve (one thread, method rc2, its fastest on Officers; it does not play Grundy's
# game), each command once, alternated (docs/benchmarks.md, "Officers and Grundy's game to
# 2^26"). Prints one table row per run: wall and user seconds and peak RSS (/usr/bin/time),
# heaps per second (wall) and the 1-minute load average before the run.
#
# Usage: benches/seq-ogsolve-big.sh [EXPONENT...]      (default: 21 24 26)
# Environment:
#   GRUNDY="name:path ..."  grundy binaries to compare (default: this tree's release build,
#                           built first, named "grundy")
#   OGSOLVE=path            ogsolve (default: installed with
#                           `cargo install ogsolve --root /tmp/grundy-bench/ogs`; never a
#                           dependency of grundy); OGSOLVE=skip runs grundy alone
#   GAMES="0.6 grundys-game"
#   JOBS="1 2"
set -euo pipefail
exps=("$@")
[ ${#exps[@]} -gt 0 ] || exps=(21 24 26)
if [ -z "${GRUNDY:-}" ]; then
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/grundy-bench/target}
  cargo build --release -p grundy-cli
  GRUNDY="grundy:$CARGO_TARGET_DIR/release/grundy"
fi
O=${OGSOLVE:-/tmp/grundy-bench/ogs/bin/ogsolve}
[ "$O" = skip ] || [ -x "$O" ] || cargo install ogsolve --root "$(dirname "$(dirname "$O")")"
games=${GAMES:-0.6 grundys-game}
jobs=${JOBS:-1 2}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

load() { cut -d' ' -f1 /proc/loadavg; }

# row LABEL HEAPS CMD... : runs CMD once (stdout to $out), prints a row.
row() {
  local label=$1 n=$2; shift 2
  local l t
  l=$(load)
  t=$( { /usr/bin/time -f "%e %U %M" "$@" > "$out"; } 2>&1 | tail -1)
  read -r w u k <<< "$t"
  awk -v label="$label" -v n="$n" -v w="$w" -v u="$u" -v k="$k" -v l="$l" \
    'BEGIN{printf "| %s | %.2f | %.2f | %.0f | %.3f M | %s |\n", label, w, u, k/1024, n/w/1e6, l}'
}

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | wall s | user s | peak RSS MiB | heaps/s (wall) | load before |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for e in "${exps[@]}"; do
  n=$((1 << e))
  for game in $games; do
    if [ "$game" = 0.6 ] && [ "$O" != skip ]; then
      row "ogsolve 0.6 -m rc2 -n $((n - 1))" "$n" "$O" 0.6 -m rc2 -n $((n - 1))
    fi
    for j in $jobs; do
      for g in $GRUNDY; do
        name=${g%%:*} bin=${g#*:}
        row "$name seq $game -n 2^$e -j $j" "$n" "$bin" --no-db seq "$game" -n "2^$e" -q -j "$j"
      done
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
