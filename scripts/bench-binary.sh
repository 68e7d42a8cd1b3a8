#!/usr/bin/env bash
# What a release binary costs before it does any work, two builds side by side: the stripped size,
# the time to start and exit (`onair --version`, the two in turn, median of 31 each), the time
# from `onair publish --source test` to its first segment listed, and the resident memory of
# `onair serve` idle and of that broadcast 10 s in (median of 5 runs each).
#
#   scripts/bench-binary.sh BEFORE AFTER      (two onair binaries; release builds, unstripped is fine)
#
# Each is stripped into a scratch copy first, as the package ships it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] || { echo "usage: scripts/bench-binary.sh BEFORE AFTER (two onair binaries)" >&2; exit 2; }
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh

now() { date +%s.%N; }
rss_mib() { awk '$1 == "VmRSS:" { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# Start-up: the two binaries in turn, 31 times each, so that whatever else the machine does
# weighs on both alike. Prints "before_ms after_ms", the medians.
startup() {
    local before=() after=() _ start
    for _ in $(seq 31); do
        start=$(now)
        "$work/before" --version >/dev/null
        before+=("$(echo "($(now) - $start) * 1000" | bc)")
        start=$(now)
        "$work/after" --version >/dev/null
        after+=("$(echo "($(now) - $start) * 1000" | bc)")
    done
    echo "$(median "${before[@]}") $(median "${after[@]}")"
}

profile() {  # name: prints "size_mb first_segment_ms serve_mib publish_mib"
    local name=$1 binary=$work/$1 firsts=() serves=() publishes=() _ start port pid
    for _ in $(seq 5); do
        port=$(free_port)
        ONAIR_INGEST_TOKEN=bench-binary-token-0123456789 "$binary" serve --host 127.0.0.1 --port "$port" \
            >"$work/serve.log" 2>&1 &
        pid=$!
        pids+=("$pid")
        until curl -sf -o /dev/null "http://127.0.0.1:$port/metrics"; do sleep 0.05; done # polling its start
        sleep 2 # idle, as a server waits for its first publisher
        serves+=("$(rss_mib "$pid")")
        kill "$pid"
        wait "$pid" 2>/dev/null || true

        port=$(free_port)
        start=$(now)
        "$binary" publish --source test --duration 12s --host 127.0.0.1 --port "$port" >"$work/publish.log" 2>&1 &
        pid=$!
        pids+=("$pid")
        until curl -sf "http://127.0.0.1:$port/live/demo/media.m3u8" 2>/dev/null | grep -q "^seg"; do
            sleep 0.01 # polling for the first segment
        done
        firsts+=("$(echo "($(now) - $start) * 1000" | bc)")
        sleep 8 # 10 s into the broadcast, its playlist full
        publishes+=("$(rss_mib "$pid")")
        wait "$pid" 2>/dev/null || true
    done
    printf "%s %s %s %s\n" "$(du -m "$binary" | cut -f1)" "$(median "${firsts[@]}")" "$(median "${serves[@]}")" \
        "$(median "${publishes[@]}")"
}

cp "$1" "$work/before"
cp "$2" "$work/after"
strip --strip-unneeded "$work/before" "$work/after"
read -r b_version a_version <<<"$(startup)"
read -r b_size b_first b_serve b_publish <<<"$(profile before)"
read -r a_size a_first a_serve a_publish <<<"$(profile after)"
ratio() { echo "scale=2; $2 / $1" | bc | sed 's/^\./0./'; }
printf "%-34s %10s %10s %7s\n" "" "before" "after" "ratio"
printf "%-34s %10s %10s %6sx\n" "stripped binary, MiB" "$b_size" "$a_size" "$(ratio "$b_size" "$a_size")"
printf "%-34s %10.1f %10.1f %6sx\n" "onair --version, ms" "$b_version" "$a_version" "$(ratio "$b_version" "$a_version")"
printf "%-34s %10.0f %10.0f %6sx\n" "publish to first segment, ms" "$b_first" "$a_first" "$(ratio "$b_first" "$a_first")"
printf "%-34s %10s %10s %6sx\n" "onair serve idle, RSS MiB" "$b_serve" "$a_serve" "$(ratio "$b_serve" "$a_serve")"
printf "%-34s %10s %10s %6sx\n" "publish 10 s in, RSS MiB" "$b_publish" "$a_publish" "$(ratio "$b_publish" "$a_publish")"
