#!/usr/bin/env bash
# How legible a shared screen stays for its viewers, for each codec and cadence, beside ffmpeg.
# Six screens at 1920x1080, each made here and grabbed losslessly once, then replayed on an X
# screen as it was grabbed (the same pictures at the same moments, each putting only the rows that
# changed, so X reports the damage the real screen made) while one publisher captures it:
#
#   scripts/bench-legibility.sh [seconds] [screen...]   (default 16 s a screen, all six)
#
#   editor     an editor full of source code, still
#   typing     someone typing 5 characters a second, still from 6 s before the end
#   scrolling  a long file scrolled a page a second, still from 6 s before the end
#   slides     large text and a diagram, a new slide every 5 s
#   terminal   a terminal printing 10 lines a second, still from 6 s before the end
#   video      a 320x240 video playing in a corner of the still editor
#
#   onair h264 2500k            frames follow the screen (the default)
#   onair h264 2500k constant   --frame-rate constant: 30 frames a second
#   onair av1 1250k             --codec av1, frames follow the screen
#   ffmpeg x11grab x264 2500k   the peer, with onair's x264 settings, 30 frames a second
#
# The rates are onair's defaults; ONAIR_H264_RATE=4000k and ONAIR_AV1_RATE=2000k set others (the
# H.264 one for onair and ffmpeg alike). ONAIR_BINARY=<a build of onair> measures that build
# (default: the release build, made here).
#
# Printed per screen and run: CPU seconds (the publisher's alone) and their ratio to ffmpeg's, the
# bytes of the segments and their ratio to ffmpeg's, and what a viewer saw against the grab (each
# frame shown until the next, 30 times a second; SSIM of the luma, 1 is identical): the mean, the
# worst picture, and the first frame of each segment (what a viewer who joins sees first), worst and
# all. CPU is counted from the replay's start to 4 s after its end, bytes over the segments cut
# meanwhile, and pictures from the replay's start to the run's end.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-16}
only=" ${*:2} "
av1_rate=${ONAIR_AV1_RATE:-1250k}
h264_rate=${ONAIR_H264_RATE:-2500k}
if [ -z "${ONAIR_BINARY:-}" ]; then
    ONAIR_BUILD=release scripts/setup.sh >/dev/null
    ONAIR_BINARY=.build/release/onair
fi
work=$(mktemp -d)
grabs=$(mktemp -d -p /dev/shm onair-legibility.XXXXXX)  # about 250 MB a second of screen
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work" "$grabs"' EXIT
source scripts/bench/common.sh
display_number=94
size=1920x1080
x264=(-c:v libx264 -preset veryfast -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p -g 60
    -keyint_min 60 -sc_threshold 0 -b:v "$h264_rate" -maxrate "$h264_rate" -bufsize "$h264_rate")
gcc -O2 -o "$work/flipbook" scripts/bench/flipbook.c -lX11 -lXext

fresh_screen() {  # a new, empty Xvfb on :$display_number
    kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    pids=()
    # The last one gone first (a subshell cannot wait for its parent's children).
    while [ -e /tmp/.X$display_number-lock ]; do sleep 0.1; done
    Xvfb :$display_number -screen 0 ${size}x24 -nolisten tcp -noreset >/dev/null 2>&1 &
    pids+=($!)
    until DISPLAY=:$display_number xdpyinfo >/dev/null 2>&1; do sleep 0.2; done
}

grab() {  # screen: draws it and grabs $seconds of it, losslessly, into $grabs/screen.bgr0
    echo "($1: grabbing $seconds s)" >&2
    fresh_screen
    DISPLAY=:$display_number /usr/bin/python3 scripts/bench/scenes.py "$1" 1920 1080 $((seconds - 7)) \
        >"$work/scene.out" 2>&1 &
    pids+=($!)
    until grep -q ok "$work/scene.out" 2>/dev/null; do sleep 0.1; done
    ffmpeg -v error -f x11grab -framerate 30 -draw_mouse 0 -video_size $size -i ":$display_number" \
        -t "$seconds" -r 30 -pix_fmt bgr0 -f rawvideo -y "$grabs/$1.bgr0"
}

segments() { find "$1" -name '*.m4s' 2>/dev/null | wc -l; }  # folder: how many segments it holds

segment_files() { find "$1" -name '*.m4s' 2>/dev/null | sort; }  # folder: the segments it holds

cpu_seconds() {  # pid: the CPU seconds it has used so far
    awk -v tick="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / tick }' "/proc/$1/stat"
}

run() {  # key screen folder command...: the command capturing the grab's replay; prints "cpu bytes"
    # CPU from the replay's start to 4 s after its end; bytes of the segments cut meanwhile.
    local key=$1 screen=$2 folder=$3 timer pid start stop
    shift 3
    echo "($screen: $key)" >&2
    fresh_screen
    rm -f "$work/go" && mkfifo "$work/go"
    DISPLAY=:$display_number "$work/flipbook" 1920 1080 30 "$grabs/$screen.bgr0" once <"$work/go" \
        >"$work/replay.out" &
    pids+=($!)
    exec 8>"$work/go"
    until grep -q ready "$work/replay.out"; do sleep 0.1; done
    mkdir -p "$folder"
    DISPLAY=:$display_number /usr/bin/time --quiet -f "%U %S" -o "$work/$key.time" "$@" >"$work/$key.log" 2>&1 &
    timer=$!
    until [ "$(segments "$folder")" -ge 1 ]; do
        kill -0 "$timer" 2>/dev/null || { echo "($key ended before its first segment:)" >&2; tail -n 5 "$work/$key.log" >&2; exit 1; }
        sleep 0.1
    done
    pid=$(pgrep -P "$timer")
    segment_files "$folder" >"$work/$key.before"
    start=$(cpu_seconds "$pid")
    echo go >&8
    until grep -q done "$work/replay.out"; do sleep 0.1; done
    sleep 4  # the still screen after the replay, a span of the same length for every run
    stop=$(cpu_seconds "$pid")
    local count
    count=$(segments "$folder")
    until [ "$(segments "$folder")" -gt "$count" ]; do sleep 0.1; done  # the last 4 s in a segment
    segment_files "$folder" >"$work/$key.after"
    kill -INT "$pid"
    # Stopped by SIGINT, ffmpeg says so with status 255; anything else is a failure.
    wait "$timer" || [ $? -eq 255 ] || { echo "($key failed; the end of its log:)" >&2; tail -n 5 "$work/$key.log" >&2; }
    exec 8>&-
    kill "${pids[@]}" 2>/dev/null || true  # this screen, made in this subshell, goes with it
    wait 2>/dev/null || true
    echo "$(echo "$stop - $start" | bc) $(comm -13 "$work/$key.before" "$work/$key.after" | xargs stat -c %s |
        awk '{ s += $1 } END { print s }')"
}

onair() {  # key screen options...: onair publishing the replay, recorded; prints "cpu bytes media"
    local key=$1 screen=$2 measured
    shift 2
    measured=$(run "$key" "$screen" "$work/$key" "$ONAIR_BINARY" publish --channel bench --host 127.0.0.1 \
        --port "$(free_port)" --record "$work/$key" --record-mp4 --source screen --no-cursor --audio none \
        --size $size "$@")
    echo "$measured $(echo "$work/$key"/bench/*/recording.mp4)"
}

peer() {  # key screen: ffmpeg grabbing the replay with x264; prints "cpu bytes media"
    local key=$1 screen=$2 measured
    measured=$(run "$key" "$screen" "$work/$key" ffmpeg -hide_banner -nostdin -f x11grab -framerate 30 -draw_mouse 0 \
        -video_size $size -i ":$display_number" "${x264[@]}" -f hls -hls_time 2 -hls_list_size 0 \
        -hls_segment_type fmp4 "$work/$key/index.m3u8")
    # The whole run as one file: the init segment, then the segments in order.
    cat "$work/$key/init.mp4" $(grep -E '^index[0-9]+\.m4s$' "$work/$key/index.m3u8" | sed "s|^|$work/$key/|") \
        >"$work/$key/run.mp4"
    echo "$measured $work/$key/run.mp4"
}

screen_case() {  # screen label
    local screen=$1 key label cpu bytes media mean worst firsts peer_cpu peer_bytes
    grab "$screen"
    declare -A results
    results[ffmpeg]=$(peer "$screen-ffmpeg" "$screen")
    results[h264]=$(onair "$screen-h264" "$screen" --codec h264 --video-bitrate "$h264_rate")
    results[constant]=$(onair "$screen-constant" "$screen" --codec h264 --video-bitrate "$h264_rate" \
        --frame-rate constant)
    results[av1]=$(onair "$screen-av1" "$screen" --codec av1 --video-bitrate "$av1_rate")
    read -r peer_cpu peer_bytes _ <<<"${results[ffmpeg]}"
    echo "$screen: $2"
    for key in h264 constant av1 ffmpeg; do
        read -r cpu bytes media <<<"${results[$key]}"
        echo "($screen: comparing $key with the grab)" >&2
        read -r mean worst firsts < <(/usr/bin/python3 scripts/bench/legibility.py "$media" "$grabs/$screen.bgr0" \
            1920 1080)
        label=$(case $key in h264) echo "onair h264 $h264_rate" ;; constant) echo "onair h264 $h264_rate constant" ;;
            av1) echo "onair av1 $av1_rate" ;; ffmpeg) echo "ffmpeg x11grab x264 $h264_rate" ;; esac)
        printf "  %-26s %6.2f %6.2fx %7.2f %6.2fx %8s %8s %8s  %s\n" "$label" "$cpu" \
            "$(echo "$cpu / $peer_cpu" | bc -l)" "$(echo "$bytes / 1000000" | bc -l)" \
            "$(echo "$bytes / $peer_bytes" | bc -l)" "$mean" "$worst" \
            "$(tr , '\n' <<<"$firsts" | sort -n | head -1)" "$firsts"
    done
    rm -f "$grabs/$screen.bgr0"
}

printf "%s s a screen, 1920x1080 at 30 fps, video only, fMP4 HLS in 2 s segments\n" "$seconds"
printf "  %-26s %6s %7s %7s %7s %8s %8s %8s  %s\n" "" "CPU s" "/ffmpeg" "MB" "/ffmpeg" "mean" "worst" \
    "1st min" "first frame of each segment"
for screen in editor typing scrolling slides terminal video; do
    [ "$only" = "  " ] || [[ $only == *" $screen "* ]] || continue
    case $screen in
    editor) screen_case editor "an editor full of source code, still" ;;
    typing) screen_case typing "typing 5 characters a second, still for the last 6 s" ;;
    scrolling) screen_case scrolling "a long file scrolled a page a second, still for the last 6 s" ;;
    slides) screen_case slides "large text and a diagram, a new slide every 5 s" ;;
    terminal) screen_case terminal "a terminal printing 10 lines a second, still for the last 6 s" ;;
    video) screen_case video "a 320x240 video in a corner of the still editor" ;;
    esac
done
echo "(SSIM Y of what a viewer saw, 30 pictures a second, against the lossless grab)"
