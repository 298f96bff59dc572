"""Bad input gets its own clear error: malformed program files, a too-small arena, wrong input
shape or dtype at run time, and an unsupported op at compile time (named, with its source)."""

from __future__ import annotations

import struct

import pytest
import torch
from torch import nn

import ember
from ember import _ember
import fbpatch


@pytest.fixture(scope="module")
def program() -> ember.Program:
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 6 * 6, 4))
    model.eval()
    x = torch.randn(1, 3, 6, 6)
    return ember.compile(model, (x,), calibration=[(x,), (x * 2,)], target="host")


def status_of(data: bytes) -> str:
    return _ember.Runtime(bytes(data)).status


def test_valid_program_loads(program):
    assert status_of(program.data) == "ok"


def test_truncated_file(program):
    assert status_of(program.data[:5]) == "truncated"
    assert status_of(program.data[: len(program.data) // 2]) in ("truncated", "bad_structure")


def test_wrong_identifier(program):
    data = bytearray(program.data)
    data[4:8] = b"XXXX"
    assert status_of(data) == "bad_identity"


def test_wrong_schema_version(program):
    data = bytearray(program.data)
    pos = fbpatch.field_pos(data, fbpatch.root(data), fbpatch.PROGRAM["version"])
    struct.pack_into("<I", data, pos, 99)
    assert status_of(data) == "bad_identity"


def _op_input_pos(data, op: int, operand: int) -> int:
    table = fbpatch.table_in_vector(data, fbpatch.root(data), fbpatch.PROGRAM["ops"], op)
    start, _ = fbpatch.vector(data, table, fbpatch.OP["inputs"])
    return start + 4 * operand


def test_tensor_index_out_of_range(program):
    data = bytearray(program.data)
    struct.pack_into("<i", data, _op_input_pos(data, 0, 0), 10_000)
    assert status_of(data) == "bad_index"


def _tensor_with(p: fbpatch.Patcher, storage: int) -> int:
    """A tensor of that storage (0 arena, 1 constant) at a non-zero offset."""
    for i in range(p.count("tensors")):
        t = p.tensor(i)
        if p.get(t, "tensor", "storage", "<B") == storage and p.get(t, "tensor", "offset", "<I"):
            return t
    raise AssertionError(f"no tensor of storage {storage} at a non-zero offset")


def test_constant_offset_out_of_bounds(program):
    p = fbpatch.Patcher(program.data)
    p.set(_tensor_with(p, 1), "tensor", "offset", "<I", 0x7FFF_FFF0)
    assert status_of(p.buf) == "data_out_of_bounds"


def test_arena_offset_out_of_region(program):
    p = fbpatch.Patcher(program.data)
    p.set(_tensor_with(p, 0), "tensor", "offset", "<I", 0x10_0000)
    assert status_of(p.buf) == "bad_plan"  # placement: past its region


def test_arena_smaller_than_stated(program):
    rt = _ember.Runtime(program.data)
    need = rt.region_sizes()[0]
    for size in (0, 16, need - 16):
        assert rt.rebind([size]) == "arena_too_small"
        assert str(need) in rt.message
    assert rt.rebind([need]) == "ok"


def test_wrong_input_shape_or_dtype(program):
    rt = _ember.Runtime(program.data)
    info = program.inputs[0]
    n = 1
    for d in info["shape"]:
        n *= d
    status, _, _ = rt.run([b"\0" * (n - 1)])
    assert status == "shape_mismatch"
    status, _, _ = rt.run([b"\0" * (4 * n)])  # float32 bytes for an int8 input
    assert status == "shape_mismatch"
    status, _, _ = rt.run([])
    assert status == "runtime_index"
    with pytest.raises(ember.ProgramError, match="shape_mismatch"):
        program.run_raw(torch.zeros(1, 3, 6, 7, dtype=torch.int8).numpy())


class Cumsum(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1)  # no Ember kernel: the compiler must name this line


def test_unsupported_op_names_op_and_source_line():
    x = torch.randn(1, 8)
    with pytest.raises(ember.CompileError) as err:
        ember.compile(Cumsum(), (x,), calibration=[(x,)], target="host")
    message = str(err.value)
    assert "aten.cumsum" in message
    assert "test_errors.py:" in message


class ThreeCumsums(nn.Module):
    def forward(self, x):
        y = torch.cumsum(x, 1)
        return y + torch.cumsum(x, 0) + torch.cumsum(x * 2, 1)  # two more, on one line


def test_one_line_per_cause_with_its_count_and_places():
    x = torch.randn(2, 8)
    with pytest.raises(ember.CompileError) as err:
        ember.compile(ThreeCumsums(), (x,), quantized=False, target="host")
    lines = str(err.value).splitlines()
    assert len(lines) == 1, lines
    assert "aten.cumsum" in lines[0] and "(3 times)" in lines[0] and lines[0].count("test_errors.py:") == 2


def test_a_library_layer_is_named_by_the_library_file_and_line():
    from ember.frontend import source_of

    class Node:  # what torch.export records for a layer defined in an installed package
        target = "aten.cumsum.default"
        meta = {"stack_trace": 'File "/opt/py/lib/site-packages/torchvision/models/mobilenetv2.py", line 64, in '
                               'forward\n    x = self.cumsum(x)\n  File "/opt/py/lib/site-packages/torch/nn/'
                               'modules/module.py", line 1762, in _call_impl\n',
                "nn_module_stack": {"L__self__features_0": ("features.0", "torchvision.ops.Misc")}}

    assert source_of(Node()) == "aten.cumsum.default at torchvision/models/mobilenetv2.py:64 (features.0)"


def test_extra_inputs_are_refused(program, tmp_path, capsys):
    """A second input to a one-input program is an error naming the count, not dropped."""
    x = torch.randn(1, 3, 6, 6)
    with pytest.raises(ember.ProgramError, match=r"takes 1 inputs \(.+\), got 2"):
        program.run(x, x)
    from ember.cli import main
    import numpy as np

    path = tmp_path / "p.emb"
    program.save(path)
    np.save(tmp_path / "x.npy", x.numpy())
    assert main(["run", str(path), "--input", str(tmp_path / "x.npy"), "--input", str(tmp_path / "x.npy")]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("ember: runtime_index (21): the program takes 1 inputs"), err


def test_huge_stated_region_rejected_before_any_allocation(program):
    """A region stated at 4 GiB (no tensor reaches past the plan's bytes) is OversizedRegion at
    load: nothing is allocated for it, and the verdict costs no memory."""
    import resource

    p = fbpatch.Patcher(program.data)
    p.set(p.region(0), "region", "size", "<I", 0xFFFFFFF0)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ember.ProgramError, match=r"oversized_region \(16\).*states 4294967280 bytes"):
        ember.Program(bytes(p.buf))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 * 1024  # KiB


_RSS_PROBE = r"""
import importlib.util, re, sys
spec = importlib.util.spec_from_file_location("_ember", sys.argv[1])
_ember = importlib.util.module_from_spec(spec)
spec.loader.exec_module(_ember)
data = open(sys.argv[2], "rb").read()
def rss():  # the peak resident bytes since the last reset (Linux: VmHWM)
    return int(re.search(r"VmHWM:\s+(\d+) kB", open("/proc/self/status").read()).group(1)) * 1024
open("/proc/self/clear_refs", "w").write("5")  # reset the peak to the current use
base = rss()
rt = _ember.Runtime(data)
_ember.inspect_json(data)
checked = rss()
status, _, _ = rt.run([bytes(len(data) and 8 << 20)])
print(rt.status, status, checked - base, rss() - base)
"""


def test_verdict_and_inspect_cost_no_arena(tmp_path):
    """A 784-byte program with a 16 MiB plan: loading (every check) and inspecting it raise the
    process's peak memory by under 1 MiB; the arena is allocated only by a run (which the same
    measure sees, so it can fail). Measured from a reset of the peak, in a process of its own."""
    import subprocess
    import sys

    x = torch.randn(1, 8, 1024, 1024)
    program = ember.compile(nn.Sequential(nn.ReLU()), (x,), calibration=[(x,)], target="host")
    assert len(program.data) < 1024 and program.arena_bytes == 16 << 20
    path = tmp_path / "big.emb"
    program.save(path)
    r = subprocess.run([sys.executable, "-c", _RSS_PROBE, _ember.__file__, str(path)], capture_output=True,
                       text=True, check=True)
    load_status, run_status, checked, ran = r.stdout.split()
    assert (load_status, run_status) == ("ok", "ok")
    assert int(checked) < 1 << 20, checked
    assert int(ran) > 8 << 20, ran
