#!/usr/bin/env bash
# Load test of `grundy serve` on loopback with wrk (Debian package `wrk`); every run is
# bounded in time. Prints one markdown table row per scenario (docs/benchmarks.md).
# Usage: tests/load/run.sh [path/to/grundy] [seconds per scenario]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-${CARGO_TARGET_DIR:-$here/../../target}/release/grundy}"
secs="${2:-10}"
port="${PORT:-7951}"
url="http://127.0.0.1:$port"
"$bin" --no-db serve --addr "127.0.0.1:$port" --timeout 2 --max-concurrent 4 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true; kill ${slow:-} 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "$url/api/health" >/dev/null && break; sleep 0.1; done

run() { # name, path, body ("" for GET)
  local name="$1" path="$2" body="$3" out
  if [ -z "$body" ]; then
    out="$(timeout $((secs + 20)) wrk -t2 -c32 -d"${secs}s" --latency "$url$path")"
  else
    out="$(BODY="$body" timeout $((secs + 20)) wrk -t2 -c32 -d"${secs}s" --latency -s "$here/post.lua" "$url$path")"
  fi
  local rps total non2xx sockerr p50 p99
  rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")"
  total="$(awk '/requests in/ {print $1}' <<<"$out")"
  non2xx="$(awk '/Non-2xx or 3xx responses:/ {print $5}' <<<"$out")"
  sockerr="$(awk -F'Socket errors: ' '/Socket errors/ {print $2}' <<<"$out")"
  p50="$(awk '$1 == "50%" {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  echo "| $name | $rps | $total | ${non2xx:-0} | ${sockerr:-none} | $p50 | $p99 |"
}

echo "| scenario | requests/s | requests | non-2xx | socket errors | p50 | p99 |"
echo "| --- | ---: | ---: | ---: | --- | ---: | ---: |"
if [ -z "${ONLY_LONG:-}" ]; then
run "GET /api/families" /api/families ""
run "GET / (the page)" / ""
run "solve nim 3 5 7" /api/solve '{"family":"nim","position":"3 5 7"}'
run "solve nim 3 5 7 + remoteness" /api/solve '{"family":"nim","position":"3 5 7","remoteness":true}'
run "solve crosses, 20 squares" /api/solve '{"family":"crosses","position":"...................."}'
run "solve points (maoershan, misère)" /api/solve '{"family":"points","position":"111111111111","misere":true}'
run "malformed JSON (400 expected)" /api/solve '{"family":'
run "unknown family (404 expected)" /api/solve '{"family":"chess","position":"e4"}'
run "too large (422 expected)" /api/solve '{"family":"nim","position":"1000000000"}'
fi
# Long solves (each hits the 2 s timeout, then runs on to its position limit) sent in a
# loop beside the load: the small solves must keep being answered.
codes="$(mktemp)"
( end=$((SECONDS + secs + 2))
  while [ $SECONDS -lt $end ]; do
    curl -s -o /dev/null -w '%{http_code}\n' -X POST "$url/api/solve" \
      -d '{"family":"graph","board":"grid:5x5","remoteness":true}' >>"$codes" &
    sleep 0.5
  done; wait ) &
slow=$!
sleep 1
run "solve nim 3 5 7 while long solves run" /api/solve '{"family":"nim","position":"3 5 7"}'
wait $slow 2>/dev/null || true
echo
echo "Long solves sent beside the last scenario, by HTTP status: $(sort "$codes" | uniq -c | awk '{printf "%s%s × %s", sep, $1, $2; sep=", "}')"
rm -f "$codes"

# The same slow solve with a store: the first answer is kept, the others come from it.
kill $server 2>/dev/null || true
wait $server 2>/dev/null || true
store="$(mktemp -d)"
"$bin" --db "$store/store.redb" serve --addr "127.0.0.1:$port" --timeout 2 2>/dev/null &
server=$!
for _ in $(seq 50); do curl -sf "$url/api/health" >/dev/null && break; sleep 0.1; done
echo
echo "| scenario | requests/s | requests | non-2xx | socket errors | p50 | p99 |"
echo "| --- | ---: | ---: | ---: | --- | ---: | ---: |"
run "solve points (maoershan, misère), with a store" /api/solve '{"family":"points","position":"111111111111","misere":true}'
kill $server 2>/dev/null || true
wait $server 2>/dev/null || true
rm -rf "$store"
