"""Program files are untrusted input (SECURITY.md): every class of malformed file in
docs/runtime.md is rejected with its own status code, on the host and on an emulated Cortex-M.

Each crafted file mutates a real zoo program (keyword spotting, compiled for cortex-m55) with
tests/fbpatch.py. The same files run through the host runtime (the Python binding) and through a
load-check firmware under QEMU (targets/firmware/load_check.cc), which must print the same code
for each. An arena sweep from 0 bytes to the plan's size must give ArenaTooSmall naming the
bytes needed, and never crash.
"""

from __future__ import annotations

import functools
import json
import re
import struct
from dataclasses import dataclass

import pytest

import ember
import ember.export
from ember.firmware import build_load_check_firmware
from ember.qemu import run_qemu
from ember import _ember
from ember.models import ZOO
import fbpatch
from fbpatch import Patcher

# runtime/status.h: the 16 classes of malformed input (anchors_reliability.md, section 6) and
# their codes. No two classes share a code.
CLASSES = {
    1: ("truncated file", "truncated", 1),
    2: ("wrong identity", "bad_identity", 2),
    3: ("misalignment", "misaligned", 3),
    4: ("structural damage", "bad_structure", 4),
    5: ("unknown tag", "unknown_kind", 5),
    6: ("missing required field", "missing_field", 6),
    7: ("index out of range", "bad_index", 7),
    8: ("bad shape", "bad_shape", 8),
    9: ("size overflow", "size_overflow", 9),
    10: ("data shorter than shape", "data_out_of_bounds", 10),
    11: ("bad memory plan", "bad_plan", 15),
    12: ("op signature mismatch", "bad_op_signature", 11),
    13: ("bad op parameter", "bad_op_parameter", 12),
    14: ("bad quantization", "bad_quantization", 13),
    15: ("bad graph", "bad_graph", 14),
    16: ("run-time index", "runtime_index", 21),
}
ARENA_TOO_SMALL = ("arena_too_small", 20)  # class 11's second code: the caller's arena


@dataclass
class Case:
    cls: int
    name: str
    data: bytes
    shift: int = 0          # load from a buffer this many bytes past a 16-byte boundary
    message: str = ""       # a regex the host's message must match (names the tensor or op)

    @property
    def status(self) -> str:
        return CLASSES[self.cls][1]

    @property
    def code(self) -> int:
        return CLASSES[self.cls][2]


@functools.lru_cache(maxsize=None)
def base_program() -> bytes:
    model, example_inputs, calibration = ZOO["kws"]()
    ep = ember.quantize(model, tuple(example_inputs), calibration)
    return bytes(ember.lower(ep, "cortex-m55").data)


def _op_with_kernel(p: Patcher, kernel_id: int) -> int:
    for i in range(p.count("ops")):
        if p.get(p.op(i), "op", "kernel", "<H") == kernel_id:
            return i
    raise KeyError(kernel_id)


def _outputs_of(p: Patcher, op: int) -> list[int]:
    return p.int_vec(p.op(op), "op", "outputs")


def crafted_cases(base: bytes) -> list[Case]:
    """At least one mutated kws file per class (class 16 is the executor's run-time index check
    on the unmodified file: no Ember kernel reads indices from tensor data yet)."""
    kernels = ember.export.kernel_names()
    conv, dw = kernels.index("conv2d_s8"), kernels.index("depthwise_conv2d_s8")
    cases: list[Case] = []

    def mutate(cls, name, fn, message="", shift=0):
        p = Patcher(base)
        fn(p)
        cases.append(Case(cls, name, bytes(p.buf), shift, message))

    # 1 truncated: shorter than a header; root table offset past the end.
    cases.append(Case(1, "7 bytes", base[:7]))
    mutate(1, "root offset past the end", lambda p: struct.pack_into("<I", p.buf, 0, len(base)))
    # 2 identity: file identifier, schema version.
    mutate(2, "identifier", lambda p: p.buf.__setitem__(slice(4, 8), b"EMB9"))
    mutate(2, "schema version 99", lambda p: p.set(p.root, "program", "version", "<I", 99),
           r"schema version 99")
    # 3 misalignment: a constant's offset off its 16-byte grid (and, on the device only, the file
    # itself at an odd address: the host binding always copies to an aligned buffer).
    x = Patcher(base)
    weight = x.int_vec(x.op(1), "op", "inputs")[1]  # a constant stored at a non-zero offset

    def misalign(p):
        t = p.tensor(weight)
        p.set(t, "tensor", "offset", "<I", p.get(t, "tensor", "offset", "<I") + 4)
    mutate(3, "constant offset +4", misalign, r"tensor \d+.*not aligned")
    cases.append(Case(3, "file at base + 1 (device only)", base, shift=1))
    # 4 structure: the tensors vector claims 2^30 entries; an op table's vtable offset is wild.
    mutate(4, "vector length", lambda p: struct.pack_into(
        "<I", p.buf, fbpatch.deref(p.buf, p.pos(p.root, "program", "tensors")), 1 << 30))
    mutate(4, "vtable offset", lambda p: struct.pack_into("<i", p.buf, p.op(3), -0x100000))
    # 5 unknown kind: a kernel id past kernels.def; a dtype past the enum.
    mutate(5, "kernel id 60000", lambda p: p.set(p.op(_op_with_kernel(p, dw)), "op", "kernel",
                                                 "<H", 60000), r"op \d+: kernel id 60000")
    bias = x.int_vec(x.op(1), "op", "inputs")[2]
    mutate(5, "dtype 9", lambda p: p.set(p.tensor(bias), "tensor", "dtype", "<b", 9),
           r"tensor \d+: dtype 9")
    # 6 missing field: the program's ops vector; an op's outputs (the ops share one vtable).
    mutate(6, "no ops", lambda p: p.drop_field(p.root, "program", "ops"))
    mutate(6, "no op outputs", lambda p: p.drop_field(p.op(2), "op", "outputs"),
           r"op \d+: no operand list")
    # 7 index: an operand index past the tensors; a view of a tensor that does not exist.
    mutate(7, "operand 10000", lambda p: p.set_int(p.op(2), "op", "inputs", 0, 10_000),
           r"op 2: input 0 is 10000")
    mutate(7, "program output -2", lambda p: p.set_int(p.root, "program", "outputs", 0, -2))
    mutate(7, "required operand absent (-1)", lambda p: p.set_int(p.op(1), "op", "inputs", 1, -1),
           r"op 1: input 1 is -1")
    # 8 shape: a negative dim; a conv output one row short (the kernel's own check).
    mutate(8, "dim -1", lambda p: p.set_dim(p.tensor_named("x"), 1, -1),
           r"tensor \d+ 'x': dim 1 is -1")
    mutate(8, "rank 6", lambda p: p.set(p.tensor(p.tensor_named("x")), "tensor", "rank", "<B", 6),
           r"tensor \d+: rank 6 > 5")

    def wrong_channels(p):
        out = _outputs_of(p, 0)[0]
        p.set_dim(out, 3, p.shape(out)[3] - 1)
    mutate(8, "conv output channels", wrong_channels,
           r"op 0 .*: kernel check failed: bad tensor shape")
    # 9 overflow: elements x size past 32 bits; offset + size past 32 bits.
    mutate(9, "dims 2^16 x 2^16", lambda p: (
        p.set_dim(p.tensor_named("x"), 1, 1 << 16), p.set_dim(p.tensor_named("x"), 2, 1 << 16)),
        r"tensor \d+ 'x': byte size overflows")

    def offset_overflow(p):
        t = p.tensor(_outputs_of(p, 1)[0])
        p.set(t, "tensor", "offset", "<I", 0xFFFF_FF00)
    mutate(9, "offset + size", offset_overflow, r"offset \+ size overflows")
    # 10 data size: a constant past the end of constant_data; constant_data cut short.
    mutate(10, "constant offset", lambda p: p.set(p.tensor(weight), "tensor", "offset", "<I",
                                                  0x7FFF_FFF0), r"past constant data")

    def short_constants(p):
        vec = fbpatch.deref(p.buf, p.pos(p.root, "program", "constant_data"))
        struct.pack_into("<I", p.buf, vec, 64)
    mutate(10, "constant_data 64 bytes", short_constants)
    # 11 plan: a region smaller than its buffers; two live buffers at overlapping bytes.
    mutate(11, "region 15000 bytes", lambda p: p.set(p.region(0), "region", "size", "<I", 15000),
           r"past region 0")

    def overlap(p):
        # The last op (softmax, which cannot run in place) writes the program output over its
        # own input: both are live at that op.
        last = p.count("ops") - 1
        a, b = p.int_vec(p.op(last), "op", "inputs")[0], _outputs_of(p, last)[0]
        p.set(p.tensor(b), "tensor", "offset", "<I", p.get(p.tensor(a), "tensor", "offset", "<I"))
    mutate(11, "live buffers overlap", overlap, r"overlaps live tensor \d+ '.*' .* at op 11")
    # 12 op signature: a depthwise op relabelled as add (2 inputs, 12 ints); an op writing its
    # own input.
    mutate(12, "kernel relabelled", lambda p: p.set(p.op(_op_with_kernel(p, dw)), "op", "kernel",
                                                    "<H", kernels.index("add_s8")),
           r"op \d+: \d+ inputs, \d+ outputs, 10 ints, 0 floats do not match kernel")
    mutate(12, "output is input", lambda p: p.set_int(p.op(2), "op", "outputs", 0,
                                                      p.int_vec(p.op(2), "op", "inputs")[0]),
           r"op 2: tensor \d+ is both input 0 and output 0")
    # 13 op parameter: stride 0; a negative padding.
    mutate(13, "stride 0", lambda p: p.set_int(p.op(0), "op", "ints", 0, 0),
           r"op 0 .*kernel check failed: bad op parameter")
    mutate(13, "padding -1", lambda p: p.set_int(p.op(1), "op", "ints", 2, -1))
    # 14 quantization: a negative scale; a zero point outside int8; a per-channel shift of 99.
    mutate(14, "scale -1", lambda p: p.set(p.tensor(p.tensor_named("x")), "tensor", "scale", "<f", -1.0),
           r"tensor \d+: scale not positive")
    mutate(14, "zero point 200", lambda p: p.set(p.tensor(p.tensor_named("x")), "tensor", "zero_point",
                                                 "<i", 200),
           r"zero point 200 outside int8")

    def shift_99(p):
        shift = p.int_vec(p.op(0), "op", "inputs")[4]
        t = p.tensor(shift)
        data, _ = p.vec(p.root, "program", "constant_data")
        struct.pack_into("<i", p.buf, data + p.get(t, "tensor", "offset", "<I"), 99)
    mutate(14, "per-channel shift 99", shift_99, r"op 0 .*bad quantization")
    # 15 graph: an op reads a tensor written only later; a tensor written by two ops.
    mutate(15, "read before write", lambda p: p.set_int(p.op(2), "op", "inputs", 0,
                                                        _outputs_of(p, 5)[0]),
           r"op 2: reads tensor \d+ before any op writes it")
    mutate(15, "written twice", lambda p: p.set_int(p.op(3), "op", "outputs", 0,
                                                    _outputs_of(p, 1)[0]),
           r"op 3: writes tensor \d+, already written")
    return cases


@pytest.fixture(scope="module")
def base() -> bytes:
    return base_program()


@pytest.fixture(scope="module")
def cases(base) -> list[Case]:
    return crafted_cases(base)


def test_every_class_has_its_own_code():
    codes = [c[2] for c in CLASSES.values()] + [ARENA_TOO_SMALL[1]]
    assert len(set(codes)) == len(codes) == 17


def test_base_program_loads_and_runs(base):
    rt = _ember.Runtime(base)
    assert rt.status == "ok", rt.message
    status, outputs, _ = rt.run([b"\0" * (49 * 10)])
    assert status == "ok" and len(outputs) == 1


@pytest.mark.parametrize("cls", sorted(CLASSES))
def test_class_rejected_with_its_code_on_host(cls, base, cases):
    mine = [c for c in cases if c.cls == cls]
    if cls == 16:
        rt = _ember.Runtime(base)
        assert rt.run_op(rt.num_ops) == "runtime_index"
        assert "op 12 out of range" in rt.message
        assert rt.set_input(1, b"") == "runtime_index"
        return
    assert mine, f"no crafted file for class {cls}"
    assert any(not c.shift for c in mine)
    for case in mine:
        if case.shift:
            continue  # the binding copies every file to an aligned buffer: device test only
        assert case.data != base
        rt = _ember.Runtime(case.data)
        assert (rt.status, rt.status_code) == (case.status, case.code), \
            f"class {cls} ({case.name}): {rt.status}: {rt.message}"
        if case.message:
            assert re.search(case.message, rt.message), f"{case.name}: {rt.message!r}"


def test_inspect_reports_the_runtime_verdict(base, tmp_path, capsys):
    from ember.cli import main

    good = tmp_path / "good.emb"
    good.write_bytes(base)
    assert main(["inspect", str(good)]) == 0
    assert "runtime checks: ok for cortex-m55" in capsys.readouterr().out
    assert main(["inspect", "--json", str(good)]) == 0
    assert json.loads(capsys.readouterr().out)["target"] == "cortex-m55"


def _huge_root(base: bytes) -> bytes:
    return struct.pack("<I", 0x7FFFFFF0) + base[4:]


@pytest.mark.parametrize("command", ["inspect", "inspect --json", "run --input {x}", "firmware -o {elf}",
                                     "export-c -o {out}"])
@pytest.mark.parametrize("damage,status", [(lambda b: b[:24], "truncated (1)"),
                                           (lambda b: b[:4] + b"XXXX" + b[8:], "bad_identity (2)"),
                                           (_huge_root, "truncated (1)")])
def test_host_tools_reject_a_malformed_file_in_one_line(base, tmp_path, capsys, command, damage, status):
    """Every host tool loads through the runtime's verifier first: a malformed file gives the
    runtime's code and message on one line of stderr, exit code 1, nothing on stdout, no
    traceback and no file written."""
    from ember.cli import main

    bad = tmp_path / "bad.emb"
    bad.write_bytes(damage(base))
    import numpy as np
    np.save(tmp_path / "x.npy", np.zeros((1, 1, 49, 10), np.float32))
    argv = command.format(x=tmp_path / "x.npy", elf=tmp_path / "fw.elf", out=tmp_path / "model").split()
    assert main(argv[:1] + [str(bad)] + argv[1:]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith(f"ember: {status}: the runtime rejects {bad}: "), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.emb", "x.npy"]


def test_arena_sweep_names_the_bytes_needed(base):
    """Every size from 0 to the plan's size: ArenaTooSmall with the exact bytes needed, then Ok."""
    rt = _ember.Runtime(base)
    need = rt.region_sizes()[0]
    for size in range(0, need):
        assert rt.rebind([size]) == ARENA_TOO_SMALL[0], size
        assert rt.message.endswith(f"has {size} bytes, needs {need}"), rt.message
    assert rt.rebind([need]) == "ok"
    status, _, _ = rt.run([b"\0" * 490])
    assert status == "ok"


def test_names_from_the_file_are_escaped_in_messages(base):
    """A tensor name is the file's bytes: a message quoting one shows bytes outside printable
    ASCII as \\xNN (a fuzzed file once carried 0x82, which is not UTF-8)."""
    p = Patcher(base)
    x = p.tensor_named("x")
    start, _ = p.vec(p.root, "program", "tensor_names")
    at = start + sum(len(p.name(i)) + 1 for i in range(x))
    p.buf[at:at + 1] = b"\x82"  # "x" -> 0x82; the name keeps its length and NUL
    p.set_dim(x, 1, -1)
    rt = _ember.Runtime(bytes(p.buf))
    assert rt.status == "bad_shape"
    assert re.search(r"tensor \d+ '\\x82': dim 1 is -1", rt.message), rt.message
    info = json.loads(_ember.inspect_json(bytes(p.buf)))  # ember inspect shows it the same way
    assert info["inputs"][0]["name"] == "\\x82"


def _bump_folded_bias(base: bytes, op: int) -> bytes:
    """`base` with the first folded bias (input 5: bias - input_zp * sum w) of `op` off by one."""
    p = Patcher(base)
    inputs = p.int_vec(p.op(op), "op", "inputs")
    assert len(inputs) > 5 and inputs[5] >= 0, "the cortex-m55 program carries folded biases"
    data, _ = p.vec(p.root, "program", "constant_data")
    at = data + p.get(p.tensor(inputs[5]), "tensor", "offset", "<I")
    struct.pack_into("<i", p.buf, at, struct.unpack_from("<i", p.buf, at)[0] + 1)
    return bytes(p.buf)


@pytest.mark.parametrize("kernel", ["conv2d_s8", "depthwise_conv2d_s8", "fully_connected_s8"])
def test_wrong_folded_bias_rejected_by_host_tools(kernel, base):
    """The device trusts the folded bias (it decides the numbers, not the memory touched); the
    host runtime recomputes it from the weights and names the op whose bias is wrong."""
    p = Patcher(base)
    op = _op_with_kernel(p, ember.export.kernel_names().index(kernel))
    rt = _ember.Runtime(_bump_folded_bias(base, op))
    assert (rt.status, rt.status_code) == CLASSES[14][1:], rt.message
    assert re.search(rf"op {op} .*kernel check failed: bad quantization", rt.message), rt.message
    with pytest.raises(ember.program.ProgramError, match="bad_quantization"):
        ember.Program(_bump_folded_bias(base, op))  # what Program.run runs


def test_in_place_plan_loads_and_its_distance_is_enforced():
    """kws' smallest plan runs its convolutions in place, depthwise ones bottom-up (above their
    input) and pointwise ones top-down (below it); the runtime's plan check accepts the plan as
    compiled and rejects each kind's output moved to 16 bytes from its dying input."""
    model, example_inputs, calibration = ZOO["kws"]()
    ep = ember.quantize(model, tuple(example_inputs), calibration)
    program = ember.lower(ep, "cortex-m55", plan="smallest")
    data = bytes(program.data)
    assert _ember.Runtime(data).status == "ok"
    info = program.inspect()
    buffers = {x["tensor"]: x for x in info["memory"]["buffers"]}
    seen = set()
    for op in info["ops"]:
        src, dst = buffers.get(op["input_ids"][0]), buffers[op["output_ids"][0]]
        if (op["kernel"] not in ("conv2d_s8", "depthwise_conv2d_s8") or not src
                or not (dst["offset"] < src["offset"] + src["bytes"] and src["offset"] < dst["offset"] + dst["bytes"])):
            continue
        up = op["rows_bottom_up"]
        assert up == (dst["offset"] > src["offset"])
        if up in seen or dst["offset"] == 0:  # an offset of 0 is not stored, so it cannot be patched
            continue
        seen.add(up)
        p = Patcher(data)
        p.set(p.tensor(op["output_ids"][0]), "tensor", "offset", "<I", src["offset"] + (16 if up else -16))
        rt = _ember.Runtime(bytes(p.buf))
        assert (rt.status, rt.status_code) == CLASSES[11][1:], rt.message
        assert f"{'bottom-up' if up else 'row-order'} in place needs it" in rt.message, rt.message
    assert seen == {False, True}, "kws' smallest plan should run convolutions in place both ways"


QEMU_TARGET = "cortex-m55"


@pytest.mark.device
def test_classes_rejected_with_the_same_codes_on_cortex_m(base, cases, tmp_path):
    """The same crafted files on an emulated Cortex-M55 (mps3-an547): each load prints its
    class's code, nothing faults; a coarse arena sweep names the bytes needed; the executor's
    run-time index checks answer RuntimeIndex."""
    need = _ember.Runtime(base).region_sizes()[0]
    step = 997  # odd, so the sweep also hits sizes that are no multiple of 16
    elf = build_load_check_firmware(base, [(c.data, c.shift) for c in cases], QEMU_TARGET,
                                    tmp_path / "load_check.elf", arena_bytes=need,
                                    sweep_step=step)
    result = run_qemu(elf, QEMU_TARGET, timeout=300)
    assert result.status == "pass", result.describe() + "\n" + result.stdout[-3000:]
    lines = result.stdout.splitlines()
    loads = {}
    sweep = []
    for k, line in enumerate(lines):
        if line.startswith("ember-fw: case "):
            kv = dict(w.split("=") for w in line.split()[2:])
            loads[int(kv["index"])] = (int(kv["load"]), int(kv["run"]))
        elif line.startswith("ember-fw: arena "):
            kv = dict(w.split("=") for w in line.split()[2:])
            sweep.append((int(kv["bytes"]), int(kv["init"]), lines[k - 1]))
        elif line.startswith("ember-fw: runtime-index "):
            kv = dict(w.split("=") for w in line.split()[2:])
            assert int(kv["run_op"]) == int(kv["set_input"]) == CLASSES[16][2]
    assert len(loads) == len(cases)
    for i, case in enumerate(cases):
        assert loads[i] == (case.code, 0), f"class {case.cls} ({case.name}): device says {loads[i]}"
    assert {c.cls for c in cases} | {16} == set(CLASSES)
    sizes = [b for b, _, _ in sweep]
    assert sizes[0] == 0 and sizes[-1] == need and len(sizes) == (need + step - 1) // step + 1
    for size, code, message in sweep[:-1]:
        assert code == ARENA_TOO_SMALL[1], (size, code)
        assert message.endswith(f"has {size} bytes, needs {need}"), message
    assert sweep[-1][1] == 0
