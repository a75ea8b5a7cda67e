#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer on the stable toolchain and runs each for a fixed
# time, starting from the committed seeds (fuzz/seeds/TARGET), then prints one summary
# line per target. Exit status 1 if any target found a crash, a timeout or ran out of memory.
#
#   fuzz/run.sh [SECONDS] [TARGET...]     (default: 60 seconds, every target)
#
# No cargo-fuzz and no nightly: libfuzzer-sys builds libFuzzer itself (a C++ compiler is
# needed), and the coverage instrumentation is the same set of stable rustc flags cargo-fuzz
# passes, minus the address sanitizer (which needs nightly; see fuzz/README.md).
# An input running over 60 s is a timeout (a finding); inputs slower than 10 s are kept (out/TARGET/artifacts/slow-unit-*) and counted, not failed.
# Environment: CARGO_TARGET_DIR (default fuzz/target); FUZZ_OUT (default fuzz/out): where the
# run's new inputs, crashes and logs go (not committed); FUZZ_RSS_MB (default 2048);
# FUZZ_KNOWN: targets whose findings are reported but do not fail the run (a known bug
# being fixed elsewhere: docs/fuzzing.md); FUZZ_JOBS: cargo's -j.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(judge positions game_file edge_list numbers checkpoint store store_payloads)
fi
host=$(rustc -vV | sed -n 's/^host: //p')
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
out=${FUZZ_OUT:-$PWD/out}
# The instrumentation cargo-fuzz 0.13 passes (without -Zsanitizer); `--target` keeps it off
# build scripts and proc macros.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-sanitizer-coverage-stack-depth \
-Cllvm-args=-simplifycfg-branch-fold-threshold=0 --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
start=$(date +%s)
cargo build --release --locked --target "$host" ${FUZZ_JOBS:+-j "$FUZZ_JOBS"} $(printf -- '--bin %s ' "${targets[@]}")
echo "fuzz/run.sh: built in $(($(date +%s) - start)) s"
bin=$CARGO_TARGET_DIR/$host/release
failed=0
summary=()
for t in "${targets[@]}"; do
    rm -rf "$out/$t/artifacts"
    mkdir -p "$out/$t/corpus" "$out/$t/artifacts"
    log=$out/$t/log
    # New inputs go to out/TARGET/corpus; the committed seeds are read, never written.
    # -close_fd_mask=1: the targets that run `grundy db` print to stdout.
    began=$(date +%s)
    set +e
    "$bin/$t" "$out/$t/corpus" "seeds/$t" \
        -max_total_time="$secs" -timeout=60 -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
        -close_fd_mask=1 -print_final_stats=1 \
        -artifact_prefix="$out/$t/artifacts/" >"$log" 2>&1
    rc=$?
    set -e
    took=$(($(date +%s) - began))
    stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
    found=$(find "$out/$t/artifacts" -type f ! -name 'slow-unit-*' | wc -l)
    slow=$(find "$out/$t/artifacts" -type f -name 'slow-unit-*' | wc -l)
    line="$t: ${took}s of ${secs}s, $(stat number_of_executed_units) execs ($(stat average_exec_per_sec)/s), cov ${cov:-?}, corpus $(find "$out/$t/corpus" -type f | wc -l) new, slowest $(stat slowest_unit_time_sec) s, exit $rc, $found findings, $slow slow"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        if [[ " ${FUZZ_KNOWN:-} " == *" $t "* ]]; then
            line="$line (known, not failing: FUZZ_KNOWN)"
        else
            failed=1
        fi
        grep -E '^(==[0-9]+==|thread .* panicked|SUMMARY|ERROR)' "$log" | head -5 || true
        grep -A1 'panicked at' "$log" | head -4 || true
    fi
    find "$out/$t/artifacts" -type f | head -5
    summary+=("$line")
    echo "$line"
done
echo "fuzz/run.sh summary ($(date -u +%Y-%m-%dT%H:%MZ), $(rustc -V)):"
printf '  %s\n' "${summary[@]}"
exit $failed
