#!/usr/bin/env bash
# First README command: install dependencies, build (release), run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target hetsched_cli
./build/release/bin/hetsched demo "$@"
