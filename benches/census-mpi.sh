#!/usr/bin/env bash
# Issue 15: `grundy census` on 1, 2 and 4 MPI ranks against one process (no mpirun), the
# baseline of the same run. Needs a release build with the feature and Open MPI:
#
#   cargo build --release --bin grundy --features mpi
#   bash benches/census-mpi.sh ['0.???'] [2^16]
#
# Each run is --no-db (nothing from a store) and -q; every run's CSV must equal the
# baseline's byte for byte (the script says so). Prints a markdown table: wall time, CPU
# time (user + system, all ranks), the largest peak RSS of any rank, and the speed-up
# against one process. Peak RSS is GNU time's over mpirun and its children: the largest
# single process.
set -u
G=${GRUNDY:-${CARGO_TARGET_DIR:-target}/release/grundy}
PATTERN=${1:-0.???}
COUNT=${2:-2^16}
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -q --mca btl_tcp_if_include lo)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
run() { # label, command...: prints a table row
  local label=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" >"$tmp/$label.csv" 2>"$tmp/$label.err"
  local rc=$?
  read -r wall user sys rss <"$tmp/t"
  [ -z "${base:-}" ] && base=$wall
  local same="same CSV"
  cmp -s "$tmp/$label.csv" "$tmp/alone.csv" || same="CSV DIFFERS"
  [ "$rc" = 0 ] || same="exit $rc"
  echo "| $label | $wall s | $(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.1f", u + s}') s | $((rss / 1024)) MiB | $(awk -v a="$base" -v b="$wall" 'BEGIN {printf "%.2f", a / b}') | $same |"
}
echo "| run | wall | CPU | peak RSS (largest rank) | speed-up | output |"
echo "| --- | --- | --- | --- | --- | --- |"
args=(--no-db census "$PATTERN" --count "$COUNT" --csv -q)
run alone "$G" "${args[@]}"
for k in 1 2 4; do
  run "np$k" "${MPIRUN[@]}" -np "$k" "$G" "${args[@]}"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
