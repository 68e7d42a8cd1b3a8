#!/usr/bin/env bash
# Sets up, builds an optimised onair, and publishes: `scripts/run.sh [publish options]`.
# With no options: channel "demo" from the built-in test pattern and tone on port 8080.
set -euo pipefail
cd "$(dirname "$0")/.."
ONAIR_BUILD=release scripts/setup.sh
if [ $# -eq 0 ]; then
    set -- --channel demo
fi
exec .build/release/onair publish "$@"
