#!/usr/bin/env bash
# Measures glass-to-glass latency: publishes the test pattern, plays it in headless Chromium
# with the project's watch page, and reads the capture time drawn into the frame on screen
# (TimeCode) five times a second. Prints p50/p95 latency and stalls for 2 s segments, 1 s
# segments and --low-latency (in H.264 and in AV1), then --low-latency pushed into `onair serve` and watched through the
# nginx and the Varnish edge of deploy/. It reports figures; it does not pass or fail.
#
#   scripts/latency.sh [seconds] [mode]     (default 60 s per mode; mode: a part of its name, e.g. edge)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
exec /usr/bin/python3 scripts/latency.py "$seconds" "$PWD/.build/release/onair" "${2:-}"
