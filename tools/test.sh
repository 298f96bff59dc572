#!/usr/bin/env bash
# Runs every test: the C++ suites (GoogleTest through ctest) and the Python suite (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh

cmake -S . -B build/tests -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_BUILD_TESTS=ON > /dev/null
cmake --build build/tests
ctest --test-dir build/tests --output-on-failure -j2 | tail -n 3

python3 -m pytest -q "$@"
