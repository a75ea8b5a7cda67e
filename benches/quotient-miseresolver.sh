#!/usr/bin/env bash
# grundy's quotient construction against MisereSolver (Plambeck and Siegel's program), side by
# side in one run: each quotient by both, wall time and peak memory (/usr/bin/time), MisereSolver
# with its JVM's start, each capped at CAP seconds (default 60).
#
#   cargo build --release -p grundy-cli
#   CLASSES=/tmp/msv bash tests/data/miseresolver/run.sh /path/to/cgsuite   # build MisereSolver
#   bash benches/quotient-miseresolver.sh /tmp/msv
#
# Prints a markdown table: quotient, MisereSolver (seconds, MiB, last heap and order it
# printed), grundy (the same).
set -u
classes=${1:?give the directory MisereSolver was built into (CLASSES= of run.sh)}
G=${GRUNDY:-${CARGO_TARGET_DIR:-target}/release/grundy}
CAP=${CAP:-60}
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $G, cap ${CAP} s"
echo
echo "| quotient | MisereSolver | grundy |"
echo "|---|---|---|"
for job in "0.77 50" "0.07 30" "0.07 50" "0.004 30" "0.137 30" "0.6 30" "0.6 17" "0.54 30" "0.35 50"; do
  set -- $job
  code=$1 heaps=$2
  m=$(
    { /usr/bin/time -f "TIME %e %M" java -Xmx8g -cp "$classes" org.cgsuite.core.misere.solver.Main \
        "$heaps" 100000000 "$CAP" "$code"; } 2>&1
  )
  mt=$(echo "$m" | awk '/^TIME/ {printf "%.2f s, %d MiB", $2, $3 / 1024}')
  ml=$(echo "$m" | awk -F'\t' '$5 == "heap" {h = $2; o = $3} END {printf "heap %s, order %s", h, o}')
  g=$(
    { /usr/bin/time -f "TIME %e %M" timeout "$CAP" "$G" --no-db quotient "$code" --heaps "$heaps" \
        --max-order 1000000 --json; } 2>&1
  )
  gt=$(echo "$g" | awk '/^TIME/ {printf "%.2f s, %d MiB", $2, $3 / 1024}')
  if echo "$g" | grep -q '"order"'; then
    gl="heap $heaps, order $(echo "$g" | grep -m1 '"order"' | tr -dc 0-9)"
  else
    gl=$(echo "$g" | grep -m1 -o 'complete to heap [0-9]*, order [0-9]*' | sed 's/complete to //')
    [ -z "$gl" ] && gl="stopped: $(echo "$g" | grep -m1 -v '^TIME' | cut -c1-80)"
  fi
  echo "| $code to heap $heaps | $mt ($ml) | $gt ($gl) |"
done
