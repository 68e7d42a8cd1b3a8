#!/usr/bin/env bash
# AV1 beside H.264 on a shared screen, in one run: what each costs, what it sends and how sharp the
# text is once the typing stops. A 1920x1080 Xvfb editor at 30 fps, video only, fMP4 HLS in
# 2-second segments:
#
#   scripts/bench-av1.sh [seconds] [still|typing]      (default 20 s, both cases)
#
#   onair --codec h264 at 4000k          frames follow the screen
#   onair --codec av1 at 2000k and 1250k frames follow the screen (libaom real-time, screen tools)
#   ffmpeg -f x11grab, x264 at 4000k     the peer, with onair's x264 settings
#
# Cases: a still editor full of text; a person typing 5 characters a second, who stops 6 s before
# the end. Printed per case: CPU seconds and their ratio to ffmpeg's, the bytes of the segments
# and their ratio to onair's H.264, and the sharpest and the least sharp frame of the last two
# seconds against a screenshot taken once the run is over (SSIM of the luma; 1 is identical).
# Goals (issue 49): AV1 as sharp as H.264 at 4000k with at most half its bytes; on typing, CPU at
# most 0.35x ffmpeg's.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
only=${2:-}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh
display_number=93
x264=(-c:v libx264 -preset veryfast -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p -g 60
    -keyint_min 60 -sc_threshold 0 -b:v 4000k -maxrate 4000k -bufsize 4000k)

bytes_of() {  # folder: bytes of the media segments under it
    find "$1" -name '*.m4s' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'
}

sharpness() {  # media screenshot [whole]: "least most" SSIM Y of its last 2 s of frames (every frame
    # with "whole": a fragmented segment, which has no index to seek in) against the screenshot
    local seek=(-sseof -2)
    [ "${3:-}" = whole ] && seek=()
    rm -f "$work/ssim.txt"
    ffmpeg -v error "${seek[@]}" -i "$1" -i "$2" \
        -lavfi "[0]format=yuv420p[a];[1]format=yuv420p[b];[a][b]ssim=stats_file=$work/ssim.txt" -f null - 2>/dev/null
    grep -o 'Y:[0-9.]*' "$work/ssim.txt" | cut -d: -f2 | sort -n | awk 'NR == 1 { low = $1 } { high = $1 } END { print low, high }'
}

onair() {  # key codec rate: onair publishing the screen, recorded; prints "cpu bytes low high"
    local key=$1 port cpu
    port=$(free_port)
    read -r _ cpu _ <<<"$(DISPLAY=:$display_number measure "$key" .build/release/onair publish --channel bench \
        --duration "${seconds}s" --host 127.0.0.1 --port "$port" --record "$work/$key" --record-mp4 \
        --source screen --no-cursor --audio none --size 1920x1080 --codec "$2" --video-bitrate "$3")"
    ffmpeg -v error -f x11grab -video_size 1920x1080 -i ":$display_number" -frames:v 1 -y "$work/$key.png"
    echo "$cpu $(bytes_of "$work/$key") $(sharpness "$(echo "$work/$key"/bench/*/recording.mp4)" "$work/$key.png")"
}

peer() {  # key: ffmpeg grabbing the screen with x264; prints "cpu bytes low high"
    local key=$1 cpu last
    mkdir -p "$work/$key"
    read -r _ cpu _ <<<"$(measure "$key" ffmpeg -hide_banner -nostdin -f x11grab -framerate 30 -draw_mouse 0 \
        -video_size 1920x1080 -i ":$display_number" -t "$seconds" "${x264[@]}" -f hls -hls_time 2 \
        -hls_list_size 0 -hls_segment_type fmp4 "$work/$key/index.m3u8")"
    ffmpeg -v error -f x11grab -video_size 1920x1080 -i ":$display_number" -frames:v 1 -y "$work/$key.png"
    # Its last segment (2 s or less), behind its init segment.
    last=$(grep -E '^index[0-9]+\.m4s$' "$work/$key/index.m3u8" | tail -1)
    cat "$work/$key/init.mp4" "$work/$key/$last" >"$work/$key/last.mp4"
    echo "$cpu $(bytes_of "$work/$key") $(sharpness "$work/$key/last.mp4" "$work/$key.png" whole)"
}

row() {  # label cpu bytes low high ffmpeg_cpu h264_bytes
    printf "  %-26s %7.2f %7.2fx %9.2f %7.2fx %9s %9s\n" "$1" "$2" "$(echo "$2 / $6" | bc -l)" \
        "$(echo "$3 / 1000000" | bc -l)" "$(echo "$3 / $7" | bc -l)" "$4" "$5"
}

case_run() {  # key label rate [seconds of typing]
    local key=$1
    shift
    editor_screen "$2" "${3:-inf}"
    read -r h264_cpu h264_bytes h264_low h264_high <<<"$(onair "$key-h264" h264 4000k)"
    editor_screen "$2" "${3:-inf}"
    read -r av1_cpu av1_bytes av1_low av1_high <<<"$(onair "$key-av1" av1 2000k)"
    editor_screen "$2" "${3:-inf}"
    read -r av1s_cpu av1s_bytes av1s_low av1s_high <<<"$(onair "$key-av1-small" av1 1250k)"
    editor_screen "$2" "${3:-inf}"
    read -r peer_cpu peer_bytes peer_low peer_high <<<"$(peer "$key-ffmpeg")"
    echo "$1"
    row "onair h264 4000k" "$h264_cpu" "$h264_bytes" "$h264_low" "$h264_high" "$peer_cpu" "$h264_bytes"
    row "onair av1 2000k" "$av1_cpu" "$av1_bytes" "$av1_low" "$av1_high" "$peer_cpu" "$h264_bytes"
    row "onair av1 1250k" "$av1s_cpu" "$av1s_bytes" "$av1s_low" "$av1s_high" "$peer_cpu" "$h264_bytes"
    row "ffmpeg x11grab x264 4000k" "$peer_cpu" "$peer_bytes" "$peer_low" "$peer_high" "$peer_cpu" "$h264_bytes"
}

printf "%s s per run, 1920x1080 at 30 fps, video only\n" "$seconds"
printf "  %-26s %7s %8s %9s %8s %9s %9s\n" "" "CPU s" "/ffmpeg" "MB" "/h264" "SSIM low" "SSIM high"
[ "$only" = typing ] || case_run still "still editor full of text" 0
[ "$only" = still ] || case_run typing "typing 5 characters a second, still for the last 6 s" 5 "$((seconds - 6))"
echo "(SSIM: the least and the most sharp frame of the last 2 s, against the screen once still)"
