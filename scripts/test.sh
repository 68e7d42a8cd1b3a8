#!/usr/bin/env bash
# Sets up and runs every test: Swift unit tests, the web player's, the fuzzers, end-to-end tests of
# the real binary, then the packages installed from their apt repository in clean Debian 12 and 13
# roots. Arguments go to pytest and select end-to-end tests; the package test then does not run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The build's folder: setup.sh's (.build, or ONAIR_BUILD_CACHE kept across checkouts).
scratch=$(realpath -m "${ONAIR_BUILD_CACHE:-.build}")
echo "== unit tests (swift test)"
swift test --scratch-path "$scratch" 2>&1 | grep -vE "^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Write|Linking)|^Building|^warning: .*(unhandled|should be located)"
echo "== web player unit tests (node --test)"
node --test --test-reporter=spec Tests/Web
echo "== fuzzing the request and playlist parsers and the ingest (libFuzzer, 30 s each from the committed corpora)"
FUZZ_SEED=1 scripts/fuzz.sh 30
echo "== end-to-end tests (pytest)"
# Debian's interpreter: the one python3-pytest (and later python3-selenium) install into.
# Each test has 5 minutes: a hung read fails its test instead of holding the run.
ONAIR_BINARY="$scratch/debug/onair" /usr/bin/python3 -m pytest -q --timeout 300 --durations=15 Tests/EndToEnd "$@"
if (($#)); then
    echo "== packages: not tested (pytest arguments select some end-to-end tests; scripts/test-package.sh tests them)"
else
    echo "== packages for Debian 12 and 13, from their apt repository, in clean roots (scripts/test-package.sh)"
    scripts/test-package.sh
fi
