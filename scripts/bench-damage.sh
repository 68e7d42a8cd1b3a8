#!/usr/bin/env bash
# What sharing a screen costs when little of it changes: onair and `ffmpeg -f x11grab` with the
# same scaling and encoder settings, side by side in one run, on four Xvfb screens, and beside
# each the cost of x264 alone on the same output (the floor both stand on).
#
#   scripts/bench-damage.sh [seconds]      (default 20)
#
# Screens (a still textured backdrop, tests' xscene.py; ffplay animates testsrc2 in a window):
#   3840x2160 → 1920x1080 with a 320x240 area animated      goal: onair ≤ 0.35× ffmpeg's CPU
#   1920x1080, the same                                     goal: ≤ 0.5×
#   1920x1080, still                                        goal: ≤ 0.5×
#   1280x720, all of it animated                            goal: ≤ 0.9× (must not get worse)
# Video only (sound costs both the same), H.264 libx264 veryfast/zerolatency capped at 2500k,
# keyframe every 60 frames, fMP4 HLS in 2-second segments, 6 listed (onair keeps them in memory,
# ffmpeg on disk; onair also records every segment, for the floor), bicubic scaling (onair
# converts the screen with libswscale's full_chroma_inp; ffmpeg runs without it, as the issue's
# command has it, and with it). The floor: onair's own output decoded to raw pictures beforehand, then encoded
# again by ffmpeg with the same settings, paced in real time.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh
display_number=91
encoder=(-c:v libx264 -preset veryfast -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p -g 60 -keyint_min 60 -sc_threshold 0
    -b:v 2500k -maxrate 2500k -bufsize 2500k)

grab() {  # name width height output scaler-flags: ffmpeg x11grab publishing the screen
    mkdir -p "$work/$1"
    measure "$1" ffmpeg -hide_banner -nostdin -f x11grab -framerate 30 -draw_mouse 0 \
        -video_size "${2}x${3}" -i ":$display_number" -t "$seconds" \
        -vf "scale=${4/x/:}:flags=$5" "${encoder[@]}" \
        -f hls -hls_time 2 -hls_list_size 6 -hls_segment_type fmp4 -hls_flags delete_segments \
        "$work/$1/index.m3u8"
}

run() {  # key label width height output goal: onair, ffmpeg, and the floor on what the display shows
    local key=$1 label=$2 width=$3 height=$4 output=$5 goal=$6 ours theirs same floor port
    port=$(free_port)
    ours=$(DISPLAY=:$display_number measure "onair-$key" .build/release/onair publish --channel bench \
        --duration "${seconds}s" --host 127.0.0.1 --port "$port" --record "$work/onair-$key" --source screen \
        --no-cursor --audio none --size "$output" --playlist-size 6)
    # ffmpeg as the issue has it (libswscale's default colour path), and given the colour option
    # onair converts the screen with (full_chroma_inp).
    theirs=$(grab "ffmpeg-$key" "$width" "$height" "$output" bicubic)
    same=$(grab "same-$key" "$width" "$height" "$output" bicubic+full_chroma_inp)
    # The floor: onair's pictures, decoded beforehand, encoded again in real time.
    local media
    media=$(echo "$work/onair-$key/bench/"*/)
    (cd "$media" && cat init.mp4 $(grep -v '^#' media.m3u8)) |
        ffmpeg -v error -i - -f rawvideo -pix_fmt yuv420p "$work/raw-$key.yuv"
    floor=$(measure "floor-$key" ffmpeg -hide_banner -nostdin -re -f rawvideo -pix_fmt yuv420p \
        -video_size "$output" -framerate 30 -i "$work/raw-$key.yuv" "${encoder[@]}" -f null -)
    rm -f "$work/raw-$key.yuv"
    read -r _ our_cpu our_rss <<<"$ours"
    read -r _ their_cpu their_rss <<<"$theirs"
    read -r _ same_cpu _ <<<"$same"
    read -r _ floor_cpu _ <<<"$floor"
    printf "%-40s %8.2f %8.2f %7.2fx %6s %8.2f %9.1f %9.1f %7.2fx\n" "$label" "$our_cpu" "$their_cpu" \
        "$(echo "$our_cpu / $their_cpu" | bc -l)" "$goal" "$floor_cpu" "$(echo "$our_rss / 1024" | bc -l)" \
        "$(echo "$their_rss / 1024" | bc -l)" "$(echo "$our_rss / $their_rss" | bc -l)"
    printf "    ffmpeg with full_chroma_inp: %.2f s, ratio %.2fx\n" "$same_cpu" "$(echo "$our_cpu / $same_cpu" | bc -l)"
    echo "    ffmpeg: $(ffmpeg_duplicates "ffmpeg-$key") frames duplicated; with full_chroma_inp: $(ffmpeg_duplicates "same-$key")"
    grep -h "stopped channel" "$work/onair-$key.log" | sed 's/^.*stopped/    onair: stopped/' || true
}

printf "%s s per run, 30 fps, libx264 veryfast/zerolatency 2500k, bicubic scaling, video only\n" "$seconds"
printf "%-40s %8s %8s %8s %6s %8s %9s %9s %8s\n" "" "onair s" "ffmpeg s" "ratio" "goal" "x264 s" \
    "onair MiB" "ffmpeg MiB" "RSS"
screen 3840 2160
animate 320 240 1500 900
run 4k "3840x2160 -> 1920x1080, 320x240 animated" 3840 2160 1920x1080 0.35
screen 1920 1080
animate 320 240 800 400
run hd "1920x1080, 320x240 animated" 1920 1080 1920x1080 0.5
screen 1920 1080
run still "1920x1080, still" 1920 1080 1920x1080 0.5
screen 1280 720
animate 1280 720 0 0
run full "1280x720, all animated" 1280 720 1280x720 0.9
echo "(CPU seconds for the whole run; ratio: onair / ffmpeg; x264 s: x264 alone on onair's output;"
echo " RSS: peak resident memory, onair / ffmpeg)"
