#!/usr/bin/env bash
# Misère sums through the quotient (issue 13, item 5): sums of three to five heaps with at
# most 60 tokens in all, in two- and three-digit octal games, each timed twice in the same
# run: `grundy solve CODE HEAPS --misere` with a store (the quotient learned by the solves
# before it kept there), and the whole-position search alone (GRUNDY_NO_QUOTIENT=1, what a
# solve did before quotients; with a store of its own, so both pay for opening one), cut at
# TIMEOUT seconds.
#
#   cargo build --release -p grundy-cli
#   bash benches/misere-sums.sh [SUMS_PER_GAME] [CODES...]
#
# Sums are drawn at random (awk's generator, seeded by the code: the same sums every run).
# Before a game's sums, one solve of `CODE 20 20 20` (cold: an empty store) is timed too;
# it learns the quotient for the sums after it.
set -u
G=${GRUNDY:-${CARGO_TARGET_DIR:-target}/release/grundy}
N=${1:-12}
shift || true
CODES=${*:-0.77 0.07 0.6 0.75 0.137 0.31 0.52 0.123 0.71 0.16 0.35 0.54}
TIMEOUT=${TIMEOUT:-30}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
secs() { # command...: wall seconds (">T" when cut at TIMEOUT), output discarded
  local s e rc
  s=$(date +%s.%N)
  timeout "$TIMEOUT" "$@" >/dev/null 2>&1
  rc=$?
  e=$(date +%s.%N)
  if [ $rc = 124 ]; then echo ">$TIMEOUT"; else awk -v a="$s" -v b="$e" 'BEGIN {printf "%.3f", b - a}'; fi
}
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $G"
echo "sums per game: $N (3 to 5 heaps, at most 60 tokens), timeout ${TIMEOUT} s"
echo
echo "| game | cold \`20 20 20\` s | sums | quotient: median s | max s | under 1 s | search alone: median s | max s | slower than the search |"
echo "|---|---|---|---|---|---|---|---|---|"
for code in $CODES; do
  db="$DIR/$code.redb"
  cold=$(secs "$G" --db "$db" solve "$code" 20 20 20 --misere)
  seed=$(echo "$code" | tr -dc 0-9)
  sums=$(awk -v seed="$seed" -v n="$N" -f "$(dirname "$0")/random-sums.awk")
  qs=()
  bs=()
  slower=0
  while read -r heaps; do
    [ -z "$heaps" ] && continue
    # shellcheck disable=SC2086
    q=$(secs "$G" --db "$db" solve "$code" $heaps --misere)
    # shellcheck disable=SC2086
    b=$(GRUNDY_NO_QUOTIENT=1 secs "$G" --db "$DIR/search-$code.redb" solve "$code" $heaps --misere)
    qs+=("$q")
    bs+=("$b")
    echo "$code $heaps: quotient $q s, search $b s" >>"$DIR/log"
    if awk -v q="${q#>}" -v b="${b#>}" -v qt="${q:0:1}" -v bt="${b:0:1}" 'BEGIN {exit !((qt == ">" && bt != ">") || (qt != ">" && bt != ">" && q > b + 0.05))}'; then
      slower=$((slower + 1))
    fi
  done <<<"$sums"
  stats() { # values...: median and max (">T" values count as T, and mark the max)
    printf "%s\n" "$@" | sed 's/^>\(.*\)/\1 cut/' | sort -n | awk '{ a[NR] = $1 + 0; if ($2 == "cut") c = 1 }
      END { n = NR; m = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2;
            printf "%.2f | %s%.2f", m, (c ? ">" : ""), a[n] }'
  }
  under=$(printf "%s\n" "${qs[@]}" | awk '$0 !~ />/ && $0 + 0 < 1 {c++} END {print c + 0}')
  echo "| $code | $cold | ${#qs[@]} | $(stats "${qs[@]}") | $under | $(stats "${bs[@]}") | $slower |"
done
echo
echo "every sum:"
cat "$DIR/log"
