"""The Ethos-U partitions of the MLPerf Tiny models and three torchvision models (ember.npu), written as TOSA (ember.tosa) and
compiled by Vela (ember.vela, the pinned ethos-u-vela) for an Ethos-U55-128 and an
Ethos-U85-256. Vela's figures are its estimates; no NPU runs here: where numerics are compared,
the TOSA reference model stands in for the NPU."""

from __future__ import annotations

import functools
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import tosa_reference_model
from conftest import quanta_apart
from reference import run_float64

import ember
from ember import _ember
from ember.api import to_graph
from ember.models import ZOO
from ember.npu import partition, subgraph
from ember.npu_reference import reference
from ember.tosa import TosaError, emit
from ember.vela import VelaError, compile_tosa

ROOT = Path(__file__).resolve().parents[1]
ACCELERATORS = ("ethos-u55-128", "ethos-u85-256")
# The ops each model keeps on the CPU, and why (everything else is on the NPU).
CPU_OPS = {"kws": ["softmax"], "vww": ["softmax"], "ic": ["softmax"], "ad": [], "sww": ["softmax"],
           # torchvision's MobileNetV2 (0.35, 96x96, in-place ReLU6), MobileNetV3-small, ShuffleNetV2
           "mobilenet_v2_96": [], "mobilenet_v3_small": [], "shufflenet_v2": [],
           # MobileNetV2 followed by local response normalization, which runs in float in the middle
           "mobilenet_v2_lrn": ["dequantize", "dequantize", "avg_pool3d", "reshape", "quantize", "dequantize", "div",
                                "quantize"]}
PARTITIONS = {"mobilenet_v2_lrn": 3}  # the others: 1
# The host run of these is compared with PyTorch's to 2 quanta; mobilenet_v3_small's differs from
# Ember's own CPU run by up to 18 quanta (measured: 10, 18 and 15 on three inputs, the same top
# class), while each op's TOSA equals Ember's kernels except on rounding ties (tests/test_tosa.py;
# docs/npu.md gives the ties counted on one input).
WITHIN_2_QUANTA = {"kws", "vww", "ic", "ad", "sww", "mobilenet_v2_96", "shufflenet_v2", "mobilenet_v2_lrn"}


def _compiled(name: str):
    m, example, calibration = ZOO[name]()
    ep = ember.quantize(m, example, calibration[:8])
    return name, _ember.lower_to_ir(to_graph(ep), "cortex-m55", "cleanup"), ember.lower(ep, "cortex-m55"), ep, calibration


@pytest.fixture(scope="module", params=sorted(CPU_OPS))
def model(request):
    return _compiled(request.param)


@pytest.mark.models
def test_partitions_take_every_op_the_npu_supports(model):
    name, ir, *_ = model
    plan = partition(ir, "ethos-u55-128")
    assert [ir["ops"][i]["kind"] for i in sorted(plan.cpu)] == CPU_OPS[name]
    assert all(plan.cpu[i].endswith(("has no TOSA form in Ember", "is not int8")) for i in plan.cpu)
    on_npu = sorted(i for p in plan.partitions for i in p)
    assert on_npu == sorted(set(range(len(ir["ops"]))) - set(plan.cpu))
    # Partitions and CPU ops in some order where every tensor is written before it is read.
    producer = {t: i for i, op in enumerate(ir["ops"]) for t in op["outputs"]}
    unit = {i: ("npu", k) for k, p in enumerate(plan.partitions) for i in p} | {i: ("cpu", i) for i in plan.cpu}
    needs = {u: set() for u in unit.values()}
    for i, op in enumerate(ir["ops"]):
        for t in op["inputs"]:
            if t in producer and unit[producer[t]] != unit[i]:
                needs[unit[i]].add(unit[producer[t]])
    done: set = set()
    while len(done) < len(needs):
        ready = [u for u in needs if u not in done and needs[u] <= done]
        assert ready, "the partitions depend on each other in a cycle"
        done.update(ready)


@pytest.mark.models
@pytest.mark.parametrize("accelerator", ACCELERATORS)
def test_partitions_compile_with_vela(model, accelerator):
    name, ir, *_ = model
    for ops in partition(ir, accelerator).partitions:
        graph = subgraph(ir, ops)
        result = compile_tosa(emit(graph), accelerator)
        assert result.command_stream[:4] == b"COP1" and len(result.weights) > 0
        assert len(result.inputs) == len(graph["inputs"]) and len(result.outputs) == len(graph["outputs"])
        assert all(p.offset + int(np.prod(p.shape)) * p.element_size <= result.scratch_size
                   for p in result.inputs + result.outputs)
        assert result.estimate["cycles_npu"] > 0
        print(f"{name} on {accelerator}: {len(ops)} ops, Vela's estimate {result.estimate['cycles_npu']:,} NPU cycles, "
              f"scratch {result.scratch_size:,} B, weights {len(result.weights):,} B")


@pytest.mark.models
def test_a_model_wholly_on_the_npu_matches_the_portable_kernels():
    """ad (the autoencoder) is one partition: the reference model's outputs for it are Ember's
    own on 20 inputs, or at most two quanta away where rounding ties flipped (counted)."""
    name, ir, program, *_ = _compiled("ad")
    assert partition(ir, "ethos-u55-128").partitions == [list(range(len(ir["ops"])))]
    tosa = emit(ir)
    rng = np.random.default_rng(0)
    differing = 0
    for _ in range(20):
        x = rng.integers(-128, 128, program.inputs[0]["shape"]).astype(np.int8)
        (ours,) = program.run_raw(x)
        (theirs,), status = tosa_reference_model.run(tosa, [x])
        assert status == tosa_reference_model.GraphStatus.TOSA_VALID
        diff = np.abs(theirs.astype(int).reshape(-1) - ours.astype(int).reshape(-1))
        assert diff.max() <= 2, diff.max()
        differing += int((diff > 0).sum())
    print(f"{name}: {differing} outputs differ (ties up the chain)")


def test_missing_packages_are_one_clear_error(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda *a, **k: None)
    with pytest.raises(VelaError, match="pip install ethos-u-vela"):
        compile_tosa(b"", "ethos-u55-128")
    with pytest.raises(ember.CompileError, match="pip install ethos-u-vela"):  # not a CPU fallback
        ember.lower(_mixed()[0], "cortex-m55+ethos-u55-128")
    monkeypatch.setitem(sys.modules, "tosa_serializer", None)
    with pytest.raises(TosaError, match="pip install tosa-tools"):
        emit({"tensors": [], "ops": [], "inputs": [], "outputs": []})


def test_vela_refusal_names_the_accelerator_and_the_reason():
    with pytest.raises(VelaError, match=r"Vela \(ethos-u55-128\) refused the graph"):
        compile_tosa(b"not a TOSA file", "ethos-u55-128")
    with pytest.raises(VelaError, match="unknown accelerator"):
        compile_tosa(b"", "ethos-u99")


def _kernels(program) -> list[str]:
    return [op["kernel"] for op in program.inspect()["ops"]]


@pytest.mark.models
@pytest.mark.parametrize("target", ["cortex-m55+ethos-u55-128", "cortex-m85+ethos-u85-256"])
def test_npu_programs_run_on_the_host_as_pytorch_does(model, target):
    """Compiled for an NPU target, every op the partitioner gives the NPU is inside one ethos_u op,
    the CPU ops say why they stay, and the host run (the TOSA reference model standing in for the
    NPU) is within 2 quanta of PyTorch's quantized reference (its graph in float64, as
    tests/test_real_models.py) with the same top-1."""
    name, _, _, ep, calibration = model
    program = ember.lower(ep, target)
    assert _kernels(program).count("ethos_u") == PARTITIONS.get(name, 1)
    cpu = [op for op in program.inspect()["ops"] if op["kernel"] != "ethos_u"]
    assert len(cpu) == len([k for k in CPU_OPS[name] if k != "reshape"])  # a reshape is a view
    assert all(op["kernel_note"].startswith("CPU, not NPU") for op in cpu)
    out = program.outputs[0]
    for x in calibration[:3]:
        x = x[0] if isinstance(x, (tuple, list)) else x
        # The converted graph in float64 (tests/reference.py), as tests/test_real_models.py compares.
        ref = torch.round(run_float64(ep, x).double() / out["scale"]) + out["zero_point"]
        got = program.run(x, dequantize=False).double()
        print(f"{name} on {target}: {int((got - ref).abs().max())} quanta from PyTorch's reference")
        assert int((got - ref).abs().max()) <= 2 or name not in WITHIN_2_QUANTA
        if name != "ad":  # the autoencoder has no classes
            assert int(got.argmax()) == int(ref.argmax())


class _Mixed(torch.nn.Module):
    """conv (NPU), softmax over channels (CPU), conv (NPU): two partitions around a CPU op."""

    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x):
        return self.b(torch.softmax(self.a(x), dim=1))


@functools.lru_cache(maxsize=None)
def _mixed():
    torch.manual_seed(0)
    calibration = [torch.randn(1, 3, 8, 8) for _ in range(8)]
    ep = ember.quantize(_Mixed().eval(), calibration[0], calibration)
    return ep, calibration, ember.lower(ep, "cortex-m55+ethos-u55-128")


@pytest.mark.models
@pytest.mark.parametrize("status, at, word", [
    ("npu_payload", 0, 0x32504F43),             # "COP2"
    ("npu_config", 8, 0x20000118),              # the configuration word of an Ethos-U85-256
    ("npu_payload", 16, 3),                      # a register-dump action in place of a NOP
    ("npu_payload", 28, 2 | 0xFFFF << 16),       # a command stream running past the container
    ("npu_payload", 4, 5),                       # no configuration
])
def test_malformed_npu_payloads_are_refused_at_load(status, at, word):
    """The ethos_u op's load check (kernels/portable/ethos_u.h) on Vela's container in a compiled
    file: each damage is refused with its own code, before anything runs."""
    data = bytearray(_mixed()[2].data)
    start = data.find(b"COP1")
    assert start > 0 and start % 16 == 0
    data[start + at:start + at + 4] = word.to_bytes(4, "little")
    with pytest.raises(ember.ProgramError) as e:
        ember.Program(bytes(data))
    assert e.value.status == status


@pytest.mark.models
def test_cpu_ops_between_partitions_read_and_write_the_npu_scratch_in_place():
    """The softmax between two partitions reads the first's output inside its scratch and writes
    straight into the second's, at Vela's offsets: no copies. Without a reference model (a build
    without an NPU), running the program is NpuUnavailable, not a crash."""
    ep, calibration, program = _mixed()
    ops = program.inspect()["ops"]
    assert _kernels(program) == ["ethos_u", "softmax_s8", "ethos_u"]
    buffers = {b["tensor"]: b for b in program.inspect()["memory"]["buffers"]}
    first, second = ops[0], ops[2]
    scratch1, scratch2 = buffers[first["output_ids"][0]], buffers[second["output_ids"][0]]
    softmax_in, softmax_out = buffers[ops[1]["input_ids"][0]], buffers[ops[1]["output_ids"][0]]
    assert softmax_in["view_of"] == first["output_ids"][0]
    assert softmax_in["offset"] == scratch1["offset"] + first["ints"][-1]      # the first's output offset
    assert softmax_out["offset"] == scratch2["offset"] + second["ints"][1]     # the second's input offset
    assert {scratch1["region"], scratch2["region"], softmax_out["region"]} == {"SRAM"}
    for x in calibration[:3]:
        assert quanta_apart(program, ep, (x,)) <= 2
    with reference(None), pytest.raises(ember.ProgramError, match="npu_unavailable|no NPU"):
        program.run(calibration[0])


@pytest.mark.device
@pytest.mark.parametrize("name, tamper", [("mixed", False), ("mixed", True), ("mobilenet_v2_lrn", False)])
def test_npu_program_on_the_m55_board_matches_the_host(tmp_path, monkeypatch, name, tamper):
    """NPU programs on QEMU's mps3-an547 (a Cortex-M55, no NPU): the firmware's ember_npu_invoke
    (targets/firmware/npu_stand_in.c) checks what the runtime passes on the device (the COP1
    command stream, 16-byte aligned base addresses, the scratch's size, the offsets, and each
    input's bytes in place in the scratch, written there by the ops before) against the host's
    calls, then writes the outputs the host computed: the NPU's arithmetic here is the TOSA
    reference model's. The ops between the partitions (a softmax; MobileNetV2's local response
    normalization, in float) run on the M55 and the outputs must equal the host's bit for bit.
    Tampered with (one input byte the host saw changed), the same firmware must fail the call."""
    from ember import firmware
    from ember.qemu import run_qemu

    if tamper:
        real = firmware.host_outputs

        def changed(program, inputs):
            expected, calls = real(program, inputs)
            scratch, ins, outs, inputs0, outputs = calls[-1]
            inputs0 = [bytes([inputs0[0][0] ^ 1]) + inputs0[0][1:]] + inputs0[1:]
            return expected, calls[:-1] + [(scratch, ins, outs, inputs0, outputs)]
        monkeypatch.setattr(firmware, "host_outputs", changed)
    if name == "mixed":
        program = _mixed()[2]
    else:
        model, example, calibration = ZOO[name]()
        program = ember.lower(ember.quantize(model, tuple(example), calibration[:8]), "cortex-m55+ethos-u55-128")
        assert [op["kernel"] for op in program.inspect()["ops"]].count("ethos_u") == PARTITIONS[name]
    fw = firmware.build_firmware(program, "cortex-m55+ethos-u55-128", tmp_path / "fw.elf", num_inputs=2)
    result = run_qemu(fw.elf, timeout=300)
    if tamper:
        assert result.status != "pass"
        assert "ember-npu: call 3: input bytes in the scratch differ from the host's" in result.stdout
    else:
        assert result.status == "pass", result.stdout[-2000:]
        assert "mismatches=0" in result.stdout and "ember-npu:" not in result.stdout


@pytest.mark.models
def test_a_reference_model_crash_fails_the_run_not_the_process(monkeypatch):
    """The TOSA reference model runs in a worker (ember.npu_reference): a worker that dies
    mid-run (as the model does on some damaged graphs that pass its flatbuffer check) fails that
    run with one clear error, and the next run starts a new worker."""
    import subprocess

    from ember import npu_reference

    _, calibration, program = _mixed()
    expected = program.run(calibration[0])
    dying = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.buffer.read(8)"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    monkeypatch.setattr(npu_reference, "_worker", dying)
    with pytest.raises(ember.ProgramError, match="the TOSA reference model crashed"):
        program.run(calibration[0])
    assert torch.equal(program.run(calibration[0]), expected)


@pytest.mark.models
def test_without_the_reference_the_file_is_smaller_and_host_runs_say_why():
    """npu_reference=False (ember compile --no-npu-reference) leaves the partitions' TOSA graphs
    out of the file; the device needs none, and a host run stops at the first partition."""
    ep, calibration, program = _mixed()
    lean = ember.lower(ep, "cortex-m55+ethos-u55-128", npu_reference=False)
    assert len(lean.data) < len(program.data)
    assert [op["kernel"] for op in lean.inspect()["ops"]] == _kernels(program)
    with pytest.raises(ember.ProgramError, match="npu_unavailable.*without its NPU partitions' TOSA graphs"):
        lean.run(calibration[0])


@pytest.mark.models
def test_a_partition_vela_refuses_stays_on_the_cpu(monkeypatch):
    """The NPU is never all or nothing: a partition Vela refuses (here the first, refused by a
    stand-in for Vela that raises as Vela's refusal does) runs on the CPU kernels, each of its
    ops noting why; the other partition stays on the NPU and the program's results are the same."""
    from ember import vela

    ep, calibration, program = _mixed()
    real, calls = vela.compile_tosa, []

    def refuse_first(tosa, accelerator):
        calls.append(accelerator)
        if len(calls) == 1:
            raise VelaError(f"Vela ({accelerator}) refused the graph: Validation error")
        return real(tosa, accelerator)
    monkeypatch.setattr(vela, "compile_tosa", refuse_first)
    mixed = ember.lower(ep, "cortex-m55+ethos-u55-128")
    ops = mixed.inspect()["ops"]
    assert [op["kernel"] for op in ops] == ["conv2d_s8", "softmax_s8", "ethos_u"]
    assert ops[0]["kernel_note"].startswith("CPU, not NPU (its partition was refused: Vela (ethos-u55-128) refused")
    for x in calibration[:3]:
        assert quanta_apart(mixed, ep, (x,)) <= 2


@pytest.mark.device
def test_a_bundle_with_npu_partitions_carries_the_driver_glue(tmp_path):
    """`ember export-c --bundle` of an NPU program: the library builds with arm-none-eabi-gcc alone,
    and the bundle carries the Ethos-U driver glue, which cross-compiles against the driver API's
    declarations (targets/npu/testing/ethosu_driver.h stands in for the driver's header)."""
    import subprocess

    from ember.bundle import export_bundle

    bundle = export_bundle(_mixed()[2], tmp_path / "bundle")
    glue = bundle / "ember" / "targets" / "npu" / "ethosu_glue.c"
    assert glue.is_file() and "ethosu_glue.c" in (bundle / "Makefile").read_text()
    subprocess.run(["make", "-C", str(bundle), "-j2", "all"], check=True, capture_output=True)
    testing = ROOT / "targets" / "npu" / "testing"
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard", "-std=c99", "-Wall",
                    "-Wextra", "-Werror", f"-I{bundle}", f"-I{testing}", "-c", str(glue), "-o",
                    str(tmp_path / "glue.o")], check=True)
