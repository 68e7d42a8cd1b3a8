#!/usr/bin/env bash
# What capturing one application's sound costs through PipeWire (--audio app:NAME), against
# capturing a device through ALSA as before (--audio pulse:desk.monitor: PulseAudio's monitor of
# a null sink, read through ALSA's pulse plugin), side by side in one run, with the sound
# servers' own recorders (pw-record on the application's stream, parec on the monitor) as peers:
#
#   scripts/bench-app-sound.sh [seconds] [rounds]      (default 30 s, 3 rounds)
#
# Each server has one null sink and one player playing a 440 Hz tone into it. onair publishes the
# test pattern at 160x90, 5 fps and 100 kb/s so the picture costs little next to the sound; a run
# without sound (--audio none) is the baseline, and a capture's cost is its run less the baseline
# (what capturing, converting and AAC-encoding the sound cost), plus the sound server's CPU while
# it served the capture. Each is run `rounds` times in turn; printed are the medians of CPU seconds of onair,
# of the sound server while it served the capture, and of the peer recorder.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
rounds=${2:-3}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh
ffmpeg -v error -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$((seconds * 8 + 60))" -ac 2 \
    "$work/tone.wav"

# PipeWire on a private session bus, and PulseAudio, each in a runtime folder of its own.
mkdir -m 700 "$work/pw" "$work/pulse"
pw_env=(env XDG_RUNTIME_DIR="$work/pw" DBUS_SESSION_BUS_ADDRESS="unix:path=$work/pw/bus")
pulse_env=(env XDG_RUNTIME_DIR="$work/pulse" PULSE_RUNTIME_PATH="$work/pulse" HOME="$work/pulse")
"${pw_env[@]}" dbus-daemon --session --address="unix:path=$work/pw/bus" --nofork --nopidfile >/dev/null 2>&1 &
pids+=($!)
until [ -S "$work/pw/bus" ]; do sleep 0.1; done
"${pw_env[@]}" pipewire >/dev/null 2>&1 &
pipewire=$!
pids+=($pipewire)
until [ -S "$work/pw/pipewire-0" ]; do sleep 0.1; done
"${pw_env[@]}" wireplumber >/dev/null 2>&1 &
pids+=($!)
"${pw_env[@]}" pw-cli create-node adapter '{ factory.name=support.null-audio-sink node.name=desk
    media.class=Audio/Sink object.linger=true audio.position=[FL FR] }' >/dev/null
"${pw_env[@]}" pw-play --target desk -P '{ application.name = "Alpha" }' "$work/tone.wav" 2>/dev/null &
pids+=($!)
"${pulse_env[@]}" pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit \
    --load="module-null-sink sink_name=desk" --load=module-native-protocol-unix >/dev/null 2>&1 &
pulse=$!
pids+=($pulse)
until "${pulse_env[@]}" pactl list short sinks >/dev/null 2>&1; do sleep 0.1; done
"${pulse_env[@]}" paplay --device=desk "$work/tone.wav" &
pids+=($!)
until "${pw_env[@]}" pw-cli ls Node | grep -q 'application.name = "Alpha"'; do sleep 0.1; done
alpha=$("${pw_env[@]}" pw-cli ls Node | awk '/object.serial/ { serial = $3 } /application.name = "Alpha"/ { print serial }' | tr -d '"')

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }  # a process's CPU so far, in clock ticks
hz=$(getconf CLK_TCK)
server_cpu() {  # server pid, name, command...: measures the command and the server's CPU meanwhile
    local server=$1 before after
    shift
    before=$(ticks "$server")
    local line
    line=$(measure "$@")
    after=$(ticks "$server")
    echo "$line $(echo "scale=2; ($after - $before) / $hz" | bc)"
}
publish=(.build/release/onair publish --channel bench --source test --size 160x90 --fps 5 --video-bitrate 100k
    --duration "${seconds}s" --host 127.0.0.1 --log-level warning)

echo "bench-app-sound: ${seconds} s each; CPU seconds (onair or the recorder | its sound server meanwhile)" >&2
declare -A cpu server
run() {  # label, server pid, command...: appends the round's CPU of the command and of the server
    local label=$1 line
    shift
    line=$(server_cpu "$@")
    read -r _ c _ sv <<<"$line"
    cpu[$label]+=" $c"
    server[$label]+=" $sv"
}
for round in $(seq "$rounds"); do
    echo "round $round of $rounds" >&2
    run baseline "$pipewire" baseline "${pw_env[@]}" "${publish[@]}" --port "$(free_port)" \
        --hls-dir "$work/hls-none-$round" --audio none
    run app "$pipewire" app "${pw_env[@]}" "${publish[@]}" --port "$(free_port)" \
        --hls-dir "$work/hls-app-$round" --audio app:Alpha
    run alsa "$pulse" alsa "${pulse_env[@]}" "${publish[@]}" --port "$(free_port)" \
        --hls-dir "$work/hls-alsa-$round" --audio pulse:desk.monitor
    # The recorders are stopped by timeout (status 124, said with their logs' ends).
    run pwrec "$pipewire" pw-record "${pw_env[@]}" timeout "$seconds" \
        pw-record --target "$alpha" --rate 48000 --channels 2 "$work/pw-record.wav"
    run parec "$pulse" parec "${pulse_env[@]}" timeout "$seconds" \
        parec --device=desk.monitor --rate=48000 --channels=2 --file-format=wav "$work/parec.wav"
done
m() { median ${cpu[$1]}; }
s() { median ${server[$1]}; }
base=$(m baseline) app=$(m app) alsa=$(m alsa) pwrec=$(m pwrec) parec=$(m parec)
app_server=$(s app) alsa_server=$(s alsa) pwrec_server=$(s pwrec) parec_server=$(s parec)
app_cost=$(echo "$app - $base" | bc)
alsa_cost=$(echo "$alsa - $base" | bc)
printf '%-44s %8s %10s\n' "" "onair" "server"
printf '%-44s %8.2f %10s\n' "baseline: --audio none (no sound track)" "$base" "-"
printf '%-44s %8.2f %10.2f\n' "--audio app:Alpha (PipeWire)" "$app" "$app_server"
printf '%-44s %8.2f %10.2f\n' "--audio pulse:desk.monitor (ALSA, PulseAudio)" "$alsa" "$alsa_server"
printf '%-44s %8.2f %10.2f\n' "peer: pw-record on Alpha's stream" "$pwrec" "$pwrec_server"
printf '%-44s %8.2f %10.2f\n' "peer: parec on the monitor" "$parec" "$parec_server"
app_total=$(echo "$app_cost + $app_server" | bc)
alsa_total=$(echo "$alsa_cost + $alsa_server" | bc)
echo "sound in onair (run less baseline): app $app_cost s, ALSA $alsa_cost s"
echo "with the sound server: app $app_total s, ALSA $alsa_total s; app/ALSA $(echo "scale=2; $app_total / $alsa_total" | bc)"
