"""The Ethos-U partitions of the MLPerf Tiny models and three torchvision models (ember.npu), written as TOSA (ember.tosa) and
compiled by Vela (ember.vela, the pinned ethos-u-vela) for an Ethos-U55-128 and an
Ethos-U85-256. Vela's figures are its estimates; no NPU runs here: where numerics are compared,
the TOSA reference model stands in for the NPU."""

from __future__ import annotations

import shutil
import sys

import numpy as np
import pytest
import tosa_reference_model

import ember
from ember import _ember
from ember.api import to_graph
from ember.models import ZOO
from ember.npu import partition, subgraph
from ember.tosa import TosaError, emit
from ember.vela import VelaError, compile_tosa

ACCELERATORS = ("ethos-u55-128", "ethos-u85-256")
# The ops each model keeps on the CPU, and why (everything else is on the NPU).
CPU_OPS = {"kws": ["softmax"], "vww": ["softmax"], "ic": ["softmax"], "ad": [], "sww": ["softmax"],
           # torchvision's MobileNetV2 (0.35, 96x96, in-place ReLU6), MobileNetV3-small, ShuffleNetV2
           "mobilenet_v2_96": [], "mobilenet_v3_small": [], "shufflenet_v2": []}


def _compiled(name: str):
    m, example, calibration = ZOO[name]()
    ep = ember.quantize(m, example, calibration[:8])
    return name, _ember.lower_to_ir(to_graph(ep), "cortex-m55", "cleanup"), ember.lower(ep, "cortex-m55")


@pytest.fixture(scope="module", params=sorted(CPU_OPS))
def model(request):
    return _compiled(request.param)


@pytest.mark.models
def test_partitions_take_every_op_the_npu_supports(model):
    name, ir, _ = model
    plan = partition(ir, "ethos-u55-128")
    assert [ir["ops"][i]["kind"] for i in sorted(plan.cpu)] == CPU_OPS[name]
    assert all(plan.cpu[i].endswith("has no TOSA form in Ember") for i in plan.cpu)
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
    name, ir, _ = model
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
    name, ir, program = _compiled("ad")
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
    monkeypatch.setitem(sys.modules, "tosa_serializer", None)
    with pytest.raises(TosaError, match="pip install tosa-tools"):
        emit({"tensors": [], "ops": [], "inputs": [], "outputs": []})


def test_vela_refusal_names_the_accelerator_and_the_reason():
    with pytest.raises(VelaError, match=r"Vela \(ethos-u55-128\) refused the graph"):
        compile_tosa(b"not a TOSA file", "ethos-u55-128")
    with pytest.raises(VelaError, match="unknown accelerator"):
        compile_tosa(b"", "ethos-u99")
