#!/usr/bin/env bash
# Cram and Chomp boards: grundy's engines (pruned search, memo, dense) against each other and,
# when it is installed, against the published solver igsolve, in one run on one machine.
# Wall time, user time and peak RSS from /usr/bin/time -v; each run is limited to TIMEOUT
# (default 600) CPU seconds.
#
#   cargo build --release -p grundy-cli
#   cargo build --release -p grundy-games --example cram_value   # optional: the library alone
#   cargo install igsolve --root /tmp/grundy-bench/igs      # optional, never a dependency
#   bash benches/cram.sh [BOARD...]                          # default: 5x6 5x7 4x11
# `grundy solve cram RxC --value-only` computes what igsolve does (the nimber alone), on one
# thread (-j1) and on every core; `grundy solve cram RxC` the value and every winning move.
# SKIP_VALUE, SKIP_ANALYSIS, SKIP_MEMO: leave those runs out.
set -u
G=${GRUNDY:-${CARGO_TARGET_DIR:-target}/release/grundy}
V=${CRAM_VALUE:-${CARGO_TARGET_DIR:-target}/release/examples/cram_value}
IG=${IGSOLVE:-/tmp/grundy-bench/igs/bin/igsolve}
BOARDS=("$@")
[ ${#BOARDS[@]} -eq 0 ] && BOARDS=(5x6 5x7 4x11)
LIMIT=${TIMEOUT:-600}

measure() { # label, command...
  local label=$1; shift
  local out
  # The limit is CPU seconds (ulimit -t), not wall time: on a shared machine the wall time
  # of a run depends on the load, its CPU time much less.
  out=$( { /usr/bin/time -v bash -c 'ulimit -t "$0"; exec "$@"' "$LIMIT" "$@" >/tmp/bench-cram.out; } 2>&1 )
  local wall user sys rss code
  wall=$(echo "$out" | awk -F': ' '/Elapsed/ {print $2}')
  user=$(echo "$out" | awk -F': ' '/User time/ {print $2}')
  sys=$(echo "$out" | awk -F': ' '/System time/ {print $2}')
  rss=$(echo "$out" | awk -F': ' '/Maximum resident/ {printf "%.1f MiB", $2/1024}')
  code=$(echo "$out" | awk -F': ' '/Exit status/ {print $2}')
  echo "$out" | grep -q 'terminated by signal 24' && code="CPU limit of ${LIMIT} s"
  local answer
  answer=$(grep -oE '"grundy":[0-9null]+|Nimber of initial position: [0-9]+|grundy [0-9]+' /tmp/bench-cram.out | head -1)
  printf '| %-28s | %10s | %8s | %8s | %12s | %s (exit %s) |\n' "$label" "$wall" "$user" "$sys" "$rss" "$answer" "$code"
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | wall | user s | sys s | peak RSS | answer |"
echo "|---|---|---|---|---|---|"
for b in "${BOARDS[@]}"; do
  r=${b%x*}; c=${b#*x}
  [ -x "$V" ] && [ "${SKIP_VALUE:-}" = "" ] && measure "cram_value example $b" "$V" "$b"
  [ "${SKIP_VALUE:-}" = "" ] && measure "grundy solve cram $b --value-only -j1" "$G" solve cram "$b" --json --no-db --value-only -j1
  [ "${SKIP_VALUE:-}" = "" ] && measure "grundy solve cram $b --value-only" "$G" solve cram "$b" --json --no-db --value-only
  [ "${SKIP_ANALYSIS:-}" = "" ] && measure "grundy solve cram $b" "$G" solve cram "$b" --json --no-db
  [ "${SKIP_MEMO:-}" = "" ] && measure "grundy memo cram $b" "$G" solve cram "$b" --json --no-db --engine memo --max-positions 4000000000
  [ -x "$IG" ] && measure "igsolve cram $r $c" "$IG" cram -r "$r" -c "$c"
done
