"""A compiled Ember program: the bytes of one program file, and ways to look at and run it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from ember import _ember
from ember.npu_reference import run_reference

# The host has no NPU: NPU partitions run on the TOSA reference model (docs/npu.md).
_ember.set_npu_reference(run_reference)

_NP_DTYPES = {"int8": np.int8, "int32": np.int32, "float32": np.float32}


class ProgramError(RuntimeError):
    """The runtime refused a program file or a run. ``status`` is the runtime's code id and
    ``code`` its number (runtime/status.def), as a device would return it; the host's own input
    check has ``status`` "non_finite_input" and no code."""

    def __init__(self, status: str, message: str):
        self.code = _ember.status_codes().get(status, (None,))[0]
        super().__init__(f"{status}" + (f" ({self.code})" if self.code is not None else "") + f": {message}")
        self.status = status


class Program:
    """One program file, verified: constructing one runs every check of the device runtime's
    Program::load, as the device of the file's target runs them (the tier's kernel checks),
    plus the host tools' folded-bias check, and raises ProgramError naming the first failure.
    Nothing else reads the file before, and no memory is planned for it until it runs.
    ``run`` executes it with the device runtime compiled for the host.

    ``tier`` ("scalar", "dsp", "mve", "portable") checks the file as that tier's devices would
    instead of its target's; ``fold=False`` leaves out the host-only folded-bias check, so the
    verdict is exactly a device's."""

    def __init__(self, data: bytes, *, name: str = "the program file", tier: str = "auto", fold: bool = True):
        self.data = bytes(data)
        self._runtime = _ember.Runtime(self.data, tier, fold)
        if self._runtime.status != "ok":
            raise ProgramError(self._runtime.status, f"the runtime rejects {name}: {self._runtime.message}")
        self._info = json.loads(_ember.inspect_json(self.data))
        # Compiled here for an NPU target (ember.lower): the accelerator and Vela's estimates per
        # partition (ember.npu.Plan.estimates); None otherwise.
        self.npu = None

    @classmethod
    def load(cls, path: str | Path) -> "Program":
        return cls(Path(path).read_bytes(), name=str(path))

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.data)

    def inspect(self) -> dict:
        """ops, memory (regions, lower bound, peak op), inputs and outputs, sizes."""
        return self._info

    @property
    def inputs(self) -> list[dict]:
        return self._info["inputs"]

    @property
    def outputs(self) -> list[dict]:
        return self._info["outputs"]

    @property
    def arena_bytes(self) -> int:
        return self._info["memory"]["arena_bytes"]

    @property
    def target(self) -> str:
        """The target the program was compiled for ("" when the file names none)."""
        return self._info["target"]

    def run_raw(self, *inputs: np.ndarray) -> list[np.ndarray]:
        """Runs on exactly the bytes the device sees: stored layout and dtype, no conversion."""
        if len(inputs) != len(self.inputs):
            raise ProgramError("runtime_index", f"the program takes {len(self.inputs)} inputs, got {len(inputs)}")
        data = []
        for x, info in zip(inputs, self.inputs):
            x = np.require(x, requirements="C")  # ascontiguousarray would make a 0-d array 1-d
            if x.dtype != _NP_DTYPES[info["dtype"]] or list(x.shape) != info["shape"]:
                raise ProgramError("shape_mismatch", f"input {info['name']} is {info['dtype']}{info['shape']}, "
                                   f"got {x.dtype}{list(x.shape)}")
            data.append(x.tobytes())
        status, outs, message = self._runtime.run(data)
        if status != "ok":
            raise ProgramError(status, f"the run failed ({message})")
        return [np.frombuffer(o, dtype=_NP_DTYPES[info["dtype"]]).reshape(info["shape"]).copy()
                for o, info in zip(outs, self.outputs)]

    def run(self, *inputs: torch.Tensor, dequantize: bool = True):
        """Runs like the PyTorch model: takes its float (or int8) inputs in its own layout,
        returns its outputs in its layout, dequantized unless ``dequantize=False``. One output
        comes back as a tensor, several as a list."""
        if len(inputs) != len(self.inputs):
            raise ProgramError("runtime_index", f"the program takes {len(self.inputs)} inputs "
                               f"({', '.join(i['name'] for i in self.inputs)}), got {len(inputs)}")
        for x, info in zip(inputs, self.inputs):
            if list(torch.as_tensor(x).shape) != info["model_shape"]:
                raise ProgramError("shape_mismatch", f"input {info['name']} takes the model's shape "
                                   f"{info['model_shape']}, got {list(torch.as_tensor(x).shape)}")
        raw = [to_device(torch.as_tensor(x), info) for x, info in zip(inputs, self.inputs)]
        outs = [from_device(o, info, dequantize) for o, info in zip(self.run_raw(*raw), self.outputs)]
        return outs[0] if len(outs) == 1 else outs


def quantize(x: torch.Tensor, scale: float, zero_point: int) -> torch.Tensor:
    """PyTorch's quantize_per_tensor arithmetic: round half to even of x / scale, plus zp."""
    return torch.clamp(torch.round(x * (1.0 / scale)) + zero_point, -128, 127).to(torch.int8)


def _check_finite(x: torch.Tensor, name: str) -> None:
    # NaN has no int8 code (the cast is undefined; PyTorch gives 0) and inf saturates: either way
    # the program would run on a value the user never meant, and nothing would say so.
    if x.is_floating_point() and not bool(torch.isfinite(x).all()):
        bad = ~torch.isfinite(x)
        index = [int(i) for i in bad.nonzero()[0]] if x.dim() else []
        value = x[tuple(index)].item()
        kind = "NaN" if value != value else ("inf" if value > 0 else "-inf")
        count = int(bad.sum())
        raise ProgramError("non_finite_input", f"input '{name}' holds {kind} at {index} ({count} non-finite "
                           f"value{'s' if count > 1 else ''}) and cannot be quantized to int8")


def to_device(x: torch.Tensor, info: dict) -> np.ndarray:
    if info["dtype"] == "int8" and x.dtype != torch.int8:
        _check_finite(x, info["name"])
        x = quantize(x.float(), info["scale"], info["zero_point"])
    elif info["dtype"] == "float32":
        x = x.float()
    if info["layout"] == "ncl_as_nl1c":
        x = x.unsqueeze(-1)
    if info["layout"] != "as_model":
        x = x.permute(0, 2, 3, 1)
    return x.contiguous().numpy()


def from_device(y: np.ndarray, info: dict, dequantize: bool) -> torch.Tensor:
    t = torch.from_numpy(y)
    if info["layout"] != "as_model":
        t = t.permute(0, 3, 1, 2)
    if info["layout"] == "ncl_as_nl1c":
        t = t.squeeze(-1)
    if dequantize and info["dtype"] == "int8":
        t = (t.float() - info["zero_point"]) * info["scale"]
    return t

