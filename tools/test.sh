#!/usr/bin/env bash
# Runs the tests by tier, each timed. With no --tier: set-up, then every tier (what the README's
# test command and .ci/run do).
#
#   unit    the C++ suites (ctest) and the host Python tests: no QEMU; under a minute warm on
#           two cores (pytest-xdist runs two workers in every pytest tier)
#   models  whole models compiled and compared with PyTorch's quantized reference on the host:
#           the real-model suite, the zoo, and the op tests' further random cases (pytest -m models)
#   soak    a short bounded fuzz pass (30 s per build, 64- and 32-bit; fails on any sanitizer
#           report or a hang past the per-input time limit); the long run is
#           tools/fuzz.sh --seconds N --parallel
#   device  firmware under QEMU on the emulated boards (pytest -m device); it also replays the
#           soak tier's corpus on the optimized kernels, so it runs after soak
#
#   tools/test.sh                          # set up, then unit, models, soak, device
#   tools/test.sh --tier unit              # after an edit: rebuild what changed, unit tests only
#   tools/test.sh --tier device --targets cortex-m4,cortex-m55
#   tools/test.sh --tier unit -- -k quantizer   # after --, arguments for pytest
set -euo pipefail
cd "$(dirname "$0")/.."

TIERS=(unit models soak device)
TARGETS=""
SETUP=1
while [ $# -gt 0 ]; do
  case "$1" in
    --tier) TIERS=("$2"); SETUP=0; shift 2 ;;
    --targets) TARGETS="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: tools/test.sh [--tier unit|models|soak|device] [--targets a,b] [-- pytest args]" >&2; exit 2 ;;
  esac
done

if [ "$SETUP" = 1 ]; then bash tools/setup.sh; fi

# Incremental: the C++ test build and the Python extension (an editable install rebuilds only
# what changed).
build() {
  cmake -S . -B build/tests -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_BUILD_TESTS=ON > /dev/null
  cmake --build build/tests | grep -v "^\[" || true
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-build-isolation -e .
}

# Warm runs reuse compiled bytecode, pytest's rewritten test modules too.
unset PYTHONDONTWRITEBYTECODE

declare -A SPENT
run_tier() {
  local tier=$1 start=$SECONDS
  shift  # the rest: arguments for pytest
  case "$tier" in
    unit)
      ctest --test-dir build/tests --output-on-failure -j2 > build/ctest.log || { cat build/ctest.log; exit 1; }
      tail -n 3 build/ctest.log
      python3 -m pytest -q -m "not device and not models" -n 2 "$@" ;;
    models)
      python3 -m pytest -q -m "models and not device" -n 2 "$@" ;;
    soak)
      bash tools/fuzz.sh --seconds 30 ;;
    device)
      python3 -m pytest -q -m device -n 2 ${TARGETS:+--targets "$TARGETS"} "$@" ;;
    *) echo "tools/test.sh: unknown tier $tier" >&2; exit 2 ;;
  esac
  SPENT[$tier]=$((SECONDS - start))
}

build
for tier in "${TIERS[@]}"; do
  echo "== tier $tier"
  if [ "$tier" = soak ]; then run_tier soak; else run_tier "$tier" "$@"; fi
done
for tier in "${TIERS[@]}"; do echo "tier $tier: ${SPENT[$tier]} s"; done
