#!/usr/bin/env bash
# What a ladder of qualities costs: onair publishing 1080p, 720p and 360p from one capture against
# ffmpeg doing the same job in one process (x11grab → split=3 → scale → three libx264 →
# -var_stream_map HLS), side by side in one run on an animated 1920x1080 Xvfb screen; then onair
# with one, two and three rungs, for what each added rung costs and which ladder keeps every frame.
#
#   scripts/bench-abr.sh [seconds] [fps] [rounds]      (defaults 20, 30, 3)
#
# Video only (sound costs both the same), libx264 veryfast/zerolatency, each rung capped at its
# rate (1080p 4600k, 720p 2500k, 360p 900k), a keyframe every 2 seconds, fMP4 HLS in 2-second
# segments, 6 listed (onair keeps them in memory and writes them to --hls-dir, ffmpeg writes
# them), bicubic scaling (onair converts the screen with libswscale's full_chroma_inp; ffmpeg runs
# twice: as the issue's command has it, and with that option). Goal: onair ≤ 0.8× ffmpeg's CPU.
# The screen changes at the frame rate, and each publisher's distinct pictures are printed: ffmpeg
# 5.1 grabs, scales and encodes on one thread and, when that takes longer than a frame, repeats
# pictures (its "dup" count) instead of grabbing new ones, so a ratio only compares like jobs
# where both kept up (on this 2-core machine, at 15 fps but not at 30). CPU time on this machine
# varies by a fifth between runs of the same job, so the side-by-side runs are repeated, in turn,
# and their medians compared.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
fps=${2:-30}
rounds=${3:-3}
frames=$((seconds * fps))
keyframes=$((2 * fps)) # a keyframe on every 2-second segment boundary, as onair puts them
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh
display_number=92
animated_screen 1920 1080 "$fps"
# The screen must change as often in every run: the X server and the animation get the CPU first,
# so a busier publisher cannot slow the picture it is measured on (and so do less work).
renice -n -10 -p "${pids[@]}" >/dev/null 2>&1 || echo "(not allowed to raise the animation's priority: figures vary more)"

onair() {  # name renditions: prints "name cpu peak" and keeps the log
    local port
    port=$(free_port)
    DISPLAY=:$display_number measure "$1" .build/release/onair publish --channel bench --duration "${seconds}s" \
        --host 127.0.0.1 --port "$port" --hls-dir "$work/$1" --source screen --no-cursor --audio none \
        --fps "$fps" --renditions "$2" --playlist-size 6
}

rate() { echo "-b:v:$1 $2 -maxrate:v:$1 $2 -bufsize:v:$1 $2"; }
ffmpeg_ladder() {  # name scaler-flags
    mkdir -p "$work/$1"
    # shellcheck disable=SC2046
    measure "$1" ffmpeg -hide_banner -nostdin -f x11grab -framerate "$fps" -draw_mouse 0 -video_size 1920x1080 \
        -i ":$display_number" -t "$seconds" \
        -filter_complex "[0:v]split=3[a][b][c];[a]scale=1920:1080:flags=$2[a2];[b]scale=1280:720:flags=$2[b2];[c]scale=640:360:flags=$2[c2]" \
        -map "[a2]" -map "[b2]" -map "[c2]" -c:v libx264 -preset veryfast -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p \
        -g "$keyframes" -keyint_min "$keyframes" -sc_threshold 0 $(rate 0 4600k) $(rate 1 2500k) $(rate 2 900k) \
        -f hls -hls_time 2 -hls_list_size 6 -hls_segment_type fmp4 -hls_flags delete_segments+independent_segments \
        -var_stream_map "v:0 v:1 v:2" -master_pl_name index.m3u8 "$work/$1/%v/media.m3u8"
}
grabbed() {  # name: ffmpeg's pictures grabbed per rung (its frames less its duplicates, over 3 rungs)
    echo "$((frames - $(ffmpeg_duplicates "$1") / 3)) of $frames grabbed"
}
captured() {  # name: onair's distinct pictures, as it reports at the end
    grep -ho "[0-9]* frames captured, [0-9]* repeated, [0-9]* dropped" "$work/$1.log" || echo "?"
}
ratio() { echo "$1 / $2" | bc -l; }
row() {  # label ours theirs
    local our_cpu our_rss their_cpu their_rss
    read -r _ our_cpu our_rss <<<"$2"
    read -r _ their_cpu their_rss <<<"$3"
    printf "%-34s %8.2f %8.2f %7.2fx %6s %9.1f %9.1f %7.2fx\n" "$1" "$our_cpu" "$their_cpu" \
        "$(ratio "$our_cpu" "$their_cpu")" "0.8" "$(echo "$our_rss / 1024" | bc -l)" \
        "$(echo "$their_rss / 1024" | bc -l)" "$(ratio "$our_rss" "$their_rss")"
}

printf "%s s per run, 1920x1080 screen animated at %s fps, %s fps out, video only, %s rounds\n" \
    "$seconds" "$fps" "$fps" "$rounds"
printf "%-34s %8s %8s %8s %6s %9s %9s %8s\n" "" "onair s" "ffmpeg s" "ratio" "goal" "onair MiB" "ffmpeg MiB" "RSS"
ours_cpu=() theirs_cpu=() same_cpu=()
# Each round: ffmpeg as the issue's command has it (libswscale's default colour path), ffmpeg given
# the colour option onair converts the screen with (full_chroma_inp, which makes its three
# conversions cheaper), then onair.
for round in $(seq "$rounds"); do
    theirs=$(ffmpeg_ladder "ffmpeg-$round" bicubic)
    same=$(ffmpeg_ladder "same-$round" bicubic+full_chroma_inp)
    ours=$(onair "ladder3-$round" 1080p,720p,360p)
    row "$round: 1080p + 720p + 360p" "$ours" "$theirs"
    row "   ffmpeg with full_chroma_inp" "$ours" "$same"
    echo "   onair: $(captured "ladder3-$round")"
    echo "   ffmpeg: $(grabbed "ffmpeg-$round"); with full_chroma_inp: $(grabbed "same-$round")"
    ours_cpu+=("$(echo "$ours" | cut -d' ' -f2)")
    theirs_cpu+=("$(echo "$theirs" | cut -d' ' -f2)")
    same_cpu+=("$(echo "$same" | cut -d' ' -f2)")
done
our_cpu=$(median "${ours_cpu[@]}")
# The round the median is (with an even count, the first): its frames go with the median's figure.
median_round=1
for index in "${!ours_cpu[@]}"; do
    if [ "$(echo "${ours_cpu[$index]} == $our_cpu" | bc)" = 1 ]; then
        median_round=$((index + 1))
        break
    fi
done
printf "median: onair %.2f s, ffmpeg %.2f s (%.2fx), ffmpeg with full_chroma_inp %.2f s (%.2fx); goal 0.8x\n" \
    "$our_cpu" "$(median "${theirs_cpu[@]}")" "$(ratio "$our_cpu" "$(median "${theirs_cpu[@]}")")" \
    "$(median "${same_cpu[@]}")" "$(ratio "$our_cpu" "$(median "${same_cpu[@]}")")"

one=$(onair ladder1 1080p)
two=$(onair ladder2 1080p,360p)
read -r _ one_cpu _ <<<"$one"
read -r _ two_cpu _ <<<"$two"
echo "onair, by ladder (CPU s, share of one rendition, frames; three rungs: the median round above):"
for run in ladder1:"1080p":$one_cpu ladder2:"1080p + 360p":$two_cpu ladder3-$median_round:"1080p + 720p + 360p":$our_cpu; do
    IFS=: read -r key label cpu <<<"$run"
    printf "  %-24s %8.2f %6.2fx   %s\n" "$label" "$cpu" "$(ratio "$cpu" "$one_cpu")" "$(captured "$key")"
done
echo "(CPU seconds for the whole run; ratio: onair / ffmpeg; RSS: peak resident memory, onair / ffmpeg;"
echo " frames: the largest rung's, as onair reports at the end; a repeat is a frame slot in which the"
echo " screen did not change; ffmpeg sends a duplicate of the picture before in each slot it was still busy)"
