"""Shared helpers for the Python tests: compile a module with Ember and compare it with
PyTorch's own quantized reference (the converted PT2E graph, float math between q/dq)."""

from __future__ import annotations

import os
import warnings

import pytest
import torch
from torch import nn

os.environ.setdefault("TQDM_DISABLE", "1")
warnings.filterwarnings("ignore")


def quanta_apart(program, ep, inputs) -> int:
    """Largest difference, in output quanta, between Ember's host run and PyTorch's reference
    for one input tuple. Outputs are compared as int8 codes."""
    ref = ep.module()(*inputs)
    refs = ref if isinstance(ref, (list, tuple)) else [ref]
    got = program.run(*inputs, dequantize=False)
    gots = got if isinstance(got, list) else [got]
    worst = 0
    for r, g, info in zip(refs, gots, program.outputs):
        if info["dtype"] == "int8":
            r_q = torch.round(r / info["scale"]) + info["zero_point"]
            worst = max(worst, int((g.float() - r_q).abs().max()))
        else:
            worst = max(worst, float((g - r).abs().max()))
    return worst


class Lambda(nn.Module):
    """A module that calls fn: a small model from a function, for the op tests."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def pytest_addoption(parser):
    parser.addoption("--targets", default="", help="comma-separated targets: tests parametrized by "
                     "target run only for these (tools/test.sh --targets)")


def pytest_collection_modifyitems(config, items):
    wanted = {t for t in config.getoption("--targets").split(",") if t}
    if not wanted:
        return
    from ember import _ember

    known = set(_ember.target_names())
    keep, drop = [], []
    for item in items:
        params = item.callspec.params.values() if hasattr(item, "callspec") else ()
        targets = {v for v in params if isinstance(v, str) and v in known}
        (drop if targets and not targets & wanted else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session")
def torch_threads():
    torch.set_num_threads(1)
