# What the benchmark scripts share; sourced, with $work set to their scratch folder.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

measure() {  # name, command...: runs it under GNU time, prints "name cpu_seconds peak_kib"
    local name=$1 status=0
    shift
    /usr/bin/time --quiet -f "%U %S %M" -o "$work/$name.time" "$@" >"$work/$name.log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then  # said, with the end of its log, and measured all the same
        echo "($name exited with status $status; the end of its log:)" >&2
        tail -n 5 "$work/$name.log" >&2
    fi
    read -r user system peak <"$work/$name.time"
    echo "$name $(echo "$user + $system" | bc) $peak"
}

median() {  # numbers...: their median (the mean of the middle two for an even count)
    printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

ffmpeg_duplicates() {  # name: frames ffmpeg sent again because it was still busy (its log's last dup=)
    local dup
    dup=$(tr '\r' '\n' <"$work/$1.log" | grep -o 'dup=[0-9]*' | tail -1 | cut -d= -f2)
    echo "${dup:-0}"
}

# A 1920x1080 Xvfb on :$display_number with the editor of the cadence and AV1 benchmarks; the caller
# keeps its processes in $pids.
editor_screen() {  # characters a second [seconds]: the editor, typing at that rate (for so long)
    kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    pids=()
    Xvfb :$display_number -screen 0 1920x1080x24 -nolisten tcp -noreset >/dev/null 2>&1 &
    pids+=($!)
    until DISPLAY=:$display_number xdpyinfo >/dev/null 2>&1; do sleep 0.2; done
    DISPLAY=:$display_number /usr/bin/python3 scripts/bench/editor.py 1920 1080 "$1" "${2:-inf}" \
        >"$work/editor.out" 2>&1 &
    pids+=($!)
    until grep -q ok "$work/editor.out" 2>/dev/null; do sleep 0.2; done
}

# The screens of the damage benchmarks; the caller sets $display_number and keeps its processes in $pids.
screen() {  # width height: a new Xvfb on :$display_number with the tests' still backdrop (xscene.py)
    kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    pids=()
    Xvfb :$display_number -screen 0 "${1}x${2}x24" -nolisten tcp -noreset >/dev/null 2>&1 &
    pids+=($!)
    until DISPLAY=:$display_number xdpyinfo >/dev/null 2>&1; do sleep 0.2; done
    mkdir -p "$work/scene"
    # The scene answers "ok" once drawn; its stdin stays open (a FIFO) so it keeps running.
    rm -f "$work/scene/in" && mkfifo "$work/scene/in"
    DISPLAY=:$display_number /usr/bin/python3 Tests/EndToEnd/xscene.py "$1" "$2" "$work/scene" \
        <"$work/scene/in" >"$work/scene/out" 2>>"$work/scene/err" &
    pids+=($!)
    exec 9>"$work/scene/in"
    until grep -q ok "$work/scene/out" 2>/dev/null; do sleep 0.2; done
}

animated_screen() {  # width height fps: a new Xvfb on :$display_number, testsrc2 playing over all of it
    Xvfb :$display_number -screen 0 "${1}x${2}x24" -nolisten tcp -noreset >/dev/null 2>&1 &
    pids+=($!)
    until DISPLAY=:$display_number xdpyinfo >/dev/null 2>&1; do sleep 0.2; done
    # Three seconds of testsrc2 made beforehand, shown in a loop by flipbook.c through MIT-SHM: a few
    # per cent of a core, where ffplay making and drawing them live took most of one of the two.
    ffmpeg -v error -f lavfi -i "testsrc2=size=${1}x${2}:rate=$3" -frames:v $((3 * $3)) -pix_fmt bgr0 \
        -f rawvideo -y "$work/testsrc2.bgr0"
    gcc -O2 -o "$work/flipbook" scripts/bench/flipbook.c -lX11 -lXext
    DISPLAY=:$display_number "$work/flipbook" "$1" "$2" "$3" "$work/testsrc2.bgr0" &
    pids+=($!)
    until DISPLAY=:$display_number xwininfo -root -tree | grep -q testsrc2; do sleep 0.2; done
}

animate() {  # width height x y: ffplay showing testsrc2 there, on the screen screen() made
    DISPLAY=:$display_number ffplay -v error -an -noborder -left "$3" -top "$4" -f lavfi \
        "testsrc2=size=${1}x${2}:rate=30" 2>>"$work/ffplay.log" &
    pids+=($!)
    until DISPLAY=:$display_number xwininfo -root -tree | grep -q testsrc2; do sleep 0.2; done
}

# What onair sets of x264 beyond the preset and zerolatency (VideoEncoder.x264Parameters): the
# ffmpeg peers use the same, so the settings are identical.
x264_params=scenecut=0:repeat-headers=1:force-cfr=0:ipratio=3
