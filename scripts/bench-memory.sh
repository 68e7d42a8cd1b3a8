#!/usr/bin/env bash
# Memory over a long broadcast: onair and `ffmpeg -f x11grab` publishing the same animated 1920x1080
# Xvfb screen side by side (at the same time), each as 1280x720 H.264 (libx264 veryfast/zerolatency,
# 2500k cap, a keyframe every 2 s) in 2-second fMP4 segments, 6 listed; the resident memory of each
# every 10 seconds, then the peaks and how much each grew after its first 30 seconds (by then both
# hold a full playlist: onair keeps its listed segments, and those still downloadable, in memory).
#
#   scripts/bench-memory.sh [seconds] [fps]      (defaults 150, 15)
#
# Video only. A publisher whose memory keeps growing once its playlist is full holds on to media it
# no longer serves; ffmpeg's stays flat.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-150}
fps=${2:-15}
keyframes=$((2 * fps))
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh
display_number=93
animated_screen 1920 1080 "$fps"

DISPLAY=:$display_number .build/release/onair publish --channel bench --duration "${seconds}s" \
    --host 127.0.0.1 --port "$(free_port)" --source screen --no-cursor --audio none --fps "$fps" \
    --size 1280x720 --playlist-size 6 >"$work/onair.log" 2>&1 &
onair=$!
pids+=("$onair")
mkdir -p "$work/ffmpeg"
ffmpeg -hide_banner -nostdin -f x11grab -framerate "$fps" -draw_mouse 0 -video_size 1920x1080 \
    -i ":$display_number" -t "$seconds" -vf scale=1280:720:flags=bicubic -c:v libx264 -preset veryfast \
    -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p -g "$keyframes" -keyint_min "$keyframes" -sc_threshold 0 \
    -b:v 2500k -maxrate 2500k -bufsize 2500k -f hls -hls_time 2 -hls_list_size 6 -hls_segment_type fmp4 \
    -hls_flags delete_segments "$work/ffmpeg/index.m3u8" >"$work/ffmpeg.log" 2>&1 &
ffmpeg=$!
pids+=("$ffmpeg")

field() {  # pid field: a /proc status field in MiB, empty once the process is gone
    awk -v field="$2:" '$1 == field { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || true
}
printf "%s s, 1920x1080 screen animated at %s fps -> 1280x720, both publishing at once, video only\n" \
    "$seconds" "$fps"
printf "%8s %10s %11s %7s\n" "time" "onair MiB" "ffmpeg MiB" "ratio"
elapsed=0
declare -A at30 last peak
while kill -0 "$onair" 2>/dev/null && kill -0 "$ffmpeg" 2>/dev/null; do
    sleep 10 # a sampling period, not a wait for a condition
    elapsed=$((elapsed + 10))
    ours=$(field "$onair" VmRSS)
    theirs=$(field "$ffmpeg" VmRSS)
    [ -n "$ours" ] && [ -n "$theirs" ] || break
    peak[onair]=$(field "$onair" VmHWM)
    peak[ffmpeg]=$(field "$ffmpeg" VmHWM)
    last[onair]=$ours
    last[ffmpeg]=$theirs
    if [ "$elapsed" -eq 30 ]; then
        at30[onair]=$ours
        at30[ffmpeg]=$theirs
    fi
    printf "%7ss %10s %11s %6.2fx\n" "$elapsed" "$ours" "$theirs" "$(echo "$ours / $theirs" | bc -l)"
done
wait "$onair" "$ffmpeg" 2>/dev/null || true
if [ -n "${at30[onair]:-}" ]; then
    printf "peak: onair %s MiB, ffmpeg %s MiB (%.2fx); grown since 30 s: onair %+.1f MiB, ffmpeg %+.1f MiB\n" \
        "${peak[onair]}" "${peak[ffmpeg]}" "$(echo "${peak[onair]} / ${peak[ffmpeg]}" | bc -l)" \
        "$(echo "${last[onair]} - ${at30[onair]}" | bc -l)" "$(echo "${last[ffmpeg]} - ${at30[ffmpeg]}" | bc -l)"
fi
grep -h "stopped channel" "$work/onair.log" | sed 's/^.*stopped/onair: stopped/' || true
echo "ffmpeg: $(ffmpeg_duplicates ffmpeg) frames duplicated"
