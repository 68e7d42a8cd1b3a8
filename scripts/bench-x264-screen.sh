#!/usr/bin/env bash
# Whether x264 settings make screen text sharper per bit: an editor screen (1920x1080, someone
# typing 5 characters a second) grabbed losslessly, then encoded as onair encodes (libx264
# veryfast, zerolatency, 4000k capped, keyframe every 60 frames) with each variant below, and
# compared with the lossless grab: SSIM (luma), PSNR, bytes and CPU seconds of each encode.
#
#   scripts/bench-x264-screen.sh [seconds]      (default 6)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-6}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh
display_number=93
Xvfb :$display_number -screen 0 1920x1080x24 -nolisten tcp -noreset >/dev/null 2>&1 &
pids+=($!)
until DISPLAY=:$display_number xdpyinfo >/dev/null 2>&1; do sleep 0.2; done
DISPLAY=:$display_number /usr/bin/python3 scripts/bench/editor.py 1920 1080 5 >"$work/editor.out" 2>&1 &
pids+=($!)
until grep -q ok "$work/editor.out" 2>/dev/null; do sleep 0.2; done
# The reference: every frame, lossless.
ffmpeg -v error -f x11grab -framerate 30 -video_size 1920x1080 -i ":$display_number" -t "$seconds" \
    -c:v libx264 -preset ultrafast -qp 0 -pix_fmt yuv420p "$work/reference.mkv"

variant() {  # name tune [x264-params]
    local params=${3:-}
    measure "$1" ffmpeg -hide_banner -nostdin -i "$work/reference.mkv" -c:v libx264 -preset veryfast -tune "$2" \
        ${params:+-x264-params "$params"} -pix_fmt yuv420p -g 60 -keyint_min 60 -sc_threshold 0 \
        -b:v 4000k -maxrate 4000k -bufsize 4000k -f mp4 "$work/$1.mp4" >/dev/null
    local ssim psnr user system
    ssim=$(ffmpeg -hide_banner -i "$work/$1.mp4" -i "$work/reference.mkv" -lavfi "[0][1]ssim" -f null - 2>&1 |
        grep -o 'Y:[0-9.]*' | tail -1 | cut -d: -f2)
    psnr=$(ffmpeg -hide_banner -i "$work/$1.mp4" -i "$work/reference.mkv" -lavfi "[0][1]psnr" -f null - 2>&1 |
        grep -o 'y:[0-9.inf]*' | tail -1 | cut -d: -f2)
    read -r user system _ <"$work/$1.time"
    printf "%-34s %9s %8s %10.2f %8.2f\n" "$1" "$ssim" "$psnr" "$(echo "$(stat -c %s "$work/$1.mp4") / 1000000" | bc -l)" \
        "$(echo "$user + $system" | bc)"
}

printf "%s s of an editor with typing, 1920x1080, 30 fps, libx264 veryfast 4000k\n" "$seconds"
printf "%-34s %9s %8s %10s %8s\n" "variant" "SSIM Y" "PSNR Y" "MB" "CPU s"
variant "zerolatency-onair" zerolatency "$x264_params"
variant "stillimage" zerolatency,stillimage
variant "ssim-tune" zerolatency,ssim
variant "no-psy-no-aq" zerolatency "psy-rd=0,0:aq-mode=0"
variant "aq-mode-3" zerolatency "aq-mode=3"
