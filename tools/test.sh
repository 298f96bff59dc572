#!/usr/bin/env bash
# Runs every test: the C++ suites (GoogleTest through ctest) and the Python suite (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh

cmake -S . -B build/tests -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_BUILD_TESTS=ON > /dev/null
cmake --build build/tests
ctest --test-dir build/tests --output-on-failure -j2 | tail -n 3

# A short bounded fuzz pass (30 s per build, 64- and 32-bit; fails on any sanitizer report).
# The long run is tools/fuzz.sh --seconds N --parallel.
bash tools/fuzz.sh --seconds 30

# Last, so its closing "N passed" line ends the log.
python3 -m pytest -q "$@"
