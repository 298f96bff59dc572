"""Ember: PyTorch models on Arm Cortex-M microcontrollers, without leaving PyTorch.

    program = ember.compile(model, example_inputs, calibration=data, target="cortex-m55")
    program.save("model.emb")
    program.run(x)        # the device runtime, on the host

or step by step: ``ember.quantize`` (export, PT2E quantize with EmberQuantizer, calibrate,
re-export), then ``ember.lower`` (C++ compiler) on the exported program.
"""

from __future__ import annotations

import importlib

from ember import _ember

__all__ = ["compile", "lower", "quantize", "Program", "ProgramError", "CompileError",
           "FrontendError", "EmberQuantizer", "targets"]

DEFAULT_TARGET = "cortex-m55"


def targets() -> list[str]:
    return list(_ember.target_names())


# The rest imports torch, on first use: `ember --help` and the tools that read only the
# project's tables start without it. ember.api comes first (it quiets torchao's import).
_LAZY = {"compile": "ember.api", "lower": "ember.api", "CompileError": "ember.api",
         "quantize": "ember.quantizer", "EmberQuantizer": "ember.quantizer",
         "Program": "ember.program", "ProgramError": "ember.program",
         "FrontendError": "ember.frontend", "export": "ember.frontend", "to_graph": "ember.frontend"}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'ember' has no attribute {name!r}")
    importlib.import_module("ember.api")
    value = globals()[name] = getattr(importlib.import_module(_LAZY[name]), name)
    return value
