#!/usr/bin/env bash
# Measures how audio timestamps hold against the clock over a long broadcast: a PulseAudio null
# sink plays a 1 kHz beep at the start of every second (paced by the sound server's clock),
# onair captures it through ALSA (44.1 kHz, resampled to 48 kHz with drift compensation) next
# to the test pattern, and the published audio is searched for the beeps. Their onsets should
# be exactly one second apart in media time, as video frames are 1/fps apart: the fitted period's
# error, times the length, is how far sound drifts from the picture. It reports figures; it does
# not pass or fail.
#
#   scripts/drift.sh [minutes]      (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-60}
seconds=$((minutes * 60))
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
export PULSE_RUNTIME_PATH=$work XDG_RUNTIME_DIR=$work HOME=$work
cleanup() {
    kill "${player:-}" "${pulse:-}" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit --load="module-null-sink sink_name=desk" \
    --load=module-native-protocol-unix >/dev/null 2>&1 &
pulse=$!
for _ in $(seq 100); do pactl list short sinks >/dev/null 2>&1 && break; sleep 0.1; done
# Beeps: 100 ms of 1 kHz at the start of each second, silence between, a little longer than the run.
ffmpeg -v error -f lavfi -i "sine=frequency=1000:sample_rate=44100:duration=$((seconds + 30))" \
    -af "volume='if(lt(mod(t,1),0.1),1,0)':eval=frame" -ac 2 "$work/beeps.wav"
paplay --device=desk "$work/beeps.wav" &
player=$!
echo "drift: publishing $minutes min of captured beeps..." >&2
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
.build/release/onair publish --channel drift --source test --size 320x180 --video-bitrate 150k \
    --audio pulse:desk.monitor --segment-duration 4 --playlist-size $((seconds / 4 + 10)) \
    --duration "${seconds}s" --host 127.0.0.1 --port "$port" --hls-dir "$work/hls" --log-level warning
media=$work/hls/live/drift
# Every segment in order, init first; the beeps' onsets are where silence ends in the 1 kHz band.
{ cat "$media/init.mp4"; grep -v '^#' "$media/media.m3u8" | while read -r s; do cat "$media/$s"; done; } |
    ffmpeg -nostats -v info -i - -map 0:a -af "bandpass=f=1000:width_type=h:w=200,silencedetect=n=-30dB:d=0.5" \
        -f null - 2>&1 | grep -o "silence_end: [0-9.]*" | awk '{print $2}' >"$work/onsets"
cp "$work/onsets" "${DRIFT_ONSETS:-/tmp/onair-drift-onsets.txt}"
python3 - "$work/onsets" "$minutes" <<'PY'
import sys
onsets = [float(line) for line in open(sys.argv[1]) if line.strip()]
minutes = float(sys.argv[2])
# The end of the stream, cut in a silence, reads as one more onset: not a beep.
if len(onsets) > 2 and onsets[-1] - onsets[-2] < 0.8:
    onsets.pop()
n = len(onsets)
if n < 10:
    sys.exit(f"drift: only {n} beeps found")
xs = list(range(n))
mx, my = sum(xs) / n, sum(onsets) / n
slope = sum((x - mx) * (y - my) for x, y in zip(xs, onsets)) / sum((x - mx) ** 2 for x in xs)
residuals = [y - (my + slope * (x - mx)) for x, y in zip(xs, onsets)]
first, last = onsets[: n // 10], onsets[-(n // 10):]
print(f"beeps found: {n} over {onsets[-1] - onsets[0]:.1f} s of published audio")
print(f"period: {slope:.7f} s ({(slope - 1) * 1e6:+.1f} ppm)")
print(f"drift over {minutes:.0f} min: {(slope - 1) * minutes * 60 * 1000:+.1f} ms")
print(f"largest step from the fit: {max(abs(r) for r in residuals) * 1000:.1f} ms")
print(f"period over the first tenth {(first[-1] - first[0]) / (len(first) - 1):.6f} s, the last tenth {(last[-1] - last[0]) / (len(last) - 1):.6f} s")
# The beeps are one second apart on the sound server's clock, which is the system clock the video
# frames are stamped from: how far each lands from its place, against the first, is how far sound
# moved against the picture.
offsets = [(onset - onsets[0] - round(onset - onsets[0])) * 1000 for onset in onsets]
settled = offsets[120:] or offsets
print(f"sound against the picture, from the first beep: {min(offsets):+.1f} to {max(offsets):+.1f} ms "
      f"(range {max(offsets) - min(offsets):.1f} ms); after the first two minutes {min(settled):+.1f} to "
      f"{max(settled):+.1f} ms (range {max(settled) - min(settled):.1f} ms)")
PY
