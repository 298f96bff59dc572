"""Ember model zoo: the MLPerf Tiny models and a small trained digits CNN, in PyTorch.

Each zoo entry is a no-argument callable returning `(model, example_inputs, calibration)`:
`model` is an `nn.Module` in eval mode with deterministic seeded weights, `example_inputs` a
1-tuple holding one batch-1 input tensor, and `calibration` a list of such input tuples.
Note: the entry functions shadow their submodules as attributes (`ember.models.kws` is the
function); import from the submodule itself for the rest, e.g.
`from ember.models.digits import DigitsCNN, accuracy` or `from ember.models.kws import DSCNN`.
`MLPERF_TINY` names the five MLPerf Tiny entries; `SUITE` the real-model suite (architectures as
torchvision, timm and tutorials write them, ``suite.py``); `ZOO` holds them all, the trained
`digits` model and a compact `mobilenet_v2` at 64x64.
See docs/models.md.
"""
from .ad import ad
from .digits import digits, train_digits
from .ic import ic
from .kws import kws
from .mobilenet_v2 import mobilenet_v2
from .sww import sww
from .vww import vww
from . import stats
from .suite import ENTRIES as _SUITE_ENTRIES, SUITE

MLPERF_TINY = ("kws", "vww", "ic", "ad", "sww")
ZOO = {"kws": kws, "vww": vww, "ic": ic, "ad": ad, "sww": sww, "digits": digits,
       "mobilenet_v2": mobilenet_v2, **_SUITE_ENTRIES}

__all__ = ["ZOO", "MLPERF_TINY", "SUITE", "entry", "kws", "vww", "ic", "ad", "sww", "digits", "mobilenet_v2", "train_digits", "stats"]


def entry(spec: str):
    """A zoo entry by name, or MODULE:NAME (a function returning (model, example_inputs,
    calibration)); MODULE is found from the current folder too, as `python -m` finds it."""
    import importlib
    import os
    import sys

    if spec in ZOO:
        return ZOO[spec]
    module_name, _, name = spec.partition(":")
    if not name:
        raise ValueError(f"{spec!r} is neither a zoo model ({', '.join(ZOO)}) nor MODULE:NAME")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return getattr(importlib.import_module(module_name), name)
    except ImportError as e:
        raise ValueError(f"cannot import {module_name!r}: {e}") from None
    except AttributeError:
        raise ValueError(f"module {module_name!r} has no {name!r}") from None
