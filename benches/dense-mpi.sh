#!/bin/bash
# A dense solve alone and on 2 and 4 MPI ranks (issue 15, docs/benchmarks.md): wall time,
# each rank's peak RSS, the plan line (peak per rank), and the answer compared byte for byte
# with the run alone. Usage: GRUNDY=path/to/grundy bash benches/dense-mpi.sh cram 4x7
set -u
B=${GRUNDY:-target/release/grundy}
M="mpirun --allow-run-as-root --oversubscribe --mca btl_tcp_if_include lo"
G=("$@"); [ ${#G[@]} -eq 0 ] && G=(cram 4x7)
T=$(mktemp -d)
echo "date: $(date -u)"; echo "load: $(uptime)"
s=$(date +%s.%N); /usr/bin/time -f "rank-rss-kb %M" "$B" --no-db solve "${G[@]}" --dense > "$T/1.out" 2> "$T/1.err"; e=$(date +%s.%N)
echo "alone: $(echo "$e - $s" | bc) s"; grep -E "dense solve|rss" "$T/1.err"
for k in 2 4; do
  s=$(date +%s.%N); $M -np $k /usr/bin/time -f "rank-rss-kb %M" "$B" --no-db solve "${G[@]}" --dense > "$T/$k.out" 2> "$T/$k.err"; e=$(date +%s.%N)
  echo "$k ranks: $(echo "$e - $s" | bc) s"; grep -E "dense solve|rss" "$T/$k.err"
  cmp -s "$T/1.out" "$T/$k.out" && echo "same stdout" || echo "STDOUT DIFFERS"
done
echo "load after: $(uptime)"
rm -rf "$T"
