#!/usr/bin/env bash
# Misère quotients (issue 13): the quotient construction of every two- and three-digit octal
# game to heap 50, and misère sums answered through the quotient against the whole-position
# search in the same run (GRUNDY_NO_QUOTIENT=1 turns the quotient off: today's baseline).
#
#   cargo build --release -p grundy-cli
#   bash benches/quotient.sh [OUT.tsv] [DIGITS]  # the per-game table (default: /tmp/quotients.tsv)
#
# DIGITS: 2 for the two-digit codes only, 3 for the three-digit ones only (default: both).
# Each construction is cut at QTIMEOUT seconds (default 20; "timed out" in the table).
set -u
G=${GRUNDY:-${CARGO_TARGET_DIR:-target}/release/grundy}
OUT=${1:-/tmp/quotients.tsv}
DIGITS=${2:-23}
QTIMEOUT=${QTIMEOUT:-20}
secs() { # command...: wall seconds, output discarded
  local s e
  s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
  awk -v a="$s" -v b="$e" 'BEGIN {printf "%.3f", b - a}'
}
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $G"
echo
echo "## quotient construction to heap 50, every octal code 0.d1d2 and 0.d1d2d3"
printf "code\tseconds\tresult\n" >"$OUT"
start=$(date +%s.%N)
for d1 in 0 1 2 3 4 5 6 7; do for d2 in 0 1 2 3 4 5 6 7; do for d3 in "" 0 1 2 3 4 5 6 7; do
  code="0.$d1$d2$d3"
  [ "$code" = "0.00" ] && continue
  [ -n "$d3" ] && [ "$d3" = 0 ] && continue   # 0.d1d20 is 0.d1d2
  case "$DIGITS" in *$((${#code} - 2))*) ;; *) continue ;; esac
  s=$(date +%s.%N)
  res=$(timeout "$QTIMEOUT" "$G" --no-db quotient "$code" --heaps 50 --max-order 4096 --json 2>&1)
  [ $? = 124 ] && res="timed out"
  e=$(date +%s.%N)
  t=$(awk -v a="$s" -v b="$e" 'BEGIN {printf "%.3f", b - a}')
  if echo "$res" | grep -q '"order"'; then
    order=$(echo "$res" | grep -m1 '"order"' | tr -dc 0-9)
    stable=$(echo "$res" | grep -m1 '"stable_from"' | tr -dc 0-9)
    finite=$(echo "$res" | grep -m1 '"finite"' | grep -c true)
    printf "%s\t%s\torder %s, stable from heap %s, period proven %s\n" "$code" "$t" "$order" "$stable" "$finite" >>"$OUT"
  else
    why=$(echo "$res" | sed -n 's/.*fails its check at heap \([0-9]*\).*/check fails at heap \1/p; s/.*would pass .* elements at heap \([0-9]*\).*/max order at heap \1/p; s/.*construction of the quotient to heap \([0-9]*\) passed.*/step limit at heap \1/p' | head -1)
    printf "%s\t%s\t%s\n" "$code" "$t" "${why:-$res}" >>"$OUT"
  fi
done; done; done
end=$(date +%s.%N)
total=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
n=$(($(wc -l <"$OUT") - 1))
ok=$(cut -f3 "$OUT" | grep -c "^order ")
fin=$(grep -c "period proven 1" "$OUT")
slowest=$(tail -n +2 "$OUT" | sort -t$'\t' -k2 -n -r | head -1 | cut -f1,2)
echo "codes: $n, total ${total} s, slowest: $slowest"
echo "reached heap 50: $ok (of which periodic, proven finite: $fin); stopped earlier: $((n - ok))"
echo
echo "## misère sums: quotient vs whole-position search (same binary, same run)"
echo "| command | quotient s | whole-position search s (GRUNDY_NO_QUOTIENT=1) |"
echo "|---|---|---|"
for args in "0.75 15 20 25" "0.75 30 40 50" "0.75 1000000 999999 3" "0.77 15 20 25" "0.07 12 14 16" "0.6 8 9 10" "sub:1,2 20 30 40 50"; do
  # shellcheck disable=SC2086
  q=$(secs "$G" --no-db solve $args --misere)
  # shellcheck disable=SC2086
  s0=$(date +%s.%N); GRUNDY_NO_QUOTIENT=1 timeout 60 "$G" --no-db solve $args --misere >/dev/null 2>&1; rc=$?; s1=$(date +%s.%N)
  b=$(awk -v a="$s0" -v c="$s1" 'BEGIN {printf "%.3f", c - a}')
  [ $rc = 124 ] && b=">60 (timed out)"
  echo "| grundy solve $args --misere | $q | $b |"
done
