#!/usr/bin/env bash
# Installs everything Ember needs on a fresh Debian machine (idempotent), then builds and
# installs the Python package in editable mode. Run as root or with sudo available.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

DEBIAN_PACKAGES=(g++ make flatbuffers-compiler libflatbuffers-dev libgtest-dev nlohmann-json3-dev
                 gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib
                 qemu-system-arm
                 clang libclang-rt-14-dev g++-multilib  # fuzzing: libFuzzer, ASan/UBSan, -m32
                 chromium)                               # ember view's screenshot test
missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PIP="python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore"
# torch 2.13.0's CPU build is on disk on these machines; pinning it avoids a multi-GB download.
$PIP torch==2.13.0 torchao==0.18.0 numpy==2.4.6 tqdm==4.70.1 scikit-learn==1.9.1 \
  pytest==9.0.3 pytest-xdist==3.8.0 scikit-build-core==1.1.2 nanobind==3.1.0 cmake==4.4.5 ninja==1.13.2 matplotlib==3.11.2
# The Ethos-U path: Vela, and the TOSA serializer and reference model. tosa-tools declares
# numpy<2.2, yet the parts Ember calls run on the numpy pinned above (its tests run them), so it
# goes in without its own pins; what they need is pinned here.
$PIP --no-deps tosa-tools==2026.8.0 ethos-u-vela==5.2.0 flatbuffers==25.2.10 ml-dtypes==0.5.3 semver==3.0.4
$PIP --no-build-isolation -e .
