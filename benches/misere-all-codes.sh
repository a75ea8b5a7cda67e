#!/usr/bin/env bash
# Misère sums of every octal game (issue 13, item 5): for every two-digit code 0.d1d2
# (0.d10 is the one-digit 0.d1) and three-digit code 0.d1d2d3 (d3 ≠ 0), 511 games (the codes
# of benches/quotient.sh), a fixed set of hard sums of
# three to five heaps with at most 60 tokens and a few random ones, each solved cold
# (`grundy --no-db solve CODE HEAPS --misere`: no store, so no quotient learned before it),
# cut at TIMEOUT seconds. Each is timed in wall seconds and in CPU seconds (user + system:
# what the sum costs whatever else the machine runs; the wall time of a loaded machine is
# longer, and the solve's slices of search and quotient growth are wall-clock slices).
# Prints the sums over 1 s (wall, and CPU), the slowest, and the median and max of each
# game, and writes every sum to OUT.tsv.
#
#   cargo build --release -p grundy-cli
#   bash benches/misere-all-codes.sh [OUT.tsv] [RANDOM_SUMS] [DIGITS]
#
# DIGITS: 2 for the two-digit codes only, 3 for the three-digit ones only (default: both).
# Random sums are drawn by awk's generator seeded by the code (the same sums every run).
# CODES="0.77 0.137" limits the run to those games.
set -u
G=${GRUNDY:-${CARGO_TARGET_DIR:-target}/release/grundy}
OUT=${1:-/tmp/misere-all-codes.tsv}
N=${2:-4}
DIGITS=${3:-23}
TIMEOUT=${TIMEOUT:-10}
FIXED=${FIXED:-"20 20 20|15 20 25|50 5 3 2|12 12 12 12 12|30 17 13|8 9 10 11 22"}
codes() {
  if [ -n "${CODES:-}" ]; then printf "%s\n" $CODES; return; fi
  for d1 in 0 1 2 3 4 5 6 7; do for d2 in 0 1 2 3 4 5 6 7; do for d3 in "" 1 2 3 4 5 6 7; do
    code="0.$d1$d2$d3"
    [ "$code" = "0.00" ] && continue
    case "$DIGITS" in *$((${#code} - 2))*) ;; *) continue ;; esac
    echo "$code"
  done; done; done
}
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $G"
echo "fixed sums: $FIXED; random sums per game: $N (3 to 5 heaps, at most 60 tokens); timeout ${TIMEOUT} s"
printf "code\theaps\tseconds\tcpu\tanswer\n" >"$OUT"
TF=$(mktemp)
trap 'rm -f "$TF"' EXIT
for code in $(codes); do
  seed=$(echo "$code" | tr -dc 0-9)
  rnd=$(awk -v seed="$seed" -v n="$N" -f "$(dirname "$0")/random-sums.awk")
  { echo "$FIXED" | tr '|' '\n'; echo "$rnd"; } | while read -r heaps; do
    [ -z "$heaps" ] && continue
    s=$(date +%s.%N)
    # shellcheck disable=SC2086
    ans=$(/usr/bin/time -f "%U %S" -o "$TF" timeout "$TIMEOUT" "$G" --no-db solve "$code" $heaps --misere 2>&1 </dev/null)
    rc=$?
    e=$(date +%s.%N)
    t=$(awk -v a="$s" -v b="$e" 'BEGIN {printf "%.3f", b - a}')
    cpu=$(tail -1 "$TF" | awk '{printf "%.2f", $1 + $2}')
    if [ $rc = 124 ]; then
      t=">$TIMEOUT"; ans="timed out"
    elif [ $rc != 0 ]; then
      ans="exit $rc: $(echo "$ans" | head -1)"
    else
      ans=$(echo "$ans" | sed -n 's/^outcome: *//p; s/^winning moves: */moves: /p' | paste -sd';' -)
    fi
    printf "%s\t%s\t%s\t%s\t%s\n" "$code" "$heaps" "$t" "$cpu" "$ans" >>"$OUT"
  done
done
echo
tail -n +2 "$OUT" | awk -F'\t' -v T="$TIMEOUT" '
  { t = ($3 ~ />/) ? T + 0 : $3 + 0; n++; if ($3 ~ />/ || t >= 1) { over++; slow[over] = $1 " " $2 ": " $3 " s" }
    if ($4 + 0 >= 1) cover++
    if (t > max) { max = t; arg = $1 " " $2 ": " $3 " s" } if ($4 + 0 > cmax) { cmax = $4 + 0; carg = $1 " " $2 ": " $4 " s" } if ($5 ~ /^exit|timed/) err++ }
  END { printf "codes: %d, sums: %d, under 1 s: %d, over 1 s: %d (CPU time over 1 s: %d), errors or cut: %d\nslowest: %s; most CPU: %s\n", 0, n, n - over, over, cover + 0, err + 0, arg, carg;
        for (i = 1; i <= over; i++) print "over 1 s: " slow[i] }' | sed "s/^codes: 0/codes: $(tail -n +2 "$OUT" | cut -f1 | sort -u | wc -l)/"
echo
echo "per game (median s, max s), the 20 slowest games:"
tail -n +2 "$OUT" | sort -t$'\t' -k1,1 -k3,3n | awk -F'\t' -v T="$TIMEOUT" '
  function flush() { if (c == "") return; m = (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2;
    printf "%s\t%.3f\t%.3f\n", c, m, a[k] }
  $1 != c { flush(); c = $1; k = 0 } { k++; a[k] = ($3 ~ />/) ? T + 0 : $3 + 0 } END { flush() }' |
  sort -t$'\t' -k3,3nr | head -20 | awk -F'\t' '{ printf "  %s: median %s, max %s\n", $1, $2, $3 }'
