"""Memory planning (docs/memory.md): region capacities and spilling, in-place execution and the
plans below the op-by-op bound, checked by an independent checker (tests/plan_check.py), on the
host and under QEMU.

The QEMU runs need the firmware toolchain (tools/setup.sh), as tests/test_firmware.py does.
"""

from __future__ import annotations

import copy
import functools

import pytest
import torch

import ember
from ember import _ember
from ember.firmware import build_firmware, device_inputs
from ember.qemu import run_qemu
from fbpatch import Patcher
from ember.models import ZOO
from ember.program import to_device
from plan_check import check_plan, overlapping_pairs

TARGET = "cortex-m55"
M55 = {"DTCM": 515072, "SRAM": 4194304}
MODELS = ("kws", "vww", "ic", "ad", "sww")
PLANS = ("simple", "default", "smallest")
# kws and ad in the unit tier, the bigger models in the models tier.
SMALL_FIRST = [name if name in ("kws", "ad") else pytest.param(name, marks=pytest.mark.models) for name in MODELS]


@functools.lru_cache(maxsize=None)
def _quantized(name: str):
    model, example_inputs, calibration = ZOO[name]()
    return ember.quantize(model, tuple(example_inputs), calibration), calibration


@functools.lru_cache(maxsize=None)
def _program(name: str, plan: str = "default", memory: str | None = None):
    return ember.lower(_quantized(name)[0], TARGET, plan=plan, memory=memory)


def _inputs(name: str, program):
    _, calibration = _quantized(name)
    real = tuple(to_device(torch.as_tensor(x), io) for x, io in zip(calibration[0], program.inputs))
    return [real] + device_inputs(program, 1, seed=3)


def _arena(program) -> int:
    return sum(r["bytes"] for r in program.inspect()["memory"]["regions"])


@pytest.mark.parametrize("plan", PLANS)
@pytest.mark.parametrize("name", SMALL_FIRST)
def test_every_plan_passes_the_independent_checker(name, plan):
    info = _program(name, plan).inspect()
    assert check_plan(info, M55, inputs_consumed=plan == "smallest") == []
    if plan == "simple":
        assert overlapping_pairs(info) == 0


@pytest.mark.parametrize("name", SMALL_FIRST)
def test_plans_agree_bit_for_bit_on_the_host(name):
    programs = [_program(name, plan) for plan in PLANS]
    for case in _inputs(name, programs[0]):
        outs = [p.run_raw(*case) for p in programs]
        for other in outs[1:]:
            assert all((a == b).all() for a, b in zip(outs[0], other))


def test_smallest_plan_goes_below_the_op_by_op_bound():
    # The simple plan meets the op-by-op bound (16,000 / 55,296 / 49,152 / 768 / 6,656 bytes of
    # activations before the optimized kernels' scratch buffers); overlapping dying inputs
    # goes below it.
    for name in MODELS:
        simple, smallest = _program(name, "simple"), _program(name, "smallest")
        bound = simple.inspect()["memory"]["lower_bound_bytes"]
        assert _arena(simple) == bound
        assert _arena(smallest) <= _arena(_program(name, "default")) <= bound
        if name != "ad":  # fully connected layers read their whole input for every output
            assert _arena(smallest) < bound
    # Bottom-up rows: see the next test. kws and sww: 768 B of it is the Helium depthwise
    # strip, a scratch of the op at the plan's peak (docs/memory.md).
    assert _arena(_program("kws", "smallest")) <= 8640 + 768
    assert _arena(_program("vww", "smallest")) <= 38 * 1024
    assert _arena(_program("ic", "smallest")) <= 34 * 1024
    assert _arena(_program("sww", "smallest")) <= 3744 + 768


def test_checker_catches_bad_plans():
    # Copies: the programs (and their inspect() dicts) are cached for the other tests.
    info = copy.deepcopy(_program("ic", "smallest").inspect())
    buffers = info["memory"]["buffers"]
    # Two buffers live at once moved onto the same bytes.
    op = next(o for o in info["ops"] if o["kernel"] == "add_s8")
    a, b = (next(x for x in buffers if x["tensor"] == t) for t in op["input_ids"][:2])
    b["offset"] = a["offset"]
    assert any("overlap" in p for p in check_plan(info))
    # An in-place conv whose output does not start far enough below its input.
    info = copy.deepcopy(_program("kws", "smallest").inspect())
    tensors = {x["tensor"]: x for x in info["memory"]["buffers"]}
    for op in info["ops"]:
        src, dst = tensors.get(op["input_ids"][0]), tensors[op["output_ids"][0]]
        if op["kernel"] == "conv2d_s8" and src and dst["offset"] < src["offset"] < dst["offset"] + dst["bytes"] and \
                src["bytes"] == dst["bytes"]:
            assert not op["rows_bottom_up"]
            dst["offset"] = src["offset"] - 16
            break
    else:
        pytest.fail("no in-place top-down convolution in kws' smallest plan")
    assert any("bytes below its input" in p for p in check_plan(info))
    # A bottom-up one whose output does not start far enough above its input, and the same
    # placement without the flag (then the kernel would write rows top-down over its input).
    for flag in (True, False):
        info = copy.deepcopy(_program("kws", "smallest").inspect())
        tensors = {x["tensor"]: x for x in info["memory"]["buffers"]}
        op = next(o for o in info["ops"] if o["rows_bottom_up"])
        src, dst = tensors[op["input_ids"][0]], tensors[op["output_ids"][0]]
        assert src["offset"] < dst["offset"] < src["offset"] + src["bytes"]
        if flag:
            dst["offset"] = src["offset"] + 16
            assert any("bytes above its input" in p for p in check_plan(info))
        else:
            op["rows_bottom_up"] = False
            assert any("bytes below its input" in p for p in check_plan(info))
    # The flag on a kernel that always writes top-down allows no overlap at all.
    info = copy.deepcopy(_program("kws", "smallest").inspect())
    op = next(o for o in info["ops"] if o["kernel"] == "avg_pool2d_s8")
    assert check_plan(info, inputs_consumed=True) == []
    op["rows_bottom_up"] = True
    tensors = {x["tensor"]: x for x in info["memory"]["buffers"]}
    src, dst = tensors[op["input_ids"][0]], tensors[op["output_ids"][0]]
    dst["offset"] = src["offset"] + src["bytes"] - dst["bytes"]  # over the input's upper end
    assert any("may not write over that input bottom-up" in p for p in check_plan(info, inputs_consumed=True))
    # Over capacity.
    assert any("capacity" in p for p in check_plan(_program("vww").inspect(), {"DTCM": 1024}))


def test_bottom_up_rows_stop_the_chains_drifting():
    # kws: ten 8,000 B activations, each conv and depthwise over the one it consumes. Top-down
    # only, the chain drifts down by every delta (12,608 B); alternating directions keeps it
    # within one 8,000 B buffer plus the largest step (and the Helium depthwise strip, 768 B).
    info = _program("kws", "smallest").inspect()
    assert _arena(_program("kws", "smallest")) <= 8640 + 768
    flags = [o["rows_bottom_up"] for o in info["ops"]]
    assert any(flags) and not all(flags)
    assert all(o["kernel"] in ("conv2d_s8", "depthwise_conv2d_s8") for o in info["ops"] if o["rows_bottom_up"])
    # A RAM budget only the bottom-up rows meet escalates to them.
    program = ember.lower(_quantized("kws")[0], TARGET, ram_budget=8640 + 768)
    assert _arena(program) <= 8640 + 768 and any(o["rows_bottom_up"] for o in program.inspect()["ops"])
    # Never under the other plans.
    for name in MODELS:
        for plan in ("simple", "default"):
            assert not any(o["rows_bottom_up"] for o in _program(name, plan).inspect()["ops"])


def _bottom_up_op(p: Patcher) -> int:
    return next(i for i in range(p.count("ops")) if p.get(p.op(i), "op", "rows_bottom_up", "<B"))


def test_runtime_rejects_a_bad_bottom_up_placement():
    base = bytes(_program("kws", "smallest").data)
    assert _ember.Runtime(base).status == "ok"
    # Output moved to 16 bytes above its input: short of the rise.
    p = Patcher(base)
    op = _bottom_up_op(p)
    src = p.int_vec(p.op(op), "op", "inputs")[0]
    dst = p.int_vec(p.op(op), "op", "outputs")[0]
    p.set(p.tensor(dst), "tensor", "offset", "<I", p.get(p.tensor(src), "tensor", "offset", "<I") + 16)
    rt = _ember.Runtime(bytes(p.buf))
    assert rt.status == "bad_plan" and "bottom-up in place needs it" in rt.message, rt.message
    # The flag cleared: the same bytes are then a top-down op writing over its input's end.
    p = Patcher(base)
    p.set(p.op(_bottom_up_op(p)), "op", "rows_bottom_up", "<B", 0)
    rt = _ember.Runtime(bytes(p.buf))
    assert rt.status == "bad_plan" and "bytes below" in rt.message, rt.message


def test_regions_fill_fastest_first_and_spill():
    program = _program("vww", "default", "DTCM=32K")
    regions = {r["name"]: r["bytes"] for r in program.inspect()["memory"]["regions"]}
    assert list(regions) == ["DTCM", "SRAM"] and regions["DTCM"] <= 32 * 1024 and regions["SRAM"] > 0
    assert check_plan(program.inspect(), {"DTCM": 32 * 1024, "SRAM": M55["SRAM"]}) == []
    x = _inputs("vww", program)[0]
    assert all((a == b).all() for a, b in zip(program.run_raw(*x), _program("vww").run_raw(*x)))
    # DTCM switched off: everything in SRAM.
    program = ember.lower(_quantized("sww")[0], TARGET, memory={"DTCM": 0})
    assert [r["name"] for r in program.inspect()["memory"]["regions"]] == ["SRAM"]


def test_model_too_big_is_a_compile_error_naming_region_bytes_capacity_and_peak():
    with pytest.raises(ember.CompileError) as e:
        ember.lower(_quantized("vww")[0], TARGET, memory="DTCM=16K,SRAM=20K")
    msg = str(e.value)
    assert "region SRAM" in msg and "holds 20480 bytes" in msg and "after filling DTCM" in msg
    assert "peak at aten.conv2d.default at vww.py" in msg
    with pytest.raises(ember.CompileError, match="has no region ITCM"):
        ember.lower(_quantized("ad")[0], TARGET, memory="ITCM=64K")
    with pytest.raises(ember.CompileError, match="expected REGION=BYTES"):
        ember.lower(_quantized("ad")[0], TARGET, memory="DTCM")


def test_ram_budget_picks_the_smallest_plan_or_fails():
    program = ember.lower(_quantized("vww")[0], TARGET, ram_budget=40000)
    assert 0 < _arena(program) <= 40000
    with pytest.raises(ember.CompileError, match="over the RAM budget of 30000 bytes"):
        ember.lower(_quantized("vww")[0], TARGET, ram_budget=30000)


def test_cli_memory_plan_and_plot(tmp_path, capsys):
    from ember.cli import main

    out = tmp_path / "sww.emb"
    assert main(["compile", "ember.models:sww", "--target", TARGET, "-o", str(out), "--memory", "DTCM=64K",
                 "--plan", "smallest"]) == 0, capsys.readouterr().err
    png = tmp_path / "memory.png"
    assert main(["inspect", str(out), "--plot", str(png)]) == 0, capsys.readouterr().err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    capsys.readouterr()
    assert main(["firmware", str(out), "--memory", "DTCM=1K", "-o", str(tmp_path / "fw.elf")]) == 1
    err = capsys.readouterr().err
    assert "region DTCM" in err and "holds 1024 bytes" in err, err


# Under QEMU: the smallest plans (every in-place kind the zoo has) and a spilled two-region plan.
QEMU_CASES = [(m, "smallest", None) for m in MODELS] + [("vww", "default", "DTCM=32K")]


@pytest.mark.parametrize("name,plan,memory", QEMU_CASES)
@pytest.mark.device
def test_plan_matches_host_under_qemu(name, plan, memory, tmp_path):
    program = _program(name, plan, memory)
    fw = build_firmware(program, TARGET, tmp_path / "fw.elf", inputs=_inputs(name, program))
    result = run_qemu(fw.elf, timeout=300)
    assert result.status == "pass", result.describe() + "\n" + result.stdout[-2000:]
    assert result.mismatches == 0 and len(result.inferences) == 2
