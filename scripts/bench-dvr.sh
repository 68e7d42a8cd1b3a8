#!/usr/bin/env bash
# The rewind window's memory (`--dvr`), measured side by side in one run: onair publishing the
# test pattern with a 1-minute and with a 2-hour window at once, and the ffmpeg CLI keeping the
# same stream's last 2 hours as a live HLS playlist (`-hls_list_size 3600`, old segments deleted),
# all three for the same time.
#
#   scripts/bench-dvr.sh [seconds]      (default 300)
#
# Prints each one's resident memory every minute and at its peak, the media its window holds on
# disk at the end, and the ratio of the 2-hour window's peak to the 1-minute one's. Past the first
# minute, a window held in memory would grow by what it holds (about 3 MB a minute at this rate);
# one on disk does not.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
source scripts/bench/common.sh

onair_dvr() {  # name, window
    measure "$1" .build/release/onair publish --channel "$1" --duration "${seconds}s" --host 127.0.0.1 \
        --port "$(free_port)" --dvr "$2" --dvr-dir "$work/dvr-$1" >"$work/$1.result"
}
onair_dvr minute 1m &
onair_dvr hours 2h &
mkdir -p "$work/ffmpeg"
measure ffmpeg ffmpeg -hide_banner -nostdin -re -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -filter_complex_script scripts/bench/pattern.lavfi -map "[v]" -map 0:a -t "$seconds" \
    -c:v libx264 -preset veryfast -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p -g 60 -keyint_min 60 -sc_threshold 0 \
    -b:v 2500k -maxrate 2500k -bufsize 2500k -c:a aac -b:a 128k -ar 48000 -ac 2 \
    -f hls -hls_time 2 -hls_list_size 3600 -hls_flags delete_segments -hls_segment_type fmp4 \
    -hls_segment_filename "$work/ffmpeg/seg%d.m4s" "$work/ffmpeg/media.m3u8" >"$work/ffmpeg.result" &

# Resident memory of each, once a minute, while they run.
rss() {  # command line pattern (the process itself, not GNU time's) -> MiB, or -
    local pid
    pid=$(pgrep -f -- "^[^ ]*$1" | head -1) || true
    [[ -n $pid ]] && awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status" 2>/dev/null || echo -
}
disk() {  # folder -> MB in it
    du -sb "$1" 2>/dev/null | awk '{ printf "%.1f", $1 / 1e6 }' || echo -
}
echo "resident memory (MiB) and the window on disk (MB), once a minute"
printf "%7s %12s %12s %12s %12s %12s %12s\n" "minute" "1m: RSS" "1m: disk" "2h: RSS" "2h: disk" "ffmpeg: RSS" "ffmpeg: disk"
first_minute='' first_hours=''
for ((minute = 1; minute * 60 < seconds; minute++)); do
    sleep 60
    minute_rss=$(rss 'onair publish --channel minute ')
    hours_rss=$(rss 'onair publish --channel hours ')
    first_minute=${first_minute:-$minute_rss}
    first_hours=${first_hours:-$hours_rss}
    printf "%7d %12s %12s %12s %12s %12s %12s\n" "$minute" "$minute_rss" "$(disk "$work/dvr-minute")" \
        "$hours_rss" "$(disk "$work/dvr-hours")" "$(rss "ffmpeg .*$work/ffmpeg/media")" "$(disk "$work/ffmpeg")"
done
echo "growth from minute 1 to minute $((minute - 1)): --dvr 1m $(echo "$minute_rss - $first_minute" | bc) MiB, --dvr 2h $(echo "$hours_rss - $first_hours" | bc) MiB"
wait
read -r _ minute_cpu minute_peak <"$work/minute.result"
read -r _ hours_cpu hours_peak <"$work/hours.result"
read -r _ ffmpeg_cpu ffmpeg_peak <"$work/ffmpeg.result"
echo
printf "%s s of 1280x720@30, H.264 veryfast/zerolatency 2500k cap + AAC 128k, fMP4 HLS 2 s segments\n" "$seconds"
printf "%-28s %14s %12s\n" "" "peak RSS MiB" "CPU seconds"
printf "%-28s %14.1f %12.2f\n" "onair --dvr 1m" "$(echo "$minute_peak / 1024" | bc -l)" "$minute_cpu"
printf "%-28s %14.1f %12.2f\n" "onair --dvr 2h" "$(echo "$hours_peak / 1024" | bc -l)" "$hours_cpu"
printf "%-28s %14.1f %12.2f\n" "ffmpeg -hls_list_size 3600" "$(echo "$ffmpeg_peak / 1024" | bc -l)" "$ffmpeg_cpu"
printf "2-hour window / 1-minute window, peak RSS: %.3fx (goal: no more)\n" "$(echo "$hours_peak / $minute_peak" | bc -l)"
printf "onair --dvr 2h / ffmpeg, peak RSS: %.2fx\n" "$(echo "$hours_peak / $ffmpeg_peak" | bc -l)"
grep -h "viewers can rewind" "$work/minute.log" "$work/hours.log" | sed 's/^.*notice /onair: /' || true
