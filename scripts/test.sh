#!/usr/bin/env bash
# Second README command: install dependencies, build everything (release), run every test.
# Arguments go to ctest (.ci/run passes `--label-exclude '^live$'` and runs the live Slurm tests itself,
# beside its ASan build).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release -j "$(nproc)" "$@"
