#!/usr/bin/env bash
# What a screen costs when the encode cadence follows it: onair (frames follow the screen), onair
# --frame-rate constant, and `ffmpeg -f x11grab` with identical x264 settings, side by side in one
# run, on four 1920x1080 Xvfb screens at 30 fps:
#
#   scripts/bench-cadence.sh [seconds] [screens|sharpness]      (default 20 s, both)
#
#   a still editor full of text                  goal: onair ≤ 0.10× ffmpeg's CPU
#   a person typing 5 characters a second        goal: ≤ 0.30×
#   a 320x240 video in a corner                  goal: no worse than constant
#   everything moving                            goal: no worse than constant
#
# Video only, H.264 libx264 veryfast/zerolatency at 4000k (capped), keyframe every 60 frames, fMP4
# HLS in 2-second segments. Printed: CPU seconds and their ratio to ffmpeg's, frames encoded, and
# the bytes of the stream each made (segments kept with --record; ffmpeg's with -hls_list_size 0).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
part=${2:-}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh
display_number=92
encoder=(-c:v libx264 -preset veryfast -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p -g 60 -keyint_min 60 -sc_threshold 0
    -b:v 4000k -maxrate 4000k -bufsize 4000k)

stream_bytes() {  # folder: bytes of the media segments under it (onair's seg*.m4s, ffmpeg's index*.m4s)
    find "$1" -name '*.m4s' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'
}

run() {  # key label goal
    local key=$1 label=$2 goal=$3 follow constant theirs port
    port=$(free_port)
    follow=$(DISPLAY=:$display_number measure "follow-$key" .build/release/onair publish --channel bench \
        --duration "${seconds}s" --host 127.0.0.1 --port "$port" --record "$work/follow-$key" --source screen \
        --no-cursor --audio none --size 1920x1080 --video-bitrate 4000k)
    port=$(free_port)
    constant=$(DISPLAY=:$display_number measure "constant-$key" .build/release/onair publish --channel bench \
        --duration "${seconds}s" --host 127.0.0.1 --port "$port" --record "$work/constant-$key" --source screen \
        --no-cursor --audio none --size 1920x1080 --video-bitrate 4000k --frame-rate constant)
    mkdir -p "$work/ffmpeg-$key"
    theirs=$(measure "ffmpeg-$key" ffmpeg -hide_banner -nostdin -f x11grab -framerate 30 -draw_mouse 0 \
        -video_size 1920x1080 -i ":$display_number" -t "$seconds" "${encoder[@]}" \
        -f hls -hls_time 2 -hls_list_size 0 -hls_segment_type fmp4 "$work/ffmpeg-$key/index.m3u8")
    read -r _ follow_cpu _ <<<"$follow"
    read -r _ constant_cpu _ <<<"$constant"
    read -r _ their_cpu _ <<<"$theirs"
    local follow_bytes constant_bytes their_bytes encoded
    follow_bytes=$(stream_bytes "$work/follow-$key")
    constant_bytes=$(stream_bytes "$work/constant-$key")
    their_bytes=$(stream_bytes "$work/ffmpeg-$key")
    encoded=$(grep -ho '[0-9]* encoded' "$work/follow-$key.log" | tail -1 | cut -d' ' -f1)
    printf "%-34s %7.2f %7.2f %7.2f %7.2fx %7.2fx %6s %8s %9.2f %9.2f %9.2f\n" "$label" "$follow_cpu" \
        "$constant_cpu" "$their_cpu" "$(echo "$follow_cpu / $their_cpu" | bc -l)" \
        "$(echo "$constant_cpu / $their_cpu" | bc -l)" "$goal" "${encoded:-?}/$((seconds * 30))" \
        "$(echo "$follow_bytes / 1000000" | bc -l)" "$(echo "$constant_bytes / 1000000" | bc -l)" \
        "$(echo "$their_bytes / 1000000" | bc -l)"
}

if [ "$part" != sharpness ]; then
printf "%s s per run, 1920x1080 at 30 fps, libx264 veryfast/zerolatency 4000k, video only\n" "$seconds"
printf "%-34s %7s %7s %7s %8s %8s %6s %8s %9s %9s %9s\n" "" "follow" "const" "ffmpeg" "follow/" "const/" \
    "goal" "encoded" "follow MB" "const MB" "ffmpeg MB"
editor_screen 0
run still "still editor full of text" 0.10
editor_screen 5
run typing "typing 5 characters a second" 0.30
screen 1920 1080
animate 320 240 1500 780
run corner "320x240 video in a corner" "=const"
kill "${pids[@]}" 2>/dev/null || true
wait 2>/dev/null || true
pids=()
animated_screen 1920 1080 30
run moving "everything moving" "=const"
echo "(CPU seconds for the whole run, onair following the screen, onair constant, ffmpeg x11grab;"
echo " ratios to ffmpeg's; frames onair encoded of the slots; the bytes of each stream's segments)"
fi
[ "$part" = screens ] && exit 0

# Sharpness once typing stops: 4 s of typing, then 4 s still; the stream's last picture against a
# screenshot, SSIM of the luma (1 is identical). Goal: following the screen ≥ 0.995.
sharpness() {  # mode
    editor_screen 5 4
    local port
    port=$(free_port)
    DISPLAY=:$display_number .build/release/onair publish --channel sharp --duration 9s --host 127.0.0.1 \
        --port "$port" --record "$work/sharp-$1" --record-mp4 --source screen --no-cursor --audio none \
        --size 1920x1080 --video-bitrate 4000k --frame-rate "$1" >"$work/sharp-$1.log" 2>&1
    ffmpeg -v error -f x11grab -video_size 1920x1080 -i ":$display_number" -frames:v 1 -y "$work/screen-$1.png"
    ffmpeg -v error -i "$(echo "$work/sharp-$1"/sharp/*/recording.mp4)" -update 1 -y "$work/last-$1.png"
    ffmpeg -hide_banner -i "$work/last-$1.png" -i "$work/screen-$1.png" \
        -lavfi "[0]format=yuv420p[a];[1]format=yuv420p[b];[a][b]ssim" -f null - 2>&1 |
        grep -o 'Y:[0-9.]*' | tail -1
}
echo "sharpness 4 s after typing stops (SSIM Y of the stream's picture against the screen):"
echo "    follow: $(sharpness follow)   constant: $(sharpness constant)   goal: follow ≥ 0.995"
