#!/usr/bin/env bash
# Sets up a fresh machine and runs the demo: keyword spotting compiled for the Cortex-M55, run
# by the Ember runtime on the host and as firmware on QEMU's Cortex-M55 board.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
mkdir -p out
ember demo -o out/kws.emb
