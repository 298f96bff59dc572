"""Calibration: run representative samples through a prepared (observed) PT2E module."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

import torch
from tqdm.auto import tqdm

__all__ = ["calibrate"]


def _call(module: torch.nn.Module, sample: Any) -> Any:
    # A tuple/list is the positional inputs of one call; a dict is keyword inputs;
    # anything else (typically a tensor) is the single input.
    if isinstance(sample, (tuple, list)):
        return module(*sample)
    if isinstance(sample, dict):
        return module(**sample)
    return module(sample)


def calibrate(
    prepared_module: torch.nn.Module,
    calibration: Iterable,
    desc: Optional[str] = "calibrating",
    progress: bool = True,
    check: Optional[Callable[[int, Any], Any]] = None,
) -> int:
    """Run every sample of ``calibration`` through ``prepared_module`` under no_grad.

    Shows a tqdm bar (total from ``len()`` when the iterable has one). ``check(index, sample)``,
    when given, sees each sample first and returns the one to run (``quantize`` checks shapes,
    dtypes and values there). Returns the number of samples seen so callers can detect an empty
    calibration set.
    """
    try:
        total = len(calibration)  # type: ignore[arg-type]
    except TypeError:
        total = None  # generators and other unsized iterables
    count = 0
    with torch.no_grad():
        # disable=None hides the bar when stderr is not a terminal (CI logs, pipes).
        for sample in tqdm(calibration, total=total, desc=desc, disable=None if progress else True,
                           leave=False):
            _call(prepared_module, check(count, sample) if check else sample)
            count += 1
    return count
