"""Checks on what the user hands the front end: the model's weights, its example inputs and the
calibration batches.

Each problem found here would otherwise surface later as an AssertionError or TypeError from inside
torch or torchao, or not at all (a program that quantizes everything with scale 1). Each check
raises a one-line ``FrontendError`` naming the parameter, the input, the calibration batch or the
op at fault, or warns where compiling is still right.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, Callable, Sequence

import torch

from ember.frontend import FrontendError, source_of, warn


def input_names(model: torch.nn.Module, count: int) -> list[str]:
    """The names torch.export gives the first `count` positional inputs of ``model.forward``
    (``x``, or ``xs_0``, ``xs_1`` for ``*xs``), so messages match ``Program.inputs``."""
    names: list[str] = []
    try:
        params = inspect.signature(model.forward).parameters.values()
    except (TypeError, ValueError):
        params = []
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            names += [f"{p.name}_{i}" for i in range(count - len(names))]
    names = names[:count]
    return names + [f"arg{i}" for i in range(len(names), count)]


def _first_bad(t: torch.Tensor) -> str:
    """'NaN at [0, 3] (2 non-finite values)': where a tensor first holds NaN or inf."""
    bad = ~torch.isfinite(t)
    if t.dim() == 0:
        return _kind(t.item())
    index = [int(i) for i in bad.nonzero()[0]]
    count = int(bad.sum())
    return f"{_kind(t[tuple(index)].item())} at {index} ({count} non-finite value{'s' if count > 1 else ''})"


def _kind(value: float) -> str:
    return "NaN" if value != value else ("inf" if value > 0 else "-inf")


def _finite(t: Any) -> bool:
    return not (isinstance(t, torch.Tensor) and t.is_floating_point() and not bool(torch.isfinite(t).all()))


def float32_model(model: torch.nn.Module, example_inputs: tuple) -> tuple[torch.nn.Module, tuple]:
    """``model`` and ``example_inputs`` with float64 tensors made float32, with a warning.

    Ember computes in int8 and float32; a float64 model (``model.double()``, weights from NumPy)
    would otherwise stop inside torchao's quantize ops. Rounding to float32 changes a value by at
    most 2^-24 of itself, far below one int8 step, so the compiled program is the one the user
    meant, and refusing would only make them convert by hand. The user's model is left as it is:
    the conversion happens on a copy.
    """
    wide = [name for name, t in (*model.named_parameters(), *model.named_buffers())
            if t.dtype == torch.float64]
    if wide:
        model = copy.deepcopy(model)
        for module in model.modules():
            for name, p in module.named_parameters(recurse=False):
                if p.dtype == torch.float64:
                    p.data = p.data.float()
            for name, b in module.named_buffers(recurse=False):
                if b.dtype == torch.float64:
                    module._buffers[name] = b.float()
        more = f" and {len(wide) - 1} more" if len(wide) > 1 else ""
        warn(f"ember: the model's float64 parameters ({wide[0]}{more}) are compiled as float32 "
             f"(Ember computes in int8 and float32); the model itself is unchanged")
    names = input_names(model, len(example_inputs))
    is_wide = [isinstance(x, torch.Tensor) and x.dtype == torch.float64 for x in example_inputs]
    wide = [n for n, w in zip(names, is_wide) if w]
    if wide:
        example_inputs = tuple(x.float() if w else x for x, w in zip(example_inputs, is_wide))
        warn(f"ember: float64 example input{'s' if len(wide) > 1 else ''} {', '.join(map(repr, wide))} "
             f"converted to float32 (Ember computes in int8 and float32)")
    return model, example_inputs


def check_weights(model: torch.nn.Module) -> None:
    """NaN or inf in a parameter or buffer gives NaN scales (torchao asserts) or a program whose
    every output is garbage; the user's tensor is named so they can find where it came from."""
    for kind, tensors in (("parameter", model.named_parameters()), ("buffer", model.named_buffers())):
        for name, t in tensors:
            if not _finite(t):
                raise FrontendError(f"{kind} {name} holds {_first_bad(t.detach())}: "
                                    f"Ember cannot quantize non-finite weights")
            # Folding a BatchNorm divides by sqrt(running_var + eps): a negative variance makes
            # the folded weights NaN, which the user would otherwise find under another name.
            if name.rpartition(".")[2] == "running_var" and t.is_floating_point() and bool((t < 0).any()):
                index = [int(i) for i in (t < 0).nonzero()[0]]
                raise FrontendError(f"buffer {name} holds a negative variance at {index} "
                                    f"({t[tuple(index)].item():g}): BatchNorm variances must be >= 0")


def model_inputs(sample: Any, count: int) -> Any:
    """The model's inputs in one calibration sample, by the rule docs/quantizer.md states: a dict
    is keyword inputs; a tuple or list whose first item is a tuple or list of `count` items
    (`(inputs, label)`) has the inputs there; one of more items than the model's `count` inputs
    (a DataLoader's `[x, label]`) has them first; the rest (labels) is not used. Anything else is
    the inputs as they are."""
    if not isinstance(sample, (tuple, list)) or not sample:
        return sample
    if count > 1 and isinstance(sample[0], (tuple, list)) and len(sample[0]) == count:
        return tuple(sample[0])
    return tuple(sample[:count]) if len(sample) > count else sample


def calibration_check(example_inputs: tuple, names: Sequence[str],
                      label: Callable[[int], str]) -> Callable[[int, Any], Any]:
    """A check for each calibration sample, as ``calibrate(..., check=...)`` takes it.

    The exported graph is specialised to the example inputs' shapes, so a batch of another shape
    fails a torch.export guard; a float64 batch (NumPy data) is converted like the model; NaN or
    inf would make an observer's range, and so every scale after it, non-finite.
    """
    warned = []

    def check(index: int, sample: Any) -> Any:
        sample = model_inputs(sample, len(example_inputs))
        if isinstance(sample, dict):
            positions = {n: i for i, n in enumerate(names)}
            items = [(positions.get(k), k, v) for k, v in sample.items()]
        else:
            values = list(sample) if isinstance(sample, (tuple, list)) else [sample]
            if len(values) != len(example_inputs):
                raise FrontendError(f"{label(index)} has {len(values)} input{'s' if len(values) != 1 else ''}, "
                                    f"the model takes {len(example_inputs)} ({', '.join(map(repr, names))})")
            items = [(i, names[i], v) for i, v in enumerate(values)]
        converted = {}
        for i, name, value in items:
            expected = example_inputs[i] if i is not None else None
            if not isinstance(expected, torch.Tensor):
                continue
            where = f"{label(index)}, input '{name}'"
            if not isinstance(value, torch.Tensor):
                raise FrontendError(f"{where}: expected a tensor, got {type(value).__name__}")
            if value.dtype == torch.float64 and expected.dtype == torch.float32:
                value = converted[name] = value.float()
                if not warned:
                    warned.append(True)
                    warn(f"ember: {where} is float64; calibration batches are converted to float32")
            if list(value.shape) != list(expected.shape):
                hint = ""  # only the batch size differs: the usual DataLoader mistake
                if value.dim() == expected.dim() >= 1 and value.shape[1:] == expected.shape[1:]:
                    hint = f"; split it into batches of {expected.shape[0]}"
                raise FrontendError(f"{where}: shape {list(value.shape)}, expected {list(expected.shape)} "
                                    f"(the example input's, which the program is compiled for){hint}")
            if value.dtype != expected.dtype:
                raise FrontendError(f"{where}: dtype {value.dtype}, expected {expected.dtype} "
                                    f"(the example input's)")
            if not _finite(value):
                raise FrontendError(f"{where} holds {_first_bad(value)}: calibration data must be finite")
        if not converted:
            return sample
        if isinstance(sample, dict):
            return {k: converted.get(k, v) for k, v in sample.items()}
        values = list(sample) if isinstance(sample, (tuple, list)) else [sample]
        return tuple(converted.get(names[i], v) for i, v in enumerate(values))

    return check


def check_observed_ranges(prepared: torch.fx.GraphModule, batch: str) -> None:
    """Every observer's range must be finite after `batch`. Finite inputs and weights can still
    give NaN or inf inside the model (log of a negative, a division by zero); torchao would assert
    "min nan should be less than max nan" while converting, and an infinite range becomes an
    infinite scale. A range stays NaN once it is, so quantize checks after every batch and can
    name the batch as well as the op."""
    from torchao.quantization.pt2e.observer import ObserverBase

    for node in prepared.graph.nodes:
        if node.op != "call_module":
            continue
        observer = prepared.get_submodule(node.target)
        if not isinstance(observer, ObserverBase):
            continue
        lo, hi = getattr(observer, "min_val", None), getattr(observer, "max_val", None)
        if not isinstance(lo, torch.Tensor) or (_finite(lo) and _finite(hi)):
            continue
        source = node.args[0] if node.args else None
        if lo.dim() == 0:
            seen = f"observed range [{lo.item()}, {hi.item()}]"
        else:  # per channel: the first channel at fault
            c = int((~(torch.isfinite(lo) & torch.isfinite(hi))).nonzero()[0])
            seen = f"channel {c}: observed range [{lo[c].item()}, {hi[c].item()}]"
        if isinstance(source, torch.fx.Node) and source.op == "get_attr":
            # The user's weights were checked; this one was computed by prepare_pt2e (BatchNorm folding).
            raise FrontendError(f"the weight {source.target}, with the BatchNorm after it folded in, "
                                f"is not finite ({seen})")
        what = source_of(source) if isinstance(source, torch.fx.Node) and source.op == "call_function" \
            else f"'{getattr(source, 'name', source)}'"
        raise FrontendError(f"{batch}: {what} gives NaN or inf ({seen}); "
                            f"Ember needs finite ranges to quantize")


def check_float64_ops(ep: torch.export.ExportedProgram) -> None:
    """float64 computed inside ``forward`` (``x.double()``, ``dtype=torch.float64``) cannot be
    converted like the weights: the model itself asks for it. torchao's quantize ops only take
    float32, so it is reported here, naming the op, before any calibration time is spent."""
    for node in ep.graph.nodes:
        val = node.meta.get("val")
        if node.op == "call_function" and isinstance(val, torch.Tensor) and val.dtype == torch.float64:
            raise FrontendError(f"{source_of(node)}: computes in float64, which Ember does not support "
                                f"(Ember computes in int8 and float32)")
