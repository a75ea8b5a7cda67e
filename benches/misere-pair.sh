#!/usr/bin/env bash
# Two builds of grundy over the same misère sums, run alternately (A, B, A, B, ...) so that
# the load of a shared machine falls on both alike: each sum is solved cold
# (`grundy --no-db solve CODE HEAPS --misere`) ROUNDS times by each, timed in CPU seconds
# (user + system; the least of the rounds is kept) and in wall seconds, and the outcome and
# winning-move lines of the two are compared (any difference is printed and counted).
#
#   bash benches/misere-pair.sh BEFORE AFTER SUMS.tsv [ROUNDS] > table.tsv
#
# SUMS.tsv: lines "CODE<TAB>HEAPS" (further columns ignored; a first line "code..." is
# skipped), e.g. the slowest sums of the TSV benches/misere-all-codes.sh writes:
#   tail -n +2 all.tsv | sort -t$'\t' -k4,4gr | head -40 > slowest.tsv
# Prints "code heaps cpu_A cpu_B wall_A wall_B same" per sum, then the totals, the load
# average before and after.
set -u
A=$1
B=$2
SUMS=$3
ROUNDS=${4:-2}
TF=$(mktemp)
trap 'rm -f "$TF"' EXIT
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load before $(cut -d' ' -f1-3 /proc/loadavg); rounds $ROUNDS"
printf "code\theaps\tcpu_a\tcpu_b\twall_a\twall_b\tsame\n"
run() { # binary code heaps -> "cpu wall" on the first line, the answer after
  # shellcheck disable=SC2086
  ans=$(/usr/bin/time -f "%U %S %e" -o "$TF" "$1" --no-db solve "$2" $3 --misere 2>&1 </dev/null)
  echo "$(tail -1 "$TF" | awk '{printf "%.2f %.2f", $1 + $2, $3}')"
  echo "$ans" | sed -n 's/^outcome: *//p; s/^winning moves: */moves: /p'
}
grep -v '^code' "$SUMS" | while IFS=$'\t' read -r code heaps _; do
  [ -z "$code" ] && continue
  ca=99; cb=99; wa=99; wb=99; same=yes
  for _r in $(seq "$ROUNDS"); do
    ra=$(run "$A" "$code" "$heaps")
    rb=$(run "$B" "$code" "$heaps")
    [ "$(echo "$ra" | tail -n +2)" = "$(echo "$rb" | tail -n +2)" ] || same=NO
    read -r c w <<<"$(echo "$ra" | head -1)"
    ca=$(awk -v x="$ca" -v y="$c" 'BEGIN {print (y < x) ? y : x}'); wa=$(awk -v x="$wa" -v y="$w" 'BEGIN {print (y < x) ? y : x}')
    read -r c w <<<"$(echo "$rb" | head -1)"
    cb=$(awk -v x="$cb" -v y="$c" 'BEGIN {print (y < x) ? y : x}'); wb=$(awk -v x="$wb" -v y="$w" 'BEGIN {print (y < x) ? y : x}')
  done
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$code" "$heaps" "$ca" "$cb" "$wa" "$wb" "$same"
done | awk -F'\t' '{print} /^code/ {next} {n++; a += $3; b += $4; if ($3 > ma) ma = $3; if ($4 > mb) mb = $4; if ($7 != "yes") d++}
  END {printf "# %d sums: CPU total %.2f s -> %.2f s, worst %.2f s -> %.2f s, answers differing: %d\n", n, a, b, ma, mb, d + 0}'
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
