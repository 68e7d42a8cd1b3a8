#!/usr/bin/env bash
# What sharing a Wayland screen costs against the same picture from an X server: onair publishing
# a 1280x720 headless sway desktop through the ScreenCast portal and PipeWire, and onair
# publishing a 1280x720 Xvfb screen, side by side in one run; both screens show ffplay's
# testsrc2 over all of them (a moving picture: every frame changes).
#
#   scripts/bench-wayland.sh [seconds]      (default 20)
#
# Goal: onair's CPU on Wayland within 10 % of (at most 1.10×) onair's on X11. Video only, 1280x720,
# 30 fps, libx264 as onair's defaults. Beside it: what the Wayland desktop itself spent copying
# the screen for onair (sway, xdg-desktop-portal-wlr, PipeWire), which X11 capture does not ask of
# the X server in the same way (MIT-SHM reads happen inside onair's own time).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
pids=()
trap 'exec 9>&- 2>/dev/null; kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh
chmod 755 "$work"
display_number=92

cpu_ticks() {  # the user and system time, in clock ticks, of the pids listed in a file
    local total=0 pid
    while read -r _ pid; do
        total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
    done <"$1"
    echo $total
}

echo "== X11: Xvfb 1280x720, ffplay's testsrc2 over the whole screen"
Xvfb :$display_number -screen 0 1280x720x24 -nolisten tcp -noreset >/dev/null 2>&1 &
pids+=($!)
until DISPLAY=:$display_number xdpyinfo >/dev/null 2>&1; do sleep 0.2; done
DISPLAY=:$display_number ffplay -v error -an -noborder -left 0 -top 0 -f lavfi "testsrc2=size=1280x720:rate=30" &
pids+=($!)
until DISPLAY=:$display_number xwininfo -root -tree | grep -q testsrc2; do sleep 0.2; done
x11=$(DISPLAY=:$display_number measure onair-x11 .build/release/onair publish --channel bench --duration "${seconds}s" \
    --host 127.0.0.1 --port "$(free_port)" --source screen --no-cursor --audio none --size 1280x720)
kill "${pids[@]}" 2>/dev/null || true
wait 2>/dev/null || true
pids=()

echo "== Wayland: headless sway 1280x720, ffplay's testsrc2 over the whole output"
mkdir -p "$work/wayland" && rm -f "$work/in" && mkfifo "$work/in"
ONAIR_BINARY="$PWD/.build/release/onair" /usr/bin/python3 scripts/bench/wayland_desktop.py 1280 720 "$work/wayland" \
    <"$work/in" >"$work/wayland/out" &
pids+=($!)
exec 9>"$work/in"
until grep -q ok "$work/wayland/out" 2>/dev/null; do sleep 0.2; done
mapfile -t session <"$work/wayland/env"
read -r -a user <"$work/wayland/user"
binary=$(cat "$work/wayland/binary")
before=$(cpu_ticks "$work/wayland/pids")
# As the session's user, on its bus (env, then setpriv, exec onair: GNU time measures onair).
wayland=$(cd /tmp && measure onair-wayland env -i "${session[@]}" "${user[@]}" "$binary" publish --channel bench \
    --duration "${seconds}s" --host 127.0.0.1 --port "$(free_port)" --source portal --no-cursor --audio none \
    --size 1280x720)
after=$(cpu_ticks "$work/wayland/pids")
exec 9>&-
wait 2>/dev/null || true
pids=()
desktop_cpu=$(echo "($after - $before) / $(getconf CLK_TCK)" | bc -l)

read -r _ x11_cpu x11_rss <<<"$x11"
read -r _ wl_cpu wl_rss <<<"$wayland"
echo
printf "%-48s %10s %10s\n" "1280x720, testsrc2, ${seconds} s" "CPU s" "peak MiB"
printf "%-48s %10.2f %10.1f\n" "onair, X11 (Xvfb, MIT-SHM)" "$x11_cpu" "$(echo "$x11_rss / 1024" | bc -l)"
printf "%-48s %10.2f %10.1f\n" "onair, Wayland (portal, PipeWire)" "$wl_cpu" "$(echo "$wl_rss / 1024" | bc -l)"
printf "%-48s %10.2fx %9.2fx   goal: CPU at most 1.10x\n" "Wayland / X11" \
    "$(echo "$wl_cpu / $x11_cpu" | bc -l)" "$(echo "$wl_rss / $x11_rss" | bc -l)"
printf "%-48s %10.2f\n" "the desktop copying it (sway, portal, PipeWire)" "$desktop_cpu"
grep -h "stopped channel" "$work/onair-x11.log" | sed 's/^.*stopped/    X11:     stopped/' || true
grep -h "stopped channel" "$work/onair-wayland.log" | sed 's/^.*stopped/    Wayland: stopped/' || true
