#!/usr/bin/env bash
# A soak: a 720p+360p Low-Latency ladder of the test source with --dvr 30m, --record and a push to
# `onair serve` (which keeps its own 30 min window), played by viewers of both, for MINUTES. Every
# minute it prints, for the publisher and the origin, the resident and anonymous memory, the open
# descriptors and the threads; at the end, how each grew after the rewind windows filled (minute
# 31), per hour, every push the origin refused or closed, and every warning it logged. Not part of
# scripts/test.sh.
#
#   scripts/soak.sh [minutes]      (default 120)
#
# ONAIR_BINARY=.build/debug/onair soaks another build (default: the release build, made here).
# ONAIR_BESIDE=<another build of onair> runs a second `onair serve` of that build beside the first,
# fed by a second push of the same publisher and played by the same viewers, and prints its
# figures beside the first's: an origin's change measured side by side in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-120}
if [ -z "${ONAIR_BINARY:-}" ]; then
    ONAIR_BUILD=release scripts/setup.sh >/dev/null
    ONAIR_BINARY=.build/release/onair
fi
work=$(mktemp -d)
pids=()
# The logs stay for a look afterwards: `soak: logs in DIR` says where.
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work/dvr" "$work/origin-dvr" "$work/beside-dvr" "$work/rec"' EXIT
source scripts/bench/common.sh
origin_port=$(free_port)
publisher_port=$(free_port)
token=soak-ingest-token-$RANDOM$RANDOM$RANDOM

wait_for_port() {  # port: until something listens there (at most 30 s)
    for _ in $(seq 300); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1 # polling a port, not waiting for time to pass
    done
    echo "soak: nothing listens on port $1" >&2
    return 1
}

ONAIR_INGEST_TOKEN=$token "$ONAIR_BINARY" serve --host 127.0.0.1 --port "$origin_port" --dvr 30m \
    --dvr-dir "$work/origin-dvr" --log-level notice >"$work/serve.log" 2>&1 &
origin=$!
pids+=("$origin")
wait_for_port "$origin_port"
pushes=(--push "http://127.0.0.1:$origin_port/ingest/soak/")
origins=("http://127.0.0.1:$origin_port")
beside=
if [ -n "${ONAIR_BESIDE:-}" ]; then
    beside_port=$(free_port)
    ONAIR_INGEST_TOKEN=$token "$ONAIR_BESIDE" serve --host 127.0.0.1 --port "$beside_port" --dvr 30m \
        --dvr-dir "$work/beside-dvr" --log-level notice >"$work/beside.log" 2>&1 &
    beside=$!
    pids+=("$beside")
    wait_for_port "$beside_port"
    pushes+=(--push "http://127.0.0.1:$beside_port/ingest/soak/")
    origins+=("http://127.0.0.1:$beside_port")
fi
ONAIR_PUSH_HEADER="Authorization: Bearer $token" "$ONAIR_BINARY" publish --channel soak --source test --audio test --renditions 720p,360p --low-latency \
    --dvr 30m --dvr-dir "$work/dvr" --record "$work/rec" --host 127.0.0.1 --port "$publisher_port" \
    "${pushes[@]}" --duration "$((minutes + 1))m" --log-level notice >"$work/publish.log" 2>&1 &
publisher=$!
pids+=("$publisher")
wait_for_port "$publisher_port"

# Viewers: two of each server, each reloading a rung's playlist and fetching its newest segment
# every second, for as long as the publisher runs.
viewer() {  # base rung
    while kill -0 "$publisher" 2>/dev/null; do
        playlist=$(curl -sf --max-time 5 "$1/live/soak/$2/media.m3u8" || true)
        segment=$(grep -E '^seg[0-9]+\.m4s$' <<<"$playlist" | tail -1 || true)
        [ -n "$segment" ] && curl -sf --max-time 10 -o /dev/null "$1/live/soak/$2/$segment" || true
        sleep 1 # a viewer's reload period
    done
}
for base in "http://127.0.0.1:$publisher_port" "${origins[@]}"; do
    for rung in 720p 360p; do
        viewer "$base" "$rung" &
        pids+=("$!")
    done
done

sample() {  # pid: "rss_mib anon_mib fds threads", empty once the process is gone
    [ -r "/proc/$1/status" ] || return 0
    local rss anon threads fds
    rss=$(awk '$1 == "VmRSS:" { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null) || return 0
    anon=$(awk '$1 == "RssAnon:" { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null) || return 0
    threads=$(awk '$1 == "Threads:" { print $2 }' "/proc/$1/status" 2>/dev/null) || return 0
    fds=$(find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
    echo "$rss $anon $fds $threads"
}

# Where each process's anonymous memory is, every minute: a line per mapping that holds some
# (its addresses, kB, what it maps), in $work/maps/<process>-<minute>, so that a step in the
# figures can be traced to the mapping that took it (a heap, an arena, a thread's stack, a block
# mapped on its own).
mkdir -p "$work/maps"
mappings() {  # pid file
    awk '/^[0-9a-f]+-[0-9a-f]+ / { range = $1; what = $6 }
         $1 == "Anonymous:" && $2 > 0 { print range, $2, what }' "/proc/$1/smaps" >"$2" 2>/dev/null || true
}

echo "soak: logs in $work"
printf "soak: %s min of a 720p+360p Low-Latency ladder, --dvr 30m, --record, pushed to onair serve (--dvr 30m)\n" \
    "$minutes"
header=$(printf "%6s | %8s %8s %4s %7s | %8s %8s %4s %7s" "minute" "pub MiB" "anon" "fds" "threads" "orig MiB" "anon" \
    "fds" "threads")
[ -z "$beside" ] || header+=$(printf " | %8s %8s %4s %7s" "beside" "anon" "fds" "threads")
echo "$header"
samples=$work/samples  # minute, then each process's RSS and anonymous MiB
minute=0
while kill -0 "$publisher" 2>/dev/null; do
    sleep 60 # the sampling period
    read -r p_rss p_anon p_fds p_threads <<<"$(sample "$publisher")" || true
    read -r o_rss o_anon o_fds o_threads <<<"$(sample "$origin")" || true
    b_rss=
    [ -z "$beside" ] || read -r b_rss b_anon b_fds b_threads <<<"$(sample "$beside")" || true
    # The publisher gone between two samples: the last minute is the last one sampled.
    [ -n "${p_rss:-}" ] && [ -n "${o_rss:-}" ] && { [ -z "$beside" ] || [ -n "$b_rss" ]; } || break
    minute=$((minute + 1))
    mappings "$publisher" "$work/maps/publisher-$minute"
    mappings "$origin" "$work/maps/origin-$minute"
    line=$(printf "%6d | %8s %8s %4s %7s | %8s %8s %4s %7s" "$minute" "$p_rss" "$p_anon" "$p_fds" "$p_threads" \
        "$o_rss" "$o_anon" "$o_fds" "$o_threads")
    if [ -z "$beside" ]; then
        echo "$minute $p_rss $p_anon $o_rss $o_anon" >>"$samples"
    else
        echo "$minute $p_rss $p_anon $o_rss $o_anon $b_rss $b_anon" >>"$samples"
        line+=$(printf " | %8s %8s %4s %7s" "$b_rss" "$b_anon" "$b_fds" "$b_threads")
    fi
    echo "$line"
    # The publisher runs a minute longer than sampled: no sample is taken while it stops.
    ((minute < minutes)) || break
done
cpu_minutes() {  # pid: the CPU time it has used (user and system), in minutes
    awk -v tick="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.1f", ($12 + $13) / tick / 60 }' "/proc/$1/stat" \
        2>/dev/null || echo "?"
}
echo "CPU used in $minute minutes: publisher $(cpu_minutes "$publisher") min, origin $(cpu_minutes "$origin") min${beside:+,\
 the origin beside it $(cpu_minutes "$beside") min}"
kill -INT "$publisher" 2>/dev/null || true
wait "$publisher" || echo "soak: the publisher exited with status $?"

# After the windows filled: the growth from that minute to the last, and the least-squares slope
# over every minute between (a step, such as a high-water mark under a passing load, weighs in the
# first; a steady leak in both).
filled=31
if ((minute > filled + 1)); then
    awk -v from="$filled" '
        $1 >= from { n++; x = $1; sx += x; sxx += x * x; last = NF
                     for (c = 2; c <= NF; c++) { y[c] = $c; sy[c] += $c; sxy[c] += x * $c; if ($1 == from) first[c] = $c } }
        END {
            split("publisher RSS,publisher anonymous,origin RSS,origin anonymous,beside RSS,beside anonymous", label, ",")
            printf "after the windows filled (minute %d to %d), MiB an hour:\n", from, x
            for (c = 2; c <= last; c++) {
                slope = (n * sxy[c] - sx * sy[c]) / (n * sxx - sx * sx) * 60
                printf "  %-20s %7.1f -> %7.1f: %+6.2f first to last, %+6.2f slope\n", label[c - 1], first[c], y[c],
                    (y[c] - first[c]) * 60 / (x - from), slope
            }
        }' "$samples"
    # Where each process's anonymous memory grew meanwhile, by kind of mapping: glibc's main heap,
    # its other arenas (64 MiB-aligned), and blocks mapped on their own (pictures, encoders'
    # buffers, large bodies, thread stacks): a step in one kind names its cause's family.
    /usr/bin/python3 - "$work/maps" "$filled" "$minute" <<'PYTHON'
import sys
folder, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def kinds(process, minute):
    sums = {"main heap": 0, "arenas": 0, "mapped blocks": 0, "other": 0}
    for line in open(f"{folder}/{process}-{minute}"):
        fields = line.split()
        start, end = (int(x, 16) for x in fields[0].split("-"))
        what = fields[2] if len(fields) > 2 else ""
        if what == "[heap]": kind = "main heap"
        elif what: kind = "other"
        elif start % (64 << 20) == 0 and end - start <= 64 << 20: kind = "arenas"
        else: kind = "mapped blocks"
        sums[kind] += int(fields[1]) / 1024
    return sums
print(f"anonymous MiB by kind, minute {first} -> {last}:")
for process in ("publisher", "origin"):
    a, b = kinds(process, first), kinds(process, last)
    print(f"  {process:9s} " + ", ".join(f"{k} {a[k]:.1f} -> {b[k]:.1f}" for k in a))
PYTHON
fi
failed=$(grep -c "push_failed" "$work/publish.log" || true)
refused=$(cat "$work/serve.log" ${beside:+"$work/beside.log"} | grep -cE "refused|409|507|503" || true)
printf "pushes failed (publisher's push_failed events): %s; refusals in the origins' logs: %s\n" "$failed" "$refused"
grep -E "push_failed|push_recovered" "$work/publish.log" | head -20 || true
# What else went wrong at the origins (a rewind window that could not be written, for one).
warnings=$(cat "$work/serve.log" ${beside:+"$work/beside.log"} | grep -c " warning " || true)
printf "warnings in the origins' logs: %s\n" "$warnings"
cat "$work/serve.log" ${beside:+"$work/beside.log"} | grep " warning " | head -20 || true
stopped=$(grep -oE "[0-9]+ frames captured, [0-9]+ repeated, [0-9]+ dropped" "$work/publish.log" | tail -1 || true)
[ -z "$stopped" ] || echo "publisher at its stop: $stopped"
