#!/usr/bin/env bash
# Measures where sound lands against the picture over a long broadcast. A PulseAudio null sink
# plays a 1 kHz beep at the start of every second; onair captures it through ALSA (44.1 kHz,
# resampled to 48 kHz) next to the test pattern, whose frames are stamped with the broadcast
# clock. A reference listener records the same sink with parec and notes the wall-clock time each
# block of samples arrives, which dates every beep to within a few milliseconds. The published
# beeps are dated through EXT-X-PROGRAM-DATE-TIME (media time 0 is the broadcast clock's anchor),
# so each beep's published time minus the time it was heard is how far sound sits from the
# picture: positive is sound late. Both recordings go through the same detector, so its own
# delay cancels. It reports figures; it does not pass or fail.
#
# With --pipewire the same runs on PipeWire: a null sink on a private session bus, the beeps played
# by an application called Beeper, onair taking that application's sound (--audio app:Beeper),
# and the reference recorded with pw-record on the sink's monitor.
#
#   scripts/drift.sh [minutes] [--pipewire]     (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-60}
sound=${2:-}
seconds=$((minutes * 60))
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
export PULSE_RUNTIME_PATH=$work XDG_RUNTIME_DIR=$work HOME=$work
cleanup() {
    kill "${listener:-}" "${player:-}" "${pulse:-}" "${wireplumber:-}" "${bus:-}" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
if [ "$sound" = --pipewire ]; then
    export DBUS_SESSION_BUS_ADDRESS=unix:path=$work/bus
    dbus-daemon --session --address="$DBUS_SESSION_BUS_ADDRESS" --nofork --nopidfile >/dev/null 2>&1 &
    bus=$!
    for _ in $(seq 100); do [ -S "$work/bus" ] && break; sleep 0.1; done
    pipewire >/dev/null 2>&1 &
    pulse=$!
    for _ in $(seq 100); do [ -S "$work/pipewire-0" ] && break; sleep 0.1; done
    wireplumber >/dev/null 2>&1 &
    wireplumber=$!
    pw-cli create-node adapter '{ factory.name=support.null-audio-sink node.name=desk media.class=Audio/Sink
        object.linger=true audio.position=[FL FR] }' >/dev/null
    record=(pw-record --target desk -P '{ stream.capture.sink = true }' --latency 10ms --format s16 --channels 1
        --rate 44100 -)
    play=(pw-play --target desk -P '{ application.name = "Beeper" }')
    audio=app:Beeper
else
    pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit --load="module-null-sink sink_name=desk" \
        --load=module-native-protocol-unix >/dev/null 2>&1 &
    pulse=$!
    for _ in $(seq 100); do pactl list short sinks >/dev/null 2>&1 && break; sleep 0.1; done
    record=(parec --device=desk.monitor --latency-msec=10 --format=s16le --channels=1 --rate=44100 --raw)
    play=(paplay --device=desk)
    audio=pulse:desk.monitor
fi
# Beeps: 100 ms of 1 kHz at the start of each second, silence between, a little longer than the run.
ffmpeg -v error -f lavfi -i "sine=frequency=1000:sample_rate=44100:duration=$((seconds + 30))" \
    -af "volume='if(lt(mod(t,1),0.1),1,0)':eval=frame" -ac 2 "$work/beeps.wav"
# The reference: the sink's sound as parec delivers it, 10 ms at a time, with when each block came.
python3 - "$work/reference.raw" "$work/arrivals" "${record[@]}" <<'PY' &
import os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
parec = subprocess.Popen(sys.argv[3:], stdout=subprocess.PIPE)
samples = 0
with open(sys.argv[1], "wb") as raw, open(sys.argv[2], "w") as arrivals:
    try:
        while chunk := os.read(parec.stdout.fileno(), 1 << 16):
            now = time.time()
            raw.write(chunk)
            samples += len(chunk) // 2
            arrivals.write(f"{samples} {now:.6f}\n")
    finally:
        parec.terminate()
PY
listener=$!
"${play[@]}" "$work/beeps.wav" &
player=$!
echo "drift: publishing $minutes min of captured beeps..." >&2
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
.build/release/onair publish --channel drift --source test --size 320x180 --video-bitrate 150k \
    --audio "$audio" --segment-duration 4 --playlist-size $((seconds / 4 + 10)) \
    --duration "${seconds}s" --host 127.0.0.1 --port "$port" --hls-dir "$work/hls" --log-level warning
kill -TERM "$listener"
wait "$listener" || true
media=$work/hls/live/drift
# The beeps' onsets are where silence ends in the 1 kHz band; the same detector reads both.
onsets() {
    ffmpeg -nostats -v info "$@" -map 0:a -af "bandpass=f=1000:width_type=h:w=200,silencedetect=n=-30dB:d=0.5" \
        -f null - 2>&1 | grep -o "silence_end: [0-9.]*" | awk '{print $2}'
}
# Every segment in order, init first.
{ cat "$media/init.mp4"; grep -v '^#' "$media/media.m3u8" | while read -r s; do cat "$media/$s"; done; } |
    onsets -i - >"$work/published"
onsets -f s16le -ar 44100 -ac 1 -i "$work/reference.raw" >"$work/heard"
anchor=$(grep -m1 '^#EXT-X-PROGRAM-DATE-TIME:' "$media/media.m3u8" | cut -d: -f2-)
cp "$work/published" "${DRIFT_ONSETS:-/tmp/onair-drift-onsets.txt}"
python3 - "$work/published" "$work/heard" "$work/arrivals" "$anchor" "$minutes" <<'PY'
import bisect, sys
from datetime import datetime
published = [float(line) for line in open(sys.argv[1]) if line.strip()]
heard = [float(line) for line in open(sys.argv[2]) if line.strip()]
arrivals = [tuple(map(float, line.split())) for line in open(sys.argv[3]) if line.strip()]
# Media time 0 is the first segment's start: its PROGRAM-DATE-TIME.
anchor = datetime.fromisoformat(sys.argv[4].replace("Z", "+00:00")).timestamp()
minutes = float(sys.argv[5])
# A block arrives a little after its last sample was heard, never before: the earliest arrival
# around a sample, less the samples after it, dates it.
ends = [samples / 44100 for samples, _ in arrivals]
def heard_at(t):
    low, high = bisect.bisect_left(ends, t - 5), bisect.bisect_right(ends, t + 5)
    return min(at - end for end, (_, at) in zip(ends[low:high], arrivals[low:high])) + t
heard_wall = [heard_at(t) for t in heard]
offsets = []
for onset in published:
    wall = anchor + onset
    i = bisect.bisect_left(heard_wall, wall)
    nearest = min(heard_wall[max(0, i - 1):i + 1], key=lambda w: abs(w - wall))
    if abs(nearest - wall) < 0.5:
        offsets.append((onset, (wall - nearest) * 1000))
if len(offsets) < 10:
    sys.exit(f"drift: only {len(offsets)} beeps matched")
def span(pairs):
    values = [o for _, o in pairs]
    return f"{min(values):+.1f} to {max(values):+.1f} ms"
n = len(offsets)
xs, ys = [t for t, _ in offsets], [o for _, o in offsets]
mx, my = sum(xs) / n, sum(ys) / n
slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
print(f"beeps matched: {n} of {len(published)} published, over {xs[-1] - xs[0]:.0f} s")
print(f"sound against the picture (positive: sound late): {span(offsets)}")
print(f"  first 10 s: {span([p for p in offsets if p[0] < 10])}; from 10 s on: {span([p for p in offsets if p[0] >= 10])}")
print(f"  mean {my:+.1f} ms; trend {slope * 60:+.2f} ms a minute ({slope * minutes * 60:+.1f} ms over the run)")
PY
