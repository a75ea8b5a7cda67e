#!/usr/bin/env bash
# Peak memory of the Cram value search against igsolve, with each program's own start
# (an empty 2×2 board) measured too, so that what the solve itself adds can be compared.
# Alternates the two programs N times (default 9) and prints the median of each column.
#
#   cargo build --release -p grundy-games --example cram_value
#   cargo install igsolve --root /work/scratch-igsolve      # never a dependency
#   bash benches/cram-memory.sh [BOARD] [N]                  # default: 5x7 9
set -eu
V=${CRAM_VALUE:-${CARGO_TARGET_DIR:-target}/release/examples/cram_value}
IG=${IGSOLVE:-/work/scratch-igsolve/bin/igsolve}
BOARD=${1:-5x7}
N=${2:-9}
r=${BOARD%x*}; c=${BOARD#*x}
tmp=$(mktemp -d)
run() { # file, command...: appends "rss_kib user_s"
  local f=$1; shift
  /usr/bin/time -f "%M %U" -o "$tmp/t" "$@" >/dev/null
  cat "$tmp/t" >>"$tmp/$f"
}
for _ in $(seq "$N"); do
  run g-start "$V" 2x2
  run g "$V" "$BOARD"
  run i-start "$IG" cram -r 2 -c 2
  run i "$IG" cram -r "$r" -c "$c"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { awk -v k="$2" '{print $k}' "$tmp/$1" | median; }
gs=$(col g-start 1); g=$(col g 1); is=$(col i-start 1); i=$(col i 1)
echo "| program | user s (median of $N) | peak RSS KiB | start RSS KiB (2×2) | added KiB |"
echo "|---|---|---|---|---|"
echo "| grundy cram_value $BOARD | $(col g 2) | $g | $gs | $((g - gs)) |"
echo "| igsolve cram $r $c | $(col i 2) | $i | $is | $((i - is)) |"
echo "user s range: grundy $(sort -n -k2 "$tmp/g" | awk 'NR==1{a=$2} END{print a"–"$2}'), igsolve $(sort -n -k2 "$tmp/i" | awk 'NR==1{a=$2} END{print a"–"$2}')"
echo "added by the solve: grundy/igsolve = $(awk -v a=$((g - gs)) -v b=$((i - is)) 'BEGIN {printf "%.0f%%", 100 * a / b}')"
rm -r "$tmp"
