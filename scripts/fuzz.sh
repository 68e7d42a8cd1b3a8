#!/usr/bin/env bash
# Fuzzes the request path and query parsing (and the playlist and date parsers a restart reads
# back) with libFuzzer for N seconds (default 60), starting from the committed corpus in
# Fuzz/corpus. Inputs that reach new code are kept in .build/fuzz/corpus; a crash leaves its
# input in .build/fuzz/ and fails. Usage: scripts/fuzz.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
scratch=.build/fuzz
log=$scratch/fuzz.log
mkdir -p "$scratch/corpus"
# The flags reach the build plugin's host tool too, whose link fails under them; it is not needed here.
swift build --scratch-path "$scratch" --product RequestFuzzer \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING >"$scratch/build.log" 2>&1 || true
if [ ! -x "$scratch/debug/RequestFuzzer" ]; then
    grep -E "error" "$scratch/build.log" >&2
    exit 1
fi
status=0
# FUZZ_SEED makes a run repeatable (the tests use 1); 0, the default, is a new one each time.
"$scratch/debug/RequestFuzzer" -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" -timeout=5 -print_final_stats=1 \
    -artifact_prefix="$scratch/" "$scratch/corpus" Fuzz/corpus >"$log" 2>&1 || status=$?
grep -E "^Done|stat::number_of_executed_units|ERROR|SUMMARY|Fatal error|Test unit written" "$log" || true
if [ "$status" -ne 0 ]; then
    echo "fuzz: a crash; the log is $log" >&2
    exit 1
fi
echo "fuzz: no crash in $seconds s"
