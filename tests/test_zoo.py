"""The five MLPerf Tiny models end to end on the host: compiled for the Cortex-M55, run by the
device runtime, compared with PyTorch's converted (quantized reference) graph on 100 unseen
inputs each.

Tolerances, against the converted graph evaluated in float64 (tests/reference.py): the same top
class on at least 99 of 100 inputs; at most 2 quanta apart on at least 90 of 100 inputs. The exceptions are
not Ember's arithmetic, which is exact: a value within ~1e-7 of a rounding boundary flips with
the float32 scale of a bias, and the seeded random weights of the deeper models (vww) amplify
one flipped quantum to several at the softmax. The printed figures show both references."""

from __future__ import annotations

import importlib

import pytest
import torch

import ember
from ember.models import MLPERF_TINY, ZOO
from reference import run_float64

pytestmark = pytest.mark.models  # whole models: the models tier (tools/test.sh --tier models)

SAMPLES = 100
CLASSIFIERS = {"kws", "vww", "ic", "sww"}


@pytest.fixture(scope="module", params=MLPERF_TINY)
def compiled(request):
    name = request.param
    model, example_inputs, calibration = ZOO[name]()
    ep = ember.quantize(model, example_inputs, calibration)
    return name, ep, ember.lower(ep, target="cortex-m55")


def test_matches_pytorch_quantized_reference(compiled):
    name, ep, program = compiled
    module = importlib.import_module(f"ember.models.{name}")
    inputs = module.calibration_data(n=SAMPLES, seed=1234)  # unseen by calibration
    reference = ep.module()
    out = program.outputs[0]
    quanta = lambda y: torch.round(y.double() / out["scale"]) + out["zero_point"]  # noqa: E731
    d32, d64, same_top, same_top32 = [], [], 0, 0
    with torch.no_grad():
        for (x,) in inputs:
            got = program.run(x, dequantize=False).double()
            ref32, ref64 = quanta(reference(x)), quanta(run_float64(ep, x))
            d32.append(int((got - ref32).abs().max()))
            d64.append(int((got - ref64).abs().max()))
            same_top += int(got.argmax() == ref64.argmax())
            same_top32 += int(got.argmax() == ref32.argmax())
    within = sum(d <= 2 for d in d64)
    print(f"{name}: vs float64 reference max {max(d64)} quanta, exact on {d64.count(0)}, within 2 on "
          f"{within}/{SAMPLES}; vs float32 eager max {max(d32)}, exact on {d32.count(0)}; "
          f"same top class on {same_top}/{SAMPLES} (float32 eager: {same_top32})")
    assert within >= 90
    if name in CLASSIFIERS:
        assert same_top >= 99


def test_memory_plan_is_reported(compiled):
    name, _, program = compiled
    memory = program.inspect()["memory"]
    arena = sum(r["bytes"] for r in memory["regions"])
    print(f"{name}: planned {arena} B, lower bound {memory['lower_bound_bytes']} B, "
          f"peak at {memory['peak_op']}")
    assert memory["lower_bound_bytes"] > 0
    assert memory["lower_bound_bytes"] <= arena
    assert memory["peak_op"]
