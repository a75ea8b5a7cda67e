#!/usr/bin/env bash
# Issue 14: the sequence engine's cliffs and missed sparse spaces, against a baseline binary
# in the same run (main's build before the change). Each command runs once (they are long);
# a baseline that does not finish within its time limit is reported as "> limit".
#
#   cargo build --release --bin grundy          # the new binary
#   BASE=/path/to/main/grundy [OGSOLVE=/path/to/ogsolve] bash benches/seq-records.sh [LIMIT_S]
#
# Prints a markdown table: wall time, peak RSS, heaps per second, and the ratio base / new;
# with OGSOLVE, a second table for the codes without a sparse space (the dense path):
# wall and user time and peak RSS of the new binary and of `ogsolve -m naive` (its fastest
# method on them), at 2^18 heaps and, for the new binary, 2^20.
set -u
G=${GRUNDY:-${CARGO_TARGET_DIR:-target}/release/grundy}
BASE=${BASE:?set BASE to the baseline grundy binary}
LIMIT=${1:-120}
tmp=$(mktemp -d)
run() { # binary, limit, args...: prints "wall rss_kib status summary"
  local bin=$1 limit=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$tmp/t" timeout "$limit" "$bin" --no-db seq "$@" --json -q >"$tmp/out" 2>/dev/null
  local rc=$?
  local summary
  summary=$(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("-"); sys.exit()
p = "period %s from %s (checked to %s)" % (d["period"], d["n0"], d["checked_to"]) if d["period"] is not None else "no period"
s = "rare %s" % d["rare_count"]
if d.get("split_mask") is not None:
    s += " (heap-parity split, mask %s)" % d["split_mask"]
print("%s heaps, max %s, %s, %s" % (d["count"], d["max"], s, p))' "$tmp/out")
  echo "$(tail -1 "$tmp/t") $rc $summary"
}
row() { # label, limit for the baseline, args...
  local label=$1 limit=$2; shift 2
  read -r bt bm brc bsum <<<"$(run "$BASE" "$limit" "$@")"
  read -r nt nm nrc nsum <<<"$(run "$G" 3600 "$@")"
  local base_t="$bt s" ratio
  if [ "$brc" = 124 ]; then base_t="> $limit s (stopped)"; ratio="> $(awk -v a="$limit" -v b="$nt" 'BEGIN {printf "%.0f", a / b}')"
  else ratio=$(awk -v a="$bt" -v b="$nt" 'BEGIN {printf "%.1f", (b > 0 ? a / b : 0)}'); fi
  echo "| $label | \`seq $*\` | $base_t, $((bm / 1024)) MiB | $nt s, $((nm / 1024)) MiB | $ratio | $nsum |"
}
echo "$(date -u +%Y-%m-%d), $(nproc) cores, baseline $BASE"
echo
echo "| what | command | baseline | new | × faster | new result |"
echo "|---|---|---|---|---|---|"
row "0.376 to its proof" "$LIMIT" 0.376 --until-period -n 2^23
for n in 2^20 2^21 2^22 2^23; do
  row "0.376, cost per heap" "$LIMIT" 0.376 -n $n
done
for g in 0.106 0.104 0.324 0.142; do
  row "$g (rare on half the heaps with one split)" 60 $g -n 2^20
done
for g in 0.007 0.114 0.135 0.342 0.414; do
  row "$g (no sparse space found)" 20 $g -n 2^18
done
if [ -n "${OGSOLVE:-}" ]; then
  timed() { # limit, command...: prints "wall s / user s / RSS MiB" or "> limit s"
    local limit=$1; shift
    /usr/bin/time -f "%e %U %M" -o "$tmp/t" timeout "$limit" "$@" >/dev/null 2>&1
    if [ $? = 124 ]; then echo "> $limit s (stopped)"; return; fi
    tail -1 "$tmp/t" | awk '{printf "%s s / %s s / %.1f MiB", $1, $2, $3 / 1024}'
  }
  echo
  echo "| code | heaps | new (wall / user / RSS) | ogsolve -m naive |"
  echo "|---|---|---|---|"
  for g in 0.007 0.114 0.135 0.342 0.414; do
    echo "| $g | 2^18 | $(timed 3600 "$G" --no-db seq $g -n 2^18 -q) | $(timed "$LIMIT" "$OGSOLVE" -m naive -n 262143 $g) |"
    echo "| $g | 2^20 | $(timed 3600 "$G" --no-db seq $g -n 2^20 -q) | — |"
  done
fi
rm -rf "$tmp"
