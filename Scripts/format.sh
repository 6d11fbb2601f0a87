#!/usr/bin/env bash
# Formats the Swift sources with `swift format` (it ships with the toolchain) and the checked-in
# configuration `.swift-format`; `Scripts/format.sh lint` checks instead of rewriting (what .ci/run runs).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
paths=(Sources Tests Benchmarks Fuzz Examples Package.swift)
case "${1:-format}" in
format) swift format format --in-place --recursive --parallel "${paths[@]}" ;;
lint) swift format lint --strict --recursive --parallel "${paths[@]}" ;;
*) echo "usage: Scripts/format.sh [format|lint]" >&2; exit 64 ;;
esac
