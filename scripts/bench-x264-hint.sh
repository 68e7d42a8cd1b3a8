#!/usr/bin/env bash
# What x264 costs when told which parts of the picture did not change: the floor under
# scripts/bench-damage.sh's "little change" screens, encoded without the hint (as libav 5.1 passes
# pictures to libx264) and with x264's mb_info marking every unchanged macroblock constant.
#
#   scripts/bench-x264-hint.sh [seconds] [rounds]      (defaults 10 and 3)
#
# The same screens as bench-damage.sh (the tests' textured backdrop; ffplay animating a 320x240
# area), captured once as raw pictures by ffmpeg's x11grab (scaled 3840x2160 → 1920x1080 with
# bicubic), then encoded by scripts/bench/x264-hint.c with bench-damage.sh's settings (veryfast,
# zerolatency, 2500k capped, keyframe every 60 frames), untold and told in turn, each `rounds`
# times; medians of the CPU time spent inside x264.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
rounds=${2:-3}
scripts/setup.sh >/dev/null
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh
display_number=95
cc -O2 -o "$work/x264-hint" scripts/bench/x264-hint.c -lx264

run() {  # label width height: the screen as it is now, captured, then encoded both ways
    local label=$1 width=$2 height=$3 round none=() told=() cpu bytes_none bytes_told marked
    ffmpeg -v error -nostdin -f x11grab -framerate 30 -draw_mouse 0 -video_size "${width}x${height}" \
        -i ":$display_number" -frames:v $((seconds * 30)) -vf "scale=1920:1080:flags=bicubic" \
        -pix_fmt yuv420p -f rawvideo -y "$work/raw.yuv"
    for ((round = 0; round < rounds; round++)); do
        read -r _ cpu bytes_none _ _ < <("$work/x264-hint" "$work/raw.yuv" 1920 1080 30 none)
        none+=("$cpu")
        read -r _ cpu bytes_told marked _ < <("$work/x264-hint" "$work/raw.yuv" 1920 1080 30 constant)
        told+=("$cpu")
    done
    rm -f "$work/raw.yuv"
    local a b
    a=$(median "${none[@]}")
    b=$(median "${told[@]}")
    printf "%-40s %8.2f %8.2f %7.2fx %8.1f%% %9d %9d\n" "$label" "$a" "$b" "$(echo "$b / $a" | bc -l)" "$marked" \
        "$bytes_none" "$bytes_told"
    echo "    rounds, untold: ${none[*]}; told: ${told[*]}"
}

printf "%s s of 1920x1080 pictures at 30 fps, libx264 veryfast/zerolatency 2500k, median of %s rounds\n" \
    "$seconds" "$rounds"
printf "%-40s %8s %8s %8s %9s %9s %9s\n" "" "untold s" "told s" "ratio" "constant" "bytes" "told bytes"
screen 3840 2160
animate 320 240 1500 900
run "3840x2160 -> 1920x1080, 320x240 animated" 3840 2160
screen 1920 1080
animate 320 240 800 400
run "1920x1080, 320x240 animated" 1920 1080
screen 1920 1080
run "1920x1080, still" 1920 1080
echo "(CPU seconds inside x264, all its threads; constant: the share of macroblocks told unchanged)"
