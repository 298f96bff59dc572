"""The declared tables (runtime/status.def, kernels/kernels.def, compiler/ops.def,
targets/targets.def) as the binding hands them to Python, and what is generated from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from ember import _ember
from ember.target_cmake import PATH, cmake_text

ROOT = Path(__file__).resolve().parents[1]


def test_generated_target_table_for_cmake_is_current():
    """targets/targets.cmake, which the firmware toolchain file reads, is what `python3 -m
    ember.target_cmake` writes from targets/targets.def now."""
    assert (ROOT / PATH).read_text() == cmake_text(), "targets.def changed: run python3 -m ember.target_cmake"


def test_status_codes_are_distinct_and_grouped():
    codes = _ember.status_codes()
    values = [v for v, _ in codes.values()]
    assert len(set(values)) == len(values) and codes["ok"][0] == 0
    # 1-19 malformed file, 20-29 caller, 30-39 build, 40 internal, 41 the platform (runtime/status.def).
    assert all(0 <= v <= 41 for v in values)
    assert len({m for _, m in codes.values()}) == len(codes)


@pytest.mark.parametrize("kernel", _ember.kernels(), ids=lambda k: k["name"])
def test_every_optimized_kernel_has_its_arm_header(kernel):
    """A kernels.def row marked Arm has kernels/arm/<name>.h; a Portable one has none."""
    header = ROOT / "kernels" / "arm" / f"{kernel['name']}.h"
    assert header.exists() == bool(kernel["optimized"]), kernel


def test_every_target_tier_is_a_kernel_tier():
    tiers = {"portable", "scalar", "dsp", "mve"}
    for t in _ember.targets():
        assert t["tier"] in tiers, t
        assert (t["board_dir"] == "") == (t["name"] == "host"), t
        if t["board_dir"]:
            assert (ROOT / "targets" / "boards" / t["board_dir"] / "memory.ld").exists(), t


@pytest.mark.parametrize("op", [o for o in _ember.ops() if "table" in o["traits"]], ids=lambda o: o["kind"])
def test_every_table_op_compiles_to_one_int8_table(op):
    """An ops.def row with the Table trait is all it takes for its aten op to be quantized and
    run as one 256-entry table, within one quantum of PyTorch's quantized reference."""
    import torch
    from torch import nn

    import ember
    from conftest import quanta_apart

    fn = getattr(torch.ops.aten, op["aten"].split(".")[1]).default
    model = nn.Sequential(nn.Conv2d(2, 2, 1), nn.Module()).eval()
    model[1].forward = fn
    x = torch.randn(1, 2, 4, 4)
    ep = ember.quantize(model, (x,), [(x,), (2 * x,)])
    program = ember.lower(ep, "host")
    assert [o["kernel"] for o in program.inspect()["ops"]] == ["conv2d_s8", "lut_s8"]
    assert quanta_apart(program, ep, (x,)) <= 1
