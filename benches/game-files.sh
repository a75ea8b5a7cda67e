#!/usr/bin/env bash
# Issue 12: games defined in files against the built-in families, side by side in one run.
# Each pair of commands is alternated N times (default 3); the table gives the median wall
# time and peak RSS of each, and their ratios (file / built-in).
#
#   cargo build --release --bin grundy
#   bash benches/game-files.sh [N]
set -eu
G=${GRUNDY:-${CARGO_TARGET_DIR:-target}/release/grundy}
N=${1:-3}
E=examples/games
tmp=$(mktemp -d)
run() { # label, command...: appends "wall_s rss_kib"
  local f=$1; shift
  /usr/bin/time -f "%e %M" -o "$tmp/t" "$@" >"$tmp/out-$f" 2>/dev/null || { echo "failed: $*" >&2; cat "$tmp/t" >&2; }
  tail -1 "$tmp/t" >>"$tmp/$f"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { awk -v k="$2" '{print $k}' "$tmp/$1" | median; }
pair() { # name, built-in command, file command
  local name=$1 builtin=$2 file=$3
  for _ in $(seq "$N"); do
    run b $builtin
    run f $file
  done
  # The answers, not the names: a file's game is NAME@HASH, a script names its moves its
  # own way and labels its table's axes its own way.
  same=$(python3 - "$tmp/out-b" "$tmp/out-f" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
keys = ["grundy", "outcome", "values", "period", "preperiod", "n0", "max", "count", "kind", "first"]
print("yes" if all(a.get(k) == b.get(k) for k in keys) else "NO")
PY
)
  local bt bm ft fm
  bt=$(col b 1); bm=$(col b 2); ft=$(col f 1); fm=$(col f 2)
  echo "| $name | \`${builtin#$G }\` | $bt s | $((bm / 1024)) MiB | \`${file#$G }\` | $ft s | $((fm / 1024)) MiB | $(awk -v a="$ft" -v b="$bt" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}') | $(awk -v a="$fm" -v b="$bm" 'BEGIN {printf "%.2f", a / b}') | $same |"
  rm -f "$tmp/b" "$tmp/f"
}
echo "$(date -u +%Y-%m-%d), $(nproc) cores, N=$N (median)"
echo
echo "| what | built-in | time | peak RSS | game file | time | peak RSS | × time | × memory | same output |"
echo "|---|---|---|---|---|---|---|---|---|---|"
pair "Officers G(0..2^21)" "$G --no-db seq 0.6 -n 2^21 --json" "$G --no-db seq --game $E/officers.toml -n 2^21 --json"
pair "Kayles heap 10^4" "$G --no-db solve 0.77 10000 --json" "$G --no-db solve --game $E/kayles.lua 10000 --json"
pair "Kayles heap 10^4, plain loop" "$G --no-db solve 0.77 10000 --json" "$G --no-db solve --game benches/kayles-loop.lua 10000 --json"
pair "Grundy's game heap 10^4" "$G --no-db solve grundys-game 10000 --json" "$G --no-db solve --game $E/grundys-game.lua 10000 --json"
pair "Kayles heap 10^4, spec" "$G --no-db solve 0.77 10000 --json" "$G --no-db solve --game $E/kayles.toml 10000 --json"
pair "Cutting Game table 100×100" "$G --no-db table cutting --size 100 --json" "$G --no-db table --game $E/cutting.lua --size 100 --json"
pair "Wythoff table 100×100" "$G --no-db table --game $E/wythoff.toml --size 100 --json" "$G --no-db table --game $E/wythoff.lua --size 100 --json"
rm -rf "$tmp"
