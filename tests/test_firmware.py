"""Firmware on the emulated boards: zoo models built with `ember firmware` and run under QEMU
must match the host runtime bit for bit; bad input is reported clearly (a model too big for the
target at compile time, a fault as a fault, a hang as a timeout).

Needs gcc-arm-none-eabi, libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-newlib and
qemu-system-arm (tools/setup.sh installs them). Without them these tests fail; they never skip.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

import numpy as np
import pytest
import torch

import ember
from ember.firmware import build_firmware, device_inputs
from ember.measure import flash_breakdown
from ember.qemu import run_qemu
from ember.sdk import FirmwareError
from ember.models import ZOO
from ember.program import to_device

pytestmark = pytest.mark.device  # QEMU and the Arm toolchain (tools/test.sh --tier device)

TOOLS = ("arm-none-eabi-gcc", "arm-none-eabi-g++", "arm-none-eabi-nm", "qemu-system-arm", "cmake", "ninja")

# All five MLPerf Tiny models on the three benchmark cores, and one model each on the others
# (the microbit's 16 KiB of RAM fits sww's 6.6 KB arena; kws needs 16 KB).
PAIRS = [(m, t) for t in ("cortex-m55", "cortex-m4", "cortex-m3") for m in ("kws", "vww", "ic", "ad", "sww")]
PAIRS += [("sww", "cortex-m0"), ("kws", "cortex-m7"), ("ic", "cortex-m33")]


def test_toolchain_installed():
    missing = [t for t in TOOLS if shutil.which(t) is None]
    assert not missing, f"install {missing} (tools/setup.sh); the firmware tests need them"


@functools.lru_cache(maxsize=None)
def _quantized(name: str):
    model, example_inputs, calibration = ZOO[name]()
    return ember.quantize(model, tuple(example_inputs), calibration), calibration


@functools.lru_cache(maxsize=None)
def _program(name: str, target: str):
    ep, _ = _quantized(name)
    return ember.lower(ep, target)


def _inputs(name: str, program):
    """One real input (the first calibration sample) and one random one, as device bytes."""
    _, calibration = _quantized(name)
    real = tuple(to_device(torch.as_tensor(x), io) for x, io in zip(calibration[0], program.inputs))
    return [real] + device_inputs(program, 1, seed=1)


@pytest.mark.parametrize("name,target", PAIRS)
def test_zoo_model_matches_host_bit_for_bit(name, target, tmp_path):
    program = _program(name, target)
    fw = build_firmware(program, target, tmp_path / "fw.elf", inputs=_inputs(name, program))
    result = run_qemu(fw.elf, timeout=300)
    assert result.status == "pass", result.describe() + "\n" + result.stdout[-2000:]
    assert result.mismatches == 0
    assert len(result.inferences) == 2 and all(n > 0 for n in result.inferences)
    assert len(result.ops) == len(program.inspect()["ops"])
    # Each op's count is rounded from SysTick ticks on its own (25.6 ticks per instruction on some
    # boards), so the per-op sum may differ from the rounded whole by up to one per op.
    assert abs(sum(op["instructions"] for op in result.ops) - result.inferences[0]) <= len(result.ops)
    assert 0 < result.ram["stack"] < result.ram["stack_size"]


def test_instruction_counts_are_deterministic(tmp_path):
    program = _program("sww", "cortex-m4")
    fw = build_firmware(program, "cortex-m4", tmp_path / "fw.elf", inputs=_inputs("sww", program))
    first, second = run_qemu(fw.elf), run_qemu(fw.elf)
    assert first.status == second.status == "pass"
    assert first.ops == second.ops and first.inferences == second.inferences


def test_selective_build_links_only_the_programs_kernels(tmp_path):
    program = _program("sww", "cortex-m55")
    kernels = program.inspect()["kernels"]
    assert "pad_s8" not in kernels and "conv2d_s8" in kernels
    fw = build_firmware(program, "cortex-m55", tmp_path / "fw.elf")
    symbols = subprocess.run(["arm-none-eabi-nm", "-C", str(fw.elf)], capture_output=True, text=True,
                             check=True).stdout
    assert "ember::kernels::run_conv2d_s8" in symbols
    assert "ember::kernels::run_pad_s8" not in symbols
    assert "ember::kernels::run_conv2d_f32" not in symbols
    flash = flash_breakdown(fw.map)
    assert flash["constants"] == len(program.data)
    assert flash["runtime_core"] > 0 and flash["kernels"] > 0


def test_too_big_for_the_target_is_a_compile_error_naming_region_and_sizes():
    ep, _ = _quantized("kws")
    with pytest.raises(ember.CompileError) as e:
        ember.lower(ep, "cortex-m0")
    message = str(e.value)
    # The M0 gets no depthwise scratch (it runs the listed taps), so it needs what the host
    # program does: the activations alone.
    needed = _program("kws", "host").arena_bytes
    assert "SRAM" in message and f"{needed} bytes" in message and "13312 bytes" in message, message


def test_program_for_another_targets_regions_is_refused(tmp_path):
    with pytest.raises(FirmwareError, match="compile it for cortex-m0"):
        build_firmware(_program("sww", "cortex-m55"), "cortex-m0", tmp_path / "fw.elf")


@pytest.mark.parametrize("target,fault", [("cortex-m4", "UsageFault"), ("cortex-m0", "HardFault")])
def test_fault_is_reported_as_a_fault_with_its_type(target, fault, tmp_path):
    fw = build_firmware(_program("sww", target), target, tmp_path / "fw.elf", inject_fault=True)
    result = run_qemu(fw.elf, timeout=60)
    assert result.status == "fault", result.describe()
    assert result.fault.startswith(fault), result.fault
    if target == "cortex-m4":
        assert "UNDEFINSTR" in result.fault


def test_hang_is_reported_as_a_timeout(tmp_path):
    # A run cut short stands for a hang: 1 ms, since QEMU can start and run ic's 23 million
    # instructions within the 50 ms this once allowed (it did once, after the kernels sped up).
    program = _program("ic", "cortex-m4")
    fw = build_firmware(program, "cortex-m4", tmp_path / "fw.elf")
    result = run_qemu(fw.elf, timeout=0.001)
    assert result.status == "timeout" and "TIMEOUT" in result.describe()


def test_cortex_m85_is_compile_only(tmp_path):
    fw = build_firmware(_program("sww", "cortex-m85"), "cortex-m85", tmp_path / "fw.elf")
    assert fw.elf.stat().st_size > 0
    with pytest.raises(FirmwareError, match="compile-only"):
        run_qemu(fw.elf)


def test_cli_firmware_qemu_and_export_c(tmp_path, capsys):
    from ember.cli import main

    program = _program("sww", "cortex-m3")
    program.save(tmp_path / "sww.emb")
    assert main(["export-c", str(tmp_path / "sww.emb"), "-o", str(tmp_path / "c" / "model")]) == 0
    header = (tmp_path / "c" / "model.h").read_text()
    assert f"#define MODEL_PROGRAM_BYTES {len(program.data)}u" in header
    assert f"#define MODEL_ARENA_SRAM_BYTES {program.arena_bytes}u" in header
    assert "X(0, conv2d_s8)" in header
    x, y = program.inputs[0], program.outputs[0]
    assert f"#define MODEL_INPUT_0_DIMS {{{', '.join(map(str, x['shape']))}}}" in header
    assert f"#define MODEL_INPUT_0_SCALE {x['scale']:.9g}f" in header
    assert f"#define MODEL_OUTPUT_0_ZERO_POINT {y['zero_point']}" in header
    assert "_Alignas(16) const uint8_t model_program" in (tmp_path / "c" / "model.c").read_text()
    assert main(["firmware", str(tmp_path / "sww.emb"), "--target", "cortex-m3",
                 "-o", str(tmp_path / "fw.elf")]) == 0
    assert main(["qemu", str(tmp_path / "fw.elf")]) == 0
    assert "outputs bit-identical" in capsys.readouterr().out


def test_bench_reports_every_layer(tmp_path):
    from ember.bench import run_bench

    report = run_bench(["ad"], ["cortex-m55"], json_path=None, md_path=tmp_path / "bench.md",
                       work_dir=tmp_path, log=lambda _: None)
    (row,) = report["results"]
    assert row["status"] == "pass" and row["mismatches"] == 0
    layers = [op for op in row["ops"] if op["macs"]]
    assert len(layers) == 10 and all(op["kernel_note"] == "mve kernel (matrix product)" for op in layers)
    assert sum(op["macs"] for op in row["ops"]) == row["macs"]
    assert sum(op["instructions"] for op in row["ops"]) <= row["instructions"]
    text = (tmp_path / "bench.md").read_text()
    assert "#### ad\n" in text and "| MACs | cortex-m55 (mve) |" in text
    assert "| 0 | layers.0.fc | 640 -> 128 | fully_connected_s8: mve kernel (matrix product) | 81,920 |" in text


class _DepthMultiplier(torch.nn.Module):
    """Depthwise convs of depth multiplier 2 and 3 (3x3 stride 1, 5x5 stride 2 with padding)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.dw2 = torch.nn.Conv2d(8, 16, 3, padding=1, groups=8)
        self.dw3 = torch.nn.Conv2d(16, 48, 5, stride=2, padding=2, groups=16)

    def forward(self, x):
        return self.dw3(torch.relu(self.dw2(torch.relu(self.conv(x)))))


@pytest.mark.parametrize("target", ["cortex-m55", "cortex-m4", "cortex-m3", "cortex-m0"])
def test_depth_multiplier_runs_the_optimized_kernel_bit_for_bit(target, tmp_path):
    torch.manual_seed(0)
    program = ember.compile(_DepthMultiplier().eval(), (torch.randn(1, 3, 12, 12),),
                            calibration=[(torch.randn(1, 3, 12, 12),) for _ in range(4)], target=target)
    notes = [op["kernel_note"] for op in program.inspect()["ops"]]
    assert any("depth multiplier 2: rows expanded" in n for n in notes), notes
    assert any("depth multiplier 3: rows expanded" in n for n in notes), notes
    fw = build_firmware(program, target, tmp_path / "fw.elf", inputs=device_inputs(program, 2, seed=3))
    result = run_qemu(fw.elf, timeout=300)
    assert result.status == "pass" and result.mismatches == 0, result.describe() + "\n" + result.stdout[-2000:]

