"""Optimized kernels on each tier's own core: the randomized built-tier vs portable tests
(kernels/arm/*_test.cc, kernels/arm/tier_test.h) built into the kernel-test firmware
(targets/kernel_tests/) and run under QEMU on cortex-m3 (scalar), cortex-m4, cortex-m7 and
cortex-m33 (DSP) and cortex-m55 (MVE). Every case must give the portable kernel's bytes.

The host build runs the same cases for the scalar tier (ember_kernels_test, Kernels/TierTest).
Needs the Arm toolchain and qemu-system-arm (tools/setup.sh); never skips.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ember import _ember
from ember.firmware import cmake_build, firmware_target
from ember.qemu import qemu_command
from ember.sdk import cache_dir

pytestmark = pytest.mark.device  # QEMU and the Arm toolchain (tools/test.sh --tier device)

CASES = 250  # random cases per kernel (the issue asks for at least 200)
TARGETS = {"cortex-m3": "scalar", "cortex-m4": "dsp", "cortex-m7": "dsp", "cortex-m33": "dsp",
           "cortex-m55": "mve"}
# Every kernel kernels.def marks optimized, plus the shared requantization primitive.
KERNELS = {"requantize"} | {k["name"] for k in _ember.kernels() if k["optimized"]}
LINE = re.compile(r"kernel (\w+) tier (\w+): (\d+) cases, (\d+) optimized, (\d+) mismatches, (\d+) rejected")


def _build(target: str) -> Path:
    build = cache_dir("firmware") / f"kernel-tests-{target}"
    cmake_build("kernel_tests", build, target, [f"-DEMBER_KT_CASES={CASES}", "-DEMBER_KT_SEED=1"])
    return build / "kernel_tests.elf"


@pytest.mark.parametrize("target", list(TARGETS))
def test_optimized_kernels_match_portable_on_core(target):
    elf = _build(target)
    machine = firmware_target(target).qemu_machine
    r = subprocess.run(qemu_command(elf, machine), capture_output=True, text=True, timeout=300)
    lines = {m.group(1): m for m in LINE.finditer(r.stdout)}
    assert set(lines) == KERNELS, r.stdout + r.stderr
    for name, m in lines.items():
        assert m.group(2) == TARGETS[target], f"{target} built tier {m.group(2)}"
        assert int(m.group(3)) >= CASES, m.group(0)
        assert int(m.group(5)) == 0 and int(m.group(6)) == 0, f"{target}: {m.group(0)}"
        if name != "requantize":
            assert int(m.group(4)) >= CASES * 3 // 4, f"{target}: too few cases on the optimized path: {m.group(0)}"
    assert r.returncode == 0 and "kernel tests: PASS" in r.stdout, r.stdout + r.stderr
