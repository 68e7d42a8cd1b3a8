#!/usr/bin/env bash
# Fuzzes with libFuzzer for N seconds each (default 60), starting from the committed corpora:
#   request  the request path and query parsing, and the playlist and date parsers a restart reads
#            back (Fuzz/RequestFuzzer, corpus Fuzz/corpus);
#   ingest   an origin's ingest: sequences of pushed playlists and media through IngestAssembler,
#            what would be served checked against the HLS rules (Fuzz/IngestFuzzer, Fuzz/ingest-corpus).
# Inputs that reach new code are kept in .build/fuzz/<target>-corpus; a crash leaves its input in
# .build/fuzz/ and fails (ONAIR_BUILD_CACHE/fuzz when that is set: see setup.sh).
# Usage: scripts/fuzz.sh [seconds] [request|ingest ...]  (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(request ingest)
scratch=${ONAIR_BUILD_CACHE:-.build}/fuzz
mkdir -p "$scratch"

for target in "${targets[@]}"; do
    case "$target" in
        request) product=RequestFuzzer corpus=Fuzz/corpus ;;
        ingest) product=IngestFuzzer corpus=Fuzz/ingest-corpus ;;
        *) echo "fuzz: no target $target (request, ingest)" >&2; exit 2 ;;
    esac
    # The flags reach the build plugin's host tool too, whose link may fail under them (the fuzzer
    # needs no plugin), so the build's status is not the answer: the binary is removed first and
    # must be there after it. A failed build stops the run; an old binary is never fuzzed in its place.
    rm -f "$scratch/debug/$product"
    swift build --scratch-path "$scratch" --product "$product" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING >"$scratch/build-$target.log" 2>&1 || true
    if [ ! -x "$scratch/debug/$product" ]; then
        grep -E "error" "$scratch/build-$target.log" >&2 || tail -20 "$scratch/build-$target.log" >&2
        exit 1
    fi
    log=$scratch/fuzz-$target.log
    mkdir -p "$scratch/$target-corpus"
    status=0
    # FUZZ_SEED makes a run repeatable (the tests use 1); 0, the default, is a new one each time.
    "$scratch/debug/$product" -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" -timeout=5 -print_final_stats=1 \
        -artifact_prefix="$scratch/$target-" "$scratch/$target-corpus" "$corpus" >"$log" 2>&1 || status=$?
    grep -E "^Done|stat::number_of_executed_units|ERROR|SUMMARY|Fatal error|Test unit written" "$log" || true
    if [ "$status" -ne 0 ]; then
        echo "fuzz ($target): a crash; the log is $log" >&2
        exit 1
    fi
    echo "fuzz ($target): no crash in $seconds s"
done
