#!/usr/bin/env bash
# Sets up and runs every test: Swift unit tests, then end-to-end tests of the real binary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== unit tests (swift test)"
swift test 2>&1 | grep -vE "^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Write|Linking)|^Building|^warning: .*(unhandled|should be located)"
echo "== fuzzing the request and playlist parsers (libFuzzer, 30 s from the committed corpus)"
FUZZ_SEED=1 scripts/fuzz.sh 30
echo "== end-to-end tests (pytest)"
# Debian's interpreter: the one python3-pytest (and later python3-selenium) install into.
ONAIR_BINARY="$PWD/.build/debug/onair" /usr/bin/python3 -m pytest -q Tests/EndToEnd "$@"
