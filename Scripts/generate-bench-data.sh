#!/usr/bin/env bash
# Generates the benchmark inputs into Benchmarks/data/ (git-ignored) when absent:
# characters.json, 100,000 records, 30,262,760 bytes (see Benchmarks/data-generators/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p Benchmarks/data
if [ ! -f Benchmarks/data/characters.json ]; then
  python3 Benchmarks/data-generators/gen_characters.py 100000 Benchmarks/data/characters.json
fi
