"""Front end: a faithful copy of an exported aten graph as Ember IR.

Each aten node becomes one op named by its target (``aten.conv2d.default``) with its tensor
operands, its other arguments as named attributes (names and defaults from the op's schema) and
the place in the user's model it came from. No rewriting happens here: every pass is in the
C++ compiler.
"""

from __future__ import annotations

import math
import operator
import os
import re
import sys
import warnings

import torch
from torch._decomp import get_decompositions
from torch.export import ExportedProgram

from ember import _ember

_DTYPES = {
    torch.int8: "int8",
    torch.int32: "int32",
    torch.int64: "int64",
    torch.float32: "float32",
    torch.bool: "bool",
}

_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


class FrontendError(ValueError):
    """The model, its inputs or its calibration data hold something Ember cannot compile: a
    dtype, a 0-d input, a non-finite weight, an empty or misshapen calibration set. The message
    is one line naming the input, parameter, calibration batch or op at fault."""


def warn(message: str) -> None:
    """A UserWarning attributed to the first caller outside the ember package (the user's line)."""
    frame, level = sys._getframe(1), 2  # stacklevel 1 would be this function
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "ember":
        frame, level = frame.f_back, level + 1
    warnings.warn(message, stacklevel=level)


def source_of(node: torch.fx.Node) -> str:
    """``aten.conv2d.default at model.py:42 (features.0)``: the op, the model's line, the module.
    The line is the innermost one in the user's own files, else in the library that defines the
    model (``torchvision/models/mobilenetv2.py:64``); PyTorch's own frames never count."""
    text = str(node.target)
    frames = [f for f in _FRAME.findall(node.meta.get("stack_trace") or "") if not _is_torch(f[0])]
    user = [f for f in frames if not _is_library(f[0])]
    if user:
        path, line = user[-1]
        text += f" at {os.path.basename(path)}:{line}"
    elif frames:
        path, line = frames[-1]
        text += f" at {_library_path(path)}:{line}"
    stack = node.meta.get("nn_module_stack")
    if stack:
        path = list(stack.values())[-1][0]
        if path:
            text += f" ({path})"
    return text


def _attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """scaled_dot_product_attention as its math (eval: no dropout): softmax(q kᵀ · scale + mask) v.
    Masks are added to the scores with -1e4 where a position is masked (a float mask's lower
    values are clamped to it): after the softmax that is 0 in float32 as -inf is, and the scores'
    range stays finite for int8. The causal mask becomes a constant (legalize evaluates triu of a
    constant), and so does a boolean mask (True keeps a position) that is a constant buffer."""
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        repeat = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(repeat, -3), value.repeat_interleave(repeat, -3)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = torch.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:
        scores = scores + torch.full((query.shape[-2], key.shape[-2]), -1e4).triu(1)
    elif attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_mask = torch.zeros(attn_mask.shape).masked_fill(attn_mask.logical_not(), -1e4)
        scores = scores + attn_mask.clamp(min=-1e4)
    return torch.matmul(torch.softmax(scores, -1), value)


# Layers PyTorch keeps whole that Ember runs as their parts: GRU and LSTM unrolled over their
# (fixed) sequence by PyTorch's own decompositions (linear layers for the gates, sigmoid, tanh,
# mul and add per step), and attention as its math.
_DECOMPOSITIONS = {**get_decompositions([torch.ops.aten.gru.input, torch.ops.aten.lstm.input]),
                   torch.ops.aten.scaled_dot_product_attention.default: _attention}


def export(model: torch.nn.Module, example_inputs: tuple) -> ExportedProgram:
    """``torch.export.export``, then PyTorch's functionalization with no decompositions: in-place
    ops become their functional forms (``relu_`` -> ``relu``, ``x += y`` -> ``add``), dropout
    and ``contiguous`` in eval disappear, ``chunk`` becomes ``split`` and ``narrow`` ``slice``,
    while layers (conv2d, linear, layer_norm, ...) stay whole for the quantizer's patterns; GRU,
    LSTM and attention become their parts (_DECOMPOSITIONS)."""
    with warnings.catch_warnings():  # PyTorch's notices about its own internals, not the user's
        warnings.filterwarnings("ignore", message=".*_flat_weights.*were assigned during export")
        warnings.filterwarnings("ignore", message=".*LeafSpec", category=FutureWarning)
        return torch.export.export(model, example_inputs).run_decompositions(_DECOMPOSITIONS)


def _is_library(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    return any(p in ("torch", "torchao", "site-packages", "dist-packages") for p in parts[:-1])


def _is_torch(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    return any(p in ("torch", "torchao") for p in parts[:-1])


def _library_path(path: str) -> str:
    """The path of a library file from its package (what follows site-packages)."""
    parts = path.replace("\\", "/").split("/")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(marker):])
    return os.path.basename(path)


def _dtype(dtype: torch.dtype, where: str) -> str:
    if dtype == torch.float64:
        raise FrontendError(f"{where}: dtype torch.float64 is not supported (Ember computes in int8 and "
                            f"float32: export the model after model.float(), with float32 inputs)")
    if dtype not in _DTYPES:
        raise FrontendError(f"{where}: dtype {dtype} is not supported")
    return _DTYPES[dtype]


def _shape(t: torch.Tensor, where: str) -> list[int]:
    try:
        return [int(d) for d in t.shape]
    except TypeError as e:
        raise FrontendError(f"{where}: dynamic shapes are not supported ({list(t.shape)})") from e


def _is_tensor_type(arg) -> bool:
    return str(arg.type).replace("Optional[", "").rstrip("]?") in ("Tensor", "List[Tensor", "Tensor[")


def _attr(value, where: str):
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float, bool)) for v in value):
        return list(value)
    if isinstance(value, (torch.memory_format, torch.layout, torch.device)):
        return str(value)
    raise FrontendError(f"{where}: argument {value!r} is not supported")


def _check_input_shape(name: str, val: torch.Tensor, ep: ExportedProgram) -> None:
    # A 0-d input compiles to a program no run can feed: the host tools see a 0-d array as shape
    # [1] (NumPy's contiguous copy) and the shapes never match. It is refused here, where the
    # user can still change the model.
    if val.dim() == 0:
        raise FrontendError(f"input '{name}': 0-d (scalar) tensor inputs are not supported; "
                            f"pass it with shape [1] (torch.tensor([v]) instead of torch.tensor(v))")
    # A program has one shape per input. A dimension exported as dynamic (torch.export.Dim)
    # still carries the example's size; compiling with that size is right for a device that
    # runs one batch size, but the user asked for more, so they are told which size they get.
    dynamic = [(i, d) for i, d in enumerate(val.shape) if isinstance(d, torch.SymInt)]
    if not dynamic:
        return
    parts = []
    for i, d in dynamic:
        hint = d.node.hint
        if hint is None:
            raise FrontendError(f"input '{name}': dimension {i} is dynamic with no example size; "
                                f"Ember programs have static shapes (export without dynamic_shapes)")
        bounds = ep.range_constraints.get(d.node.expr)
        span = ""
        if bounds is not None:
            try:
                span = f" (sizes {int(bounds.lower)} to {int(bounds.upper)})"
            except (TypeError, ValueError, AttributeError):  # no upper bound: int(int_oo) raises
                span = f" (sizes from {bounds.lower})"
        parts.append(f"dynamic dimension {i}{span} compiled with size {hint}")
    warn(f"ember: input '{name}': {'; '.join(parts)}, the example's: an Ember program has one shape "
         f"per input (export without dynamic_shapes, with an example of the size the device uses)")


def _layer(node: torch.fx.Node) -> str:
    """The module path of the layer that computes `node` ("" outside any)."""
    stack = node.meta.get("nn_module_stack")
    return list(stack.values())[-1][0] if stack else ""


class _Translator:
    def __init__(self, ep: ExportedProgram):
        self.ep = ep
        self.graph = _ember.Graph()
        self.ids: dict[torch.fx.Node, object] = {}
        self.taken: set[str] = set()

    def tensor_name(self, node: torch.fx.Node) -> str:
        """A computed tensor's name, from its layer: the int8 result of a layer (the quantize after
        it) is the layer's path (`blocks.0.dw`), other tensors the path and the op
        (`blocks.0.dw.conv2d`); outside any layer, PyTorch's name of the op (`relu`); a repeat
        gets _1, _2, ..."""
        op = node.target.__name__.split(".")[0] if hasattr(node.target, "__name__") else node.name
        source = node
        if op.startswith(("quantize_per", "dequantize_per")) and isinstance(node.args[0], torch.fx.Node):
            source = node.args[0]  # a quantize names its input's layer
        layer = _layer(source) if source.op == "call_function" else ""
        if not layer:
            base = source.name if source is node or op.startswith("quantize_per") else f"{source.name}.dq"
        else:
            base = layer if op.startswith("quantize_per") else f"{layer}.{'dq' if source is not node else op}"
        name, k = base, 0
        while name in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        return name

    def constant_value(self, name: str) -> torch.Tensor | None:
        sig = self.ep.graph_signature
        for table in (sig.inputs_to_parameters, sig.inputs_to_buffers):
            if name in table:
                key = table[name]
                return self.ep.state_dict[key] if key in self.ep.state_dict else self.ep.constants[key]
        if name in sig.inputs_to_lifted_tensor_constants:
            return self.ep.constants[sig.inputs_to_lifted_tensor_constants[name]]
        return None

    def constant(self, name: str, value: torch.Tensor) -> int:
        value = value.detach().contiguous().cpu()
        data = value.numpy().tobytes() if value.numel() else b""
        return self.graph.add_tensor(name, _shape(value, name), _dtype(value.dtype, name), data)

    def scalar(self, name: str, value, result_dtype: torch.dtype | None) -> int:
        # PyTorch promotes a Python int operand to a float tensor's dtype (x + 1 is float), so
        # a float result takes a float constant: int64 is no dtype a program holds.
        floating = isinstance(value, float) or (result_dtype is not None and result_dtype.is_floating_point)
        return self.constant(name, torch.tensor(value, dtype=torch.float32 if floating else torch.int64))

    def value_tensor(self, name: str, val, where: str) -> int:
        return self.graph.add_tensor(name, _shape(val, where), _dtype(val.dtype, where))

    def run(self, float_io: bool) -> _ember.Graph:
        inputs, outputs = [], []
        for node in self.ep.graph.nodes:
            if node.op == "placeholder":
                value = self.constant_value(node.name)
                if value is not None:
                    self.ids[node] = self.constant(node.name, value)
                else:
                    val = node.meta["val"]
                    if not isinstance(val, torch.Tensor):
                        raise FrontendError(f"input '{node.name}': only tensor inputs are supported")
                    _check_input_shape(node.name, val, self.ep)
                    self.taken.add(node.name)
                    self.ids[node] = self.value_tensor(node.name, val, f"input '{node.name}'")
                    inputs.append(self.ids[node])
            elif node.op == "call_function":
                self.call(node)
            elif node.op == "output":
                for out in node.args[0]:
                    if not isinstance(out, torch.fx.Node) or not isinstance(self.ids.get(out), int):
                        raise FrontendError(f"model output {out!r} is not a tensor computed by the model")
                    outputs.append(self.ids[out])
            else:
                raise FrontendError(f"{node.name}: unexpected {node.op} node")
        self.graph.set_io(inputs, outputs, float_io)
        return self.graph

    def call(self, node: torch.fx.Node) -> None:
        where = source_of(node)
        if node.target is operator.getitem:
            self.ids[node] = self.ids[node.args[0]][node.args[1]]
            return
        if not isinstance(node.target, torch._ops.OpOverload):
            raise FrontendError(f"{where}: call to {node.target} is not an aten op")
        schema = node.target._schema
        val = node.meta.get("val")
        result_dtype = val.dtype if isinstance(val, torch.Tensor) else None
        inputs: list[int] = []
        attrs: dict = {}
        for i, arg in enumerate(schema.arguments):
            if i < len(node.args):
                value = node.args[i]
            elif arg.name in node.kwargs:
                value = node.kwargs[arg.name]
            elif arg.has_default_value():
                value = arg.default_value
            else:
                value = None
            if _is_tensor_type(arg):
                if isinstance(value, (list, tuple)):
                    inputs.extend(self.ids[v] for v in value)
                elif isinstance(value, torch.fx.Node):
                    inputs.append(self.ids[value])
                elif value is None:
                    inputs.append(-1)
                else:  # a Python number where the schema takes a tensor
                    inputs.append(self.scalar(f"{node.name}_{arg.name}", value, result_dtype))
            elif isinstance(value, torch.fx.Node):
                raise FrontendError(f"{where}: argument '{arg.name}' computed at run time is not supported")
            elif value is not None:
                attrs[arg.name] = _attr(value, where)
        if isinstance(val, (list, tuple)):
            name = self.tensor_name(node)
            outs = tuple(self.value_tensor(f"{name}.{k}", v, where) if isinstance(v, torch.Tensor) else -1
                         for k, v in enumerate(val))
            self.ids[node] = outs
            results = [o for o in outs if o >= 0]
        elif isinstance(val, torch.Tensor):
            self.ids[node] = self.value_tensor(self.tensor_name(node), val, where)
            results = [self.ids[node]]
        else:
            raise FrontendError(f"{where}: result {val!r} is not a tensor")
        self.graph.add_op(str(node.target), inputs, results, attrs, where)


def to_graph(ep: ExportedProgram, float_io: bool = False) -> _ember.Graph:
    """Ember IR for `ep`, an exported (and usually PT2E-converted) program."""
    return _Translator(ep).run(float_io)
