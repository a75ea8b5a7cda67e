#!/usr/bin/env bash
# Misère sums of huge heaps of games with a finite quotient (issue 13, items 2 and 5): the
# binary before sums were answered straight from the quotient's products (OLD: main at
# 8d8c4c0) against the binary under test (NEW), side by side, each command run REPEAT times
# (the median kept), with --no-db (nothing from a store: the quotient is grown by each run,
# as a first solve does). Every pair of outputs must be byte for byte the same (the last
# column says so).
#
#   git worktree add /tmp/grundy-old 8d8c4c0 && (cd /tmp/grundy-old && cargo build -p grundy-cli)
#   cargo build -p grundy-cli
#   GRUNDY_OLD=/tmp/grundy-old/target/debug/grundy bash benches/misere-huge.sh [REPEAT]
#
# (or copy the old binary aside under another name before building the new one in the same
# target directory). Times are GNU time's: wall, and CPU (user + system); output to a file.
set -u
NEW=${GRUNDY:-${CARGO_TARGET_DIR:-target}/debug/grundy}
OLD=${GRUNDY_OLD:?set GRUNDY_OLD to the binary of main at 8d8c4c0}
REPEAT=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CASES=(
  "0.75 1000000 999999 3 --misere"
  "0.75 1000000 999999 3 --misere --all-moves"
  "0.75 1000000 1000000 --misere"
  "0.71 1000000 64 9 --misere"
  "0.71 300000 2 --misere --all-moves"
  "sub:1,3,4 1000000 999999 5 --misere --all-moves"
)
# The median of REPEAT runs of a command: "wall cpu" in seconds; its output in $tmp/$1.out.
median() { # label, command...
  local label=$1; shift
  : >"$tmp/$label.times"
  for _ in $(seq "$REPEAT"); do
    /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$@" >"$tmp/$label.out" 2>/dev/null
    read -r wall user sys <"$tmp/t"
    echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')" >>"$tmp/$label.times"
  done
  local mid=$(( (REPEAT + 1) / 2 ))
  echo "$(sort -n -k1 "$tmp/$label.times" | sed -n "${mid}p" | cut -d' ' -f1) $(sort -n -k2 "$tmp/$label.times" | sed -n "${mid}p" | cut -d' ' -f2)"
}
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "old: $OLD"
echo "new: $NEW"
echo "median of $REPEAT runs each, \`grundy --no-db solve ARGS > file\`"
echo
echo "| ARGS | old wall s | old CPU s | new wall s | new CPU s | CPU old/new | output |"
echo "|---|---|---|---|---|---|---|"
for args in "${CASES[@]}"; do
  # shellcheck disable=SC2086
  read -r ow oc <<<"$(median old "$OLD" --no-db solve $args)"
  # shellcheck disable=SC2086
  read -r nw nc <<<"$(median new "$NEW" --no-db solve $args)"
  same="same bytes ($(wc -c <"$tmp/new.out") B)"
  cmp -s "$tmp/old.out" "$tmp/new.out" || same="DIFFERS"
  ratio=$(awk -v a="$oc" -v b="$nc" 'BEGIN {if (b > 0) printf "%.0fx", a / b; else print "-"}')
  echo "| \`$args\` | $ow | $oc | $nw | $nc | $ratio | $same |"
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
