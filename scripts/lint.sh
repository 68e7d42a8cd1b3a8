#!/usr/bin/env bash
# Formats the Swift sources with the toolchain's `swift format` (.swift-format: 4 spaces, 120
# columns). `scripts/lint.sh --check` only reports, for CI or a pre-commit hook.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--check" ]; then
    swift format lint --strict --recursive Sources Tests Plugins Fuzz Package.swift
else
    swift format format --in-place --recursive Sources Tests Plugins Fuzz Package.swift
fi
