#!/usr/bin/env bash
# The dense path of `grundy seq` (issue 14: the codes without a sparse space), a baseline
# binary against the new one, alternated in one run so that both see the same machine
# (docs/benchmarks.md). Each case runs ROUNDS times per binary, in the order base, new,
# base, new, ...; prints wall and user seconds and peak RSS of every run, and checks that
# both binaries printed the same `--json`.
#
#   BASE=/path/to/old/grundy [NEW=target/release/grundy] [ROUNDS=2] \
#     bash benches/seq-dense-ab.sh [CODE:HEAPS:THREADS ...]
#
# Default cases: 0.114 and 0.342 to 2^19 and 2^20 on two threads, 0.114 to 2^20 on one,
# 0.007, 0.135 and 0.414 to 2^19 on two, Officers (0.6, never dense) to 2^21 on two.
# PAUSE="PID ..." stops those processes (SIGSTOP) during each run and lets them go on after
# (a long background job sharing the machine).
set -u
BASE=${BASE:?set BASE to the baseline grundy binary}
NEW=${NEW:-${CARGO_TARGET_DIR:-target}/release/grundy}
ROUNDS=${ROUNDS:-2}
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  cases=(0.114:2^19:2 0.342:2^19:2 0.114:2^20:2 0.342:2^20:2 0.114:2^20:1
         0.007:2^19:2 0.135:2^19:2 0.414:2^19:2 0.6:2^21:2)
fi
tmp=$(mktemp -d)
# PAUSE may name several processes (a job and its wrapper): split on blanks.
# shellcheck disable=SC2086
trap 'rm -rf "$tmp"; [ -n "${PAUSE:-}" ] && kill -CONT ${PAUSE} 2>/dev/null' EXIT
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; base $BASE; new $NEW"
echo "| code | heaps | -j | base: wall / user / RSS (each run) | new: wall / user / RSS (each run) | base / new (mean wall) | same --json |"
echo "|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  IFS=: read -r code heaps threads <<<"$c"
  declare -A runs=([base]="" [new]="")
  declare -A sum=([base]=0 [new]=0)
  for _ in $(seq "$ROUNDS"); do
    for which in base new; do
      bin=$BASE; [ "$which" = new ] && bin=$NEW
      # shellcheck disable=SC2086
      [ -n "${PAUSE:-}" ] && kill -STOP ${PAUSE} 2>/dev/null
      /usr/bin/time -f "%e %U %M" -o "$tmp/t" "$bin" --no-db seq "$code" -n "$heaps" -q --json -j "$threads" >"$tmp/$which.json"
      # shellcheck disable=SC2086
      [ -n "${PAUSE:-}" ] && kill -CONT ${PAUSE} 2>/dev/null
      read -r w u m <"$tmp/t"
      runs[$which]+="$w s / $u s / $((m / 1024)) MiB; "
      sum[$which]=$(awk -v a="${sum[$which]}" -v b="$w" 'BEGIN{print a + b}')
    done
  done
  same=no; cmp -s "$tmp/base.json" "$tmp/new.json" && same=yes
  ratio=$(awk -v a="${sum[base]}" -v b="${sum[new]}" 'BEGIN{printf "%.2f", a / b}')
  echo "| $code | $heaps | $threads | ${runs[base]% } | ${runs[new]% } | $ratio | $same |"
done
