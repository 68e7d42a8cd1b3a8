#!/usr/bin/env bash
# Publishes the same live stream with onair and with the ffmpeg CLI, one after the other, and
# prints CPU seconds and peak memory of each with the ratios.
#
#   scripts/bench.sh [seconds]      (default 30)
#
# Both encode 1280x720 at 30 fps, H.264 libx264 veryfast/zerolatency capped at 2500k with a
# keyframe every 60 frames and no scene-cut keyframes, AAC-LC 128k 48 kHz stereo, fMP4 HLS with
# 2-second segments and 6 in the playlist, paced in real time. x264's cost depends on the
# picture, so ffmpeg runs twice: on its busy testsrc2, and on a picture built like onair's test
# pattern (scripts/bench/pattern.lavfi), which is the like-for-like comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source scripts/bench/common.sh

port=$(free_port)
onair=$(measure onair .build/release/onair publish --channel bench --duration "${seconds}s" \
    --host 127.0.0.1 --port "$port" --hls-dir "$work/onair")
# The same with the sample logo stamped on every frame: what the watermark costs.
stamped=$(measure stamped .build/release/onair publish --channel bench --duration "${seconds}s" \
    --host 127.0.0.1 --port "$port" --hls-dir "$work/stamped" --watermark web/logo.png)

ffmpeg_publish() {  # name, input arguments...: the ffmpeg CLI with onair's settings
    local name=$1
    shift
    mkdir -p "$work/$name"
    measure "$name" ffmpeg -hide_banner -nostdin -re "$@" -t "$seconds" \
        -c:v libx264 -preset veryfast -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p -g 60 -keyint_min 60 -sc_threshold 0 \
        -b:v 2500k -maxrate 2500k -bufsize 2500k \
        -c:a aac -b:a 128k -ar 48000 -ac 2 \
        -f hls -hls_time 2 -hls_list_size 6 -hls_segment_type fmp4 -hls_flags delete_segments \
        "$work/$name/index.m3u8"
}

# The issue's peer: ffmpeg's own busy test picture.
ffmpeg=$(ffmpeg_publish ffmpeg -f lavfi -i "testsrc2=size=1280x720:rate=30" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000" -map 0:v -map 1:a)
# Like for like: a picture built as onair's is (bars, a moving box, a running clock, a counter).
alike=$(ffmpeg_publish alike -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -filter_complex_script scripts/bench/pattern.lavfi -map "[v]" -map 0:a)

rate() {  # folder: average output bitrate of the segments still on disk, in Mb/s
    python3 - "$1" <<'PY'
import re, sys, pathlib
folder = pathlib.Path(sys.argv[1])
playlist = next(folder.rglob("*.m3u8") if not (folder / "live").exists() else folder.rglob("media.m3u8"))
text = playlist.read_text()
names = re.findall(r"^(?!#)(\S+)$", text, re.M)
durations = [float(d) for d in re.findall(r"#EXTINF:([\d.]+)", text)]
size = sum((playlist.parent / n).stat().st_size for n in names)
print(f"{size * 8 / sum(durations) / 1e6:.2f}")
PY
}

row() {  # label, measurement, folder
    local _ cpu rss
    read -r _ cpu rss <<<"$2"
    printf "%-22s %12.2f %14.1f %12s %10.2fx %8.2fx\n" "$1" "$cpu" "$(echo "$rss / 1024" | bc -l)" "$(rate "$3")" \
        "$(echo "$onair_cpu / $cpu" | bc -l)" "$(echo "$onair_rss / $rss" | bc -l)"
}

read -r _ onair_cpu onair_rss <<<"$onair"
printf "%s s of 1280x720@30, H.264 veryfast/zerolatency 2500k cap + AAC 128k, fMP4 HLS 2 s segments\n" "$seconds"
printf "%-22s %12s %14s %12s %11s %9s\n" "" "CPU seconds" "peak RSS MiB" "output Mb/s" "onair CPU" "onair RSS"
row "onair (test pattern)" "$onair" "$work/onair"
row "onair + watermark" "$stamped" "$work/stamped"
row "ffmpeg testsrc2" "$ffmpeg" "$work/ffmpeg"
row "ffmpeg alike picture" "$alike" "$work/alike"
echo "(ratios: onair / peer; below 1 means onair uses less)"
read -r _ stamped_cpu _ <<<"$stamped"
blend=$(grep -o "watermark: .* s in all" "$work/stamped.log" | grep -o "[0-9.]* s in all" | cut -d" " -f1)
printf "watermark blend: %s s of %.2f s CPU = %.2f%% of the pipeline (%s)\n" "$blend" "$stamped_cpu" \
    "$(echo "100 * $blend / $stamped_cpu" | bc -l)" "$(grep -o "watermark: .*" "$work/stamped.log")"

# Part 2: sharing a screen. Xvfb at 1280x720 with an animated picture (ffplay showing testsrc2)
# and then a still one; sound from a PulseAudio null sink playing a tone, captured through ALSA.
# onair and `ffmpeg -f x11grab … -f alsa …` with identical encoder settings, one after the other.
display_number=90
Xvfb :$display_number -screen 0 1280x720x24 -nolisten tcp -noreset >/dev/null 2>&1 &
xvfb=$!
export PULSE_RUNTIME_PATH="$work/pulse" XDG_RUNTIME_DIR="$work/pulse"
mkdir -p "$PULSE_RUNTIME_PATH"
pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit --load="module-null-sink sink_name=desk" \
    --load=module-native-protocol-unix >/dev/null 2>&1 &
pulse=$!
trap 'kill $xvfb $pulse 2>/dev/null; rm -rf "$work"' EXIT
until DISPLAY=:$display_number xdpyinfo >/dev/null 2>&1 && pactl info >/dev/null 2>&1; do sleep 0.2; done
ffmpeg -v error -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=$((4 * seconds + 30))" "$work/tone.wav"
paplay --device=desk "$work/tone.wav" &
player=$!

screen_runs() {  # label: onair, then ffmpeg, on what the display shows now
    local label=$1 ours theirs
    ours=$(DISPLAY=:$display_number measure "onair-$label" .build/release/onair publish --channel bench \
        --duration "${seconds}s" --host 127.0.0.1 --port "$port" --hls-dir "$work/onair-$label" --source screen \
        --no-cursor --audio pulse:desk.monitor)
    mkdir -p "$work/ffmpeg-$label"
    # -thread_queue_size: without it FFmpeg 5.1 reads both live inputs in turn and the screen falls
    # behind: in 10 s it duplicated 177 of 290 frames, so it encoded a third of the pictures onair does.
    theirs=$(measure "ffmpeg-$label" ffmpeg -hide_banner -nostdin -thread_queue_size 512 -f x11grab -framerate 30 \
        -draw_mouse 0 -i ":$display_number" -thread_queue_size 512 -f alsa -i pulse:desk.monitor -t "$seconds" \
        -c:v libx264 -preset veryfast -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p -g 60 -keyint_min 60 -sc_threshold 0 \
        -b:v 2500k -maxrate 2500k -bufsize 2500k -c:a aac -b:a 128k -ar 48000 -ac 2 \
        -f hls -hls_time 2 -hls_list_size 6 -hls_segment_type fmp4 -hls_flags delete_segments \
        "$work/ffmpeg-$label/index.m3u8")
    onair_cpu=$(echo "$ours" | cut -d" " -f2)
    onair_rss=$(echo "$ours" | cut -d" " -f3)
    row "onair, $label screen" "$ours" "$work/onair-$label"
    row "ffmpeg x11grab, $label" "$theirs" "$work/ffmpeg-$label"
}

echo
printf "%s s of a 1280x720 Xvfb screen at 30 fps + ALSA sound (pulse), same encoder settings as above\n" "$seconds"
printf "%-22s %12s %14s %12s %11s %9s\n" "" "CPU seconds" "peak RSS MiB" "output Mb/s" "onair CPU" "onair RSS"
DISPLAY=:$display_number ffplay -v error -an -noborder -left 0 -top 0 -f lavfi "testsrc2=size=1280x720:rate=30" &
animation=$!
until DISPLAY=:$display_number xwininfo -root -tree | grep -q testsrc2; do sleep 0.2; done
screen_runs animated
kill $animation
wait $animation 2>/dev/null || true
screen_runs still
kill $player 2>/dev/null || true
echo "(ratios: onair / the ffmpeg run under it; goals: animated <= 0.9, still <= 0.5)"
