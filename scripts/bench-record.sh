#!/usr/bin/env bash
# Recording (`--record`), measured side by side in one run: onair publishing the test pattern
# without recording, with --record, and with --record --record-mp4 (the MP4 made at the stop is
# in its figures), each twice in turn (A B C A B C) on this noisy machine; and the ffmpeg CLI
# keeping the same stream as an HLS EVENT recording (`-hls_playlist_type event`, every segment).
#
#   scripts/bench-record.sh [seconds]      (default 30)
#
# Prints CPU seconds (user + system) and peak RSS of each (the mean of its two runs), what
# recording costs onair as a share of its pipeline, and how soon each recorded segment is on
# disk: from its cut (PROGRAM-DATE-TIME plus duration) to the file's modification time.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source scripts/bench/common.sh

onair_publish() {  # name, extra arguments...: measured whole, and each kind of thread (threads.py)
    local name=$1 sampler
    shift
    python3 scripts/bench/threads.py ".build/release/onair publish --channel $name " "$work/$name.threads" &
    sampler=$!
    measure "$name" .build/release/onair publish --channel "$name" --duration "${seconds}s" \
        --host 127.0.0.1 --port "$(free_port)" "$@"
    wait "$sampler"
}

declare -A runs
for round in 1 2; do
    runs[alone]+="$(onair_publish "alone$round")"$'\n'
    runs[record]+="$(onair_publish "record$round" --record "$work/rec")"$'\n'
    runs[mp4]+="$(onair_publish "mp4$round" --record "$work/rec" --record-mp4)"$'\n'
done
mkdir -p "$work/ffmpeg"
ffmpeg=$(measure ffmpeg ffmpeg -hide_banner -nostdin -re -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -filter_complex_script scripts/bench/pattern.lavfi -map "[v]" -map 0:a -t "$seconds" \
    -c:v libx264 -preset veryfast -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p -g 60 -keyint_min 60 -sc_threshold 0 \
    -b:v 2500k -maxrate 2500k -bufsize 2500k -c:a aac -b:a 128k -ar 48000 -ac 2 \
    -f hls -hls_time 2 -hls_list_size 0 -hls_playlist_type event -hls_segment_type fmp4 \
    -hls_segment_filename "$work/ffmpeg/seg%d.m4s" "$work/ffmpeg/media.m3u8")

mean() {  # lines of "name cpu rss" -> "mean cpu rss"
    awk 'NF == 3 { cpu += $2; rss += $3; n++ } END { printf "mean %.3f %.0f\n", cpu / n, rss / n }' <<<"$1"
}
alone=$(mean "${runs[alone]}")
record=$(mean "${runs[record]}")
mp4=$(mean "${runs[mp4]}")

row() {  # label, measurement, reference measurement
    local _ cpu rss ref_cpu ref_rss
    read -r _ cpu rss <<<"$2"
    read -r _ ref_cpu ref_rss <<<"$3"
    printf "%-36s %12.2f %14.1f %10.3fx %8.2fx\n" "$1" "$cpu" "$(echo "$rss / 1024" | bc -l)" \
        "$(echo "$cpu / $ref_cpu" | bc -l)" "$(echo "$rss / $ref_rss" | bc -l)"
}

printf "%s s of 1280x720@30, H.264 veryfast/zerolatency 2500k cap + AAC 128k, fMP4 HLS 2 s segments (onair: mean of 2 runs)\n" "$seconds"
printf "%-36s %12s %14s %11s %9s\n" "" "CPU seconds" "peak RSS MiB" "CPU ratio" "RSS ratio"
row "onair, no recording" "$alone" "$alone"
row "onair --record" "$record" "$alone"
row "onair --record --record-mp4" "$mp4" "$alone"
row "ffmpeg -hls_playlist_type event" "$ffmpeg" "$ffmpeg"
row "onair --record / ffmpeg" "$record" "$ffmpeg"
read -r _ alone_cpu _ <<<"$alone"
read -r _ record_cpu _ <<<"$record"
read -r _ mp4_cpu _ <<<"$mp4"
printf "recording costs %.3f s of %.2f s CPU = %.1f%% of the pipeline (goal <= 3%%); with the MP4 %.1f%%\n" \
    "$(echo "$record_cpu - $alone_cpu" | bc -l)" "$alone_cpu" \
    "$(echo "($record_cpu - $alone_cpu) * 100 / $alone_cpu" | bc -l)" \
    "$(echo "($mp4_cpu - $alone_cpu) * 100 / $alone_cpu" | bc -l)"
# The recording's own threads (RecordingSink), against the whole process: what it costs, without
# the noise of comparing separate runs.
for round in 1 2; do
    sink=$(awk '$1 == "RecordingSink" { print $2 }' "$work/record$round.threads")
    total=$(awk -v name="record$round" '$1 == name { print $2 }' <<<"${runs[record]}")
    printf "record run %d: the RecordingSink thread was on a CPU %.4f s of the process's %.2f s = %.3f%%\n" \
        "$round" "$sink" "$total" "$(echo "$sink * 100 / $total" | bc -l)"
done
grep -h "saved " "$work"/mp4*.log | sed 's/^.*notice /MP4: /'

# How soon a recorded segment is on disk, after it was cut.
python3 - "$work/rec" <<'PY'
import datetime, pathlib, re, statistics, sys
delays = []
for playlist in pathlib.Path(sys.argv[1]).glob("*/*/media.m3u8"):
    text = playlist.read_text()
    entries = re.findall(r"#EXT-X-PROGRAM-DATE-TIME:(\S+)\n#EXTINF:([\d.]+),\n(seg\d+\.m4s)", text)
    for pdt, duration, name in entries:
        cut = datetime.datetime.strptime(pdt, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
            tzinfo=datetime.timezone.utc).timestamp() + float(duration)
        delays.append((playlist.parent / name).stat().st_mtime - cut)
delays.sort()
p95 = delays[min(len(delays) - 1, int(round(0.95 * (len(delays) - 1))))]
print(f"recorded segments on disk after their cut: {len(delays)} segments, "
      f"p50 {statistics.median(delays) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms")
PY
