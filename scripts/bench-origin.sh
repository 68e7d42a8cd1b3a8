#!/usr/bin/env bash
# Memory of `onair serve` hosting many channels at once: N ffmpeg publishers (`-c copy` of one
# pre-encoded clip, looped in real time, so they cost little CPU) push regular HLS into one origin
# on loopback. Prints the origin's resident memory idle and with every channel live and full
# (its playlist window reached), the difference per channel, and what one channel's media weighs.
# Usage: scripts/bench-origin.sh [channels, default 20] [seconds, default 30]
set -euo pipefail
cd "$(dirname "$0")/.."
channels=${1:-20}
seconds=${2:-30}
[ -x .build/release/onair ] || ONAIR_BUILD=release scripts/setup.sh >/dev/null
export ONAIR_BINARY="$PWD/.build/release/onair"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ffmpeg -v error -f lavfi -i testsrc2=size=1280x720:rate=30 -f lavfi -i sine=frequency=440:sample_rate=48000 -t 20 \
    -c:v libx264 -preset veryfast -b:v 2M -g 60 -keyint_min 60 -sc_threshold 0 -c:a aac -b:a 128k "$work/clip.mp4"
PYTHONPATH=Tests/EndToEnd python3 - "$channels" "$seconds" "$work" <<'PY'
import subprocess, sys, time
from edges import TOKEN, Origin
from harness import fetch, wait_until
from hls_rules import MediaPlaylist

count, seconds, work = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]

def rss_kib(pid):
    return next(int(line.split()[1]) for line in open(f"/proc/{pid}/status") if line.startswith("VmRSS:"))

origin = Origin()
publishers = []
try:
    time.sleep(1)
    idle = rss_kib(origin.process.pid)
    for index in range(count):
        ingest = origin.ingest(f"ch{index}")
        publishers.append(subprocess.Popen(
            ["ffmpeg", "-v", "error", "-re", "-stream_loop", "-1", "-i", f"{work}/clip.mp4", "-c", "copy",
             "-f", "hls", "-hls_time", "2", "-hls_list_size", "6", "-hls_flags", "delete_segments",
             "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
             "-hls_segment_filename", f"{ingest}seg%d.m4s", "-method", "PUT",
             "-headers", f"Authorization: Bearer {TOKEN}\r\n", f"{ingest}media.m3u8"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def full():
        texts = [fetch(f"{origin.base}/live/ch{index}/media.m3u8") for index in range(count)]
        return all(text is not None and text.status == 200 and text.text.count("#EXTINF") >= 6 for text in texts)
    wait_until(full, 120, interval=1, what="every channel's window full")
    peak, started = 0, time.monotonic()
    while time.monotonic() - started < seconds:
        peak = max(peak, rss_kib(origin.process.pid))
        time.sleep(0.5)
    newest = MediaPlaylist(fetch(f"{origin.base}/live/ch0/media.m3u8").text).segments[-1]["uri"]
    segment = len(fetch(f"{origin.base}/live/ch0/{newest}").body)
    print(f"origin RSS idle: {idle / 1024:.1f} MiB; with {count} live channels (6 x 2 s segments listed, 2 Mb/s): "
          f"peak {peak / 1024:.1f} MiB over {seconds:.0f} s")
    print(f"per channel: {(peak - idle) / 1024 / count:.2f} MiB; one segment weighs {segment / 1024 / 1024:.2f} MiB")
finally:
    for publisher in publishers:
        publisher.kill()
    origin.stop()
PY
