"""EmberQuantizer: a PT2E quantizer implementing Ember's numeric contract (DESIGN.md §4).

Flow (see ``quantize`` below)::

    ep = torch.export.export(model, example_inputs)
    m = prepare_pt2e(ep.module(), EmberQuantizer())
    calibrate(m, samples)
    m = convert_pt2e(m)
    ep_q = torch.export.export(m, example_inputs)   # what the Ember front end consumes

Contract:
  * activations: int8 asymmetric per tensor, [-128, 127];
  * conv1d/conv2d (incl. depthwise) and linear weights: int8 symmetric per output channel
    (axis 0), [-127, 127], zero point 0 (the symmetric range keeps -w representable);
  * bias: int32, scale = input scale * weight scale (per channel), zero point 0.

BatchNorm after conv/linear is folded by ``prepare_pt2e`` itself in torchao 0.18
(``_fuse_conv_bn_`` / ``_fuse_linear_bn_`` run before ``transform_for_annotation``), so no
pass of our own is needed; tests/test_quantizer.py checks that no batch norm survives.

Nodes we do not annotate stay float; convert_pt2e then leaves explicit dq -> float op -> q
edges that the compiler maps to float kernels.
"""

from __future__ import annotations

import operator
from typing import Any, Iterable, Optional

import torch
from torch.fx import GraphModule, Node
from torchao.quantization.pt2e.observer import (
    HistogramObserver,
    MinMaxObserver,
    PerChannelMinMaxObserver,
)
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec,
    FixedQParamsQuantizationSpec,
    QuantizationAnnotation,
    QuantizationSpec,
    Quantizer,
    SharedQuantizationSpec,
)

from ember import _ember

__all__ = ["EmberQuantizer", "quantize"]

aten = torch.ops.aten
_ANNOTATION_KEY = "quantization_annotation"

# --- op tables (targets as they appear in torch.export's default, training-IR graph) -------
_CONV_OPS = {aten.conv1d.default, aten.conv2d.default, aten.conv1d.padding, aten.conv2d.padding}
# Filters [in, out / groups, k...]: quantized per output channel along axis 1 (groups of 1).
_CONV_TRANSPOSE_OPS = {aten.conv_transpose1d.default, aten.conv_transpose2d.input}
_LINEAR_OPS = {aten.linear.default}
_BINARY_OPS = {aten.add.Tensor, aten.sub.Tensor, aten.mul.Tensor}
# Products of two activations (attention): both operands and the result get their own qparams.
_MATMUL_OPS = {aten.bmm.default, aten.mm.default, aten.matmul.default}
# Arithmetic with a Python number (x * 0.5, x + 3, 1 - x, x / 6, x ** 2): an int8 -> int8
# function of one value, which the compiler runs as a 256-entry table like the unary ops.
_SCALAR_OPS = _BINARY_OPS | {aten.add.Scalar, aten.sub.Tensor, aten.sub.Scalar, aten.rsub.Scalar,
                             aten.mul.Scalar, aten.div.Tensor, aten.div.Scalar,
                             aten.pow.Tensor_Scalar}
# Average-style pooling: output shares the input's qparams (average of values in range).
_POOL_OPS = {aten.avg_pool1d.default, aten.avg_pool2d.default, aten.adaptive_avg_pool1d.default,
             aten.adaptive_avg_pool2d.default, aten.mean.dim, aten.mean.default}
# Activations folded into the preceding op's clamp bounds (no q/dq between op and act).
_FUSABLE_ACTS = {aten.relu.default, aten.relu6.default, aten.hardtanh.default, aten.clamp.default}
# Pure data movement: output shares the input's qparams, so the compiler can alias/copy bytes.
_SHARE_OPS = {aten.reshape.default, aten.view.default, aten._unsafe_view.default,
              aten.flatten.using_ints, aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims,
              aten.unsqueeze.default, aten.permute.default, aten.transpose.int, aten.clone.default,
              aten.expand.default, aten.slice.Tensor, aten.select.int, aten.flip.default,
              aten.max_pool1d.default, aten.max_pool2d.default, aten.amax.default, aten.amin.default,
              aten.constant_pad_nd.default, aten.pad.default, aten.upsample_nearest1d.vec,
              aten.upsample_nearest2d.vec, aten.upsample_nearest2d.default, aten.upsample_bilinear2d.vec,
              aten.upsample_bilinear2d.default}
# Several results, each a part of the input (in its quantization): the getitem nodes that take
# them out of the result list carry the shared quantization (an adaptive max pool's values; its
# indices are no float tensor).
_SPLIT_OPS = {aten.split.Tensor, aten.split_with_sizes.default, aten.unbind.int,
              aten.adaptive_max_pool1d.default, aten.adaptive_max_pool2d.default}
_CAT_OPS = {aten.cat.default, aten.concat.default, aten.stack.default}
# Own output quantization (a sum's range is not its input's).
_REDUCE_OPS = {aten.sum.dim_IntList, aten.sum.default}
# Fixed output qparams: (scale, zero_point). Matches TFLite/CMSIS-NN conventions.
_FIXED_QPARAMS_OPS = {
    aten.softmax.int: (1.0 / 256.0, -128),
    aten._softmax.default: (1.0 / 256.0, -128),
    aten.sigmoid.default: (1.0 / 256.0, -128),
    aten.tanh.default: (1.0 / 128.0, 0),
}
# Standalone int8 -> int8 elementwise ops: own input/output qparams, run as 256-entry tables;
# the compiler's op set (compiler/ops.def, trait Table) names them. In-place forms never reach the
# quantizer: the front end functionalizes the graph first (frontend.export).
_TABLE_OPS = {getattr(aten, op["aten"].split(".")[1]).default for op in _ember.ops() if "table" in op["traits"]}
_UNARY_OPS = _FUSABLE_ACTS | _TABLE_OPS

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _act_qspec(observer: str) -> QuantizationSpec:
    # MinMax is the default: one pass of min/max per batch, deterministic and fast (tests
    # calibrate many small models). Histogram (L2-optimal range search) clips outliers better
    # on real data but costs ~100x more per sample; offered as an option.
    obs = {"minmax": MinMaxObserver, "histogram": HistogramObserver}[observer]
    return QuantizationSpec(
        dtype=torch.int8, quant_min=-128, quant_max=127, qscheme=torch.per_tensor_affine,
        observer_or_fake_quant_ctr=obs.with_args(eps=2**-12),
    )


_WEIGHT_QSPEC = QuantizationSpec(
    dtype=torch.int8, quant_min=-127, quant_max=127, qscheme=torch.per_channel_symmetric,
    ch_axis=0, observer_or_fake_quant_ctr=PerChannelMinMaxObserver.with_args(eps=2**-12),
)


_WEIGHT_QSPEC_AXIS_1 = QuantizationSpec(
    dtype=torch.int8, quant_min=-127, quant_max=127, qscheme=torch.per_channel_symmetric,
    ch_axis=1, observer_or_fake_quant_ctr=PerChannelMinMaxObserver.with_args(eps=2**-12),
)


def _derive_bias_qparams(obs: list) -> tuple[torch.Tensor, torch.Tensor]:
    """bias scale = s_in * s_w[c]; zero point 0. obs = [input act observer, weight observer]."""
    act_scale, _ = obs[0].calculate_qparams()
    w_scale, _ = obs[1].calculate_qparams()
    scale = (act_scale * w_scale).to(torch.float32)
    return scale, torch.zeros_like(scale, dtype=torch.int32)


def _bias_qspec(node: Node) -> DerivedQuantizationSpec:
    return DerivedQuantizationSpec(
        derived_from=[(node.args[0], node), (node.args[1], node)],
        derive_qparams_fn=_derive_bias_qparams,
        dtype=torch.int32, quant_min=_INT32_MIN, quant_max=_INT32_MAX,
        qscheme=torch.per_channel_symmetric, ch_axis=0,
    )


# --- graph helpers --------------------------------------------------------------------------
def _is_float_tensor(n: Any) -> bool:
    if not isinstance(n, Node):
        return False
    val = n.meta.get("val")
    return isinstance(val, torch.Tensor) and val.is_floating_point()


def _annotated(n: Node) -> bool:
    ann = n.meta.get(_ANNOTATION_KEY)
    return ann is not None and ann._annotated


def _has_quantized_output(n: Node) -> bool:
    ann = n.meta.get(_ANNOTATION_KEY)
    return ann is not None and ann.output_qspec is not None


def _mark(n: Node, inputs: dict, output) -> None:
    n.meta[_ANNOTATION_KEY] = QuantizationAnnotation(
        input_qspec_map=inputs, output_qspec=output, _annotated=True)


def _fusable_act(n: Node) -> Optional[Node]:
    """The single activation user of n that can be folded into n's clamp bounds, if any."""
    if len(n.users) != 1:
        return None
    user = next(iter(n.users))
    if user.op != "call_function" or user.target not in _FUSABLE_ACTS or _annotated(user):
        return None
    if user.args[0] is not n:
        return None
    # clamp/hardtanh bounds must be python numbers, not tensors, to become clamp limits.
    if any(isinstance(a, Node) for a in list(user.args[1:]) + list(user.kwargs.values())):
        return None
    return user


def _mark_output(n: Node, inputs: dict, output_qspec) -> None:
    """Annotate n's inputs; put the output qspec on a fused activation if there is one."""
    act = _fusable_act(n)
    if act is None:
        _mark(n, inputs, output_qspec)
    else:
        _mark(n, inputs, None)  # no q/dq between n and its activation
        _mark(act, {}, output_qspec)


class EmberQuantizer(Quantizer):
    """Annotates an exported graph with Ember's int8 quantization scheme.

    Args:
        act_observer: "minmax" (default; fast, predictable) or "histogram".
    """

    def __init__(self, act_observer: str = "minmax") -> None:
        super().__init__()
        self.act_qspec = _act_qspec(act_observer)

    def annotate(self, model: GraphModule) -> GraphModule:
        # One pass in topological order: producers are annotated before their consumers, so
        # sharing ops can tell whether their input is quantized.
        for n in model.graph.nodes:
            if n.op != "call_function" or _annotated(n):
                continue
            t = n.target
            if t in _CONV_OPS or t in _LINEAR_OPS:
                self._annotate_conv_linear(n)
            elif t in _CONV_TRANSPOSE_OPS:
                self._annotate_conv_linear(n, _WEIGHT_QSPEC_AXIS_1)
            elif t in _SCALAR_OPS:
                self._annotate_binary(n)
            elif t in _MATMUL_OPS:
                self._annotate_matmul(n)
            elif t in _POOL_OPS:
                self._annotate_pool(n)
            elif t in _SHARE_OPS:
                self._annotate_share(n)
            elif t in _SPLIT_OPS:
                self._annotate_split(n)
            elif t in _REDUCE_OPS:
                self._annotate_unary(n)
            elif t in _CAT_OPS:
                self._annotate_cat(n)
            elif t in _FIXED_QPARAMS_OPS:
                self._annotate_fixed(n)
            elif t in _UNARY_OPS:
                self._annotate_unary(n)
        return model

    def validate(self, model: GraphModule) -> None:
        pass

    def _input(self, x: Node) -> QuantizationSpec:
        """The input quantization for an edge from x: a fixed-range output (sigmoid, tanh,
        softmax) is read in its own quantization, as PT2E then shares the one observer; a second
        one would put a float requantization on the edge."""
        ann = x.meta.get(_ANNOTATION_KEY)
        if ann is not None and isinstance(ann.output_qspec, FixedQParamsQuantizationSpec):
            return ann.output_qspec
        return self.act_qspec

    # --- per-pattern annotators ---------------------------------------------------------------
    def _annotate_conv_linear(self, n: Node, weight_qspec: Optional[QuantizationSpec] = None) -> None:
        x, w = n.args[0], n.args[1]
        bias = n.args[2] if len(n.args) > 2 else n.kwargs.get("bias")
        # Weights must be constants (get_attr) so convert_pt2e folds them to int8 tensors.
        if not _is_float_tensor(x) or not isinstance(w, Node) or w.op != "get_attr":
            return
        if weight_qspec is _WEIGHT_QSPEC_AXIS_1 and (n.args[6] if len(n.args) > 6 else 1) != 1:
            return  # grouped: axis 1 holds out / groups channels, the bias all of them
        inputs = {x: self._input(x), w: weight_qspec or _WEIGHT_QSPEC}
        if isinstance(bias, Node):
            if bias.op != "get_attr":
                return
            inputs[bias] = _bias_qspec(n)
        _mark_output(n, inputs, self.act_qspec)

    def _annotate_binary(self, n: Node) -> None:
        a, b = n.args[0], n.args[1]
        if n.target in _BINARY_OPS and _is_float_tensor(a) and _is_float_tensor(b):
            _mark_output(n, {a: self._input(a), b: self._input(b)}, self.act_qspec)
        elif _is_float_tensor(a) and isinstance(b, (int, float)) and not isinstance(b, bool) \
                and not n.kwargs.get("rounding_mode") and n.kwargs.get("alpha", 1) == 1:
            _mark(n, {a: self._input(a)}, self.act_qspec)

    def _annotate_matmul(self, n: Node) -> None:
        a, b = n.args[0], n.args[1]
        if _is_float_tensor(a) and _is_float_tensor(b):
            _mark_output(n, {a: self._input(a), b: self._input(b)}, self.act_qspec)

    def _annotate_pool(self, n: Node) -> None:
        x = n.args[0]
        if not _is_float_tensor(x):
            return
        _mark_output(n, {x: self._input(x)}, SharedQuantizationSpec((x, n)))

    def _annotate_share(self, n: Node) -> None:
        x = n.args[0]
        # Only propagate quantization through data movement; a float input stays float. A model
        # input counts as quantized: the device hands the model int8 data.
        if not _is_float_tensor(x) or not (_has_quantized_output(x) or x.op == "placeholder"):
            return
        if n.target == aten.pad.default:
            mode = n.args[2] if len(n.args) > 2 else n.kwargs.get("mode", "constant")
            if mode != "constant":
                return
        _mark(n, {x: self._input(x)}, SharedQuantizationSpec((x, n)))

    def _annotate_split(self, n: Node) -> None:
        x = n.args[0]
        if not _is_float_tensor(x) or not (_has_quantized_output(x) or x.op == "placeholder"):
            return
        _mark(n, {x: self._input(x)}, None)
        for user in n.users:
            if user.op == "call_function" and user.target is operator.getitem and _is_float_tensor(user):
                _mark(user, {}, SharedQuantizationSpec((x, n)))

    def _annotate_cat(self, n: Node) -> None:
        tensors = n.args[0]
        if not tensors or not all(_is_float_tensor(t) for t in tensors):
            return
        if not any(_has_quantized_output(t) for t in tensors):
            return
        # All inputs and the output share one qparam set: cat is then a byte copy.
        first = tensors[0]
        shared = SharedQuantizationSpec((first, n))
        inputs = {first: self._input(first)}
        for t in tensors[1:]:
            inputs.setdefault(t, shared)
        _mark(n, inputs, shared)

    def _annotate_fixed(self, n: Node) -> None:
        x = n.args[0]
        if not _is_float_tensor(x):
            return
        scale, zp = _FIXED_QPARAMS_OPS[n.target]
        out = FixedQParamsQuantizationSpec(
            dtype=torch.int8, scale=scale, zero_point=zp, quant_min=-128, quant_max=127,
            qscheme=torch.per_tensor_affine)
        _mark(n, {x: self._input(x)}, out)

    def _annotate_unary(self, n: Node) -> None:
        x = n.args[0]
        if not _is_float_tensor(x) or any(isinstance(a, Node) for a in n.args[1:]):
            return
        _mark(n, {x: self._input(x)}, self.act_qspec)


def quantize(
    model: torch.nn.Module,
    example_inputs: tuple,
    calibration: Optional[Iterable] = None,
    quantizer: Optional[Quantizer] = None,
    progress: bool = True,
) -> torch.export.ExportedProgram:
    """export -> prepare_pt2e -> calibrate -> convert_pt2e -> re-export.

    ``model`` is switched to eval mode (BN folding and calibration need inference semantics).
    ``calibration`` yields samples shaped like the example inputs: tensors, tuples of inputs,
    ``(inputs, label)`` pairs or a DataLoader's batches (checks.model_inputs); when None, the
    example inputs are the only calibration sample (fine for tests, poor for accuracy: it warns).
    What cannot be quantized (non-finite weights, an empty calibration set, a batch of the wrong
    shape or holding NaN) raises ``FrontendError``; float64 tensors are compiled as
    float32 with a warning (``ember/checks.py``).
    """
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from .calibrate import calibrate
    from .checks import (calibration_check, check_float64_ops, check_observed_ranges, check_weights,
                         float32_model, input_names)
    from .frontend import FrontendError, export, warn

    example_inputs = tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) \
        else (example_inputs,)
    model, example_inputs = float32_model(model, example_inputs)
    check_weights(model)
    model.eval()
    ep = export(model, example_inputs)
    check_float64_ops(ep)
    prepared = prepare_pt2e(ep.module(), quantizer or EmberQuantizer())
    names = input_names(model, len(example_inputs))
    if calibration is None:
        warn("ember: no calibration data: the example inputs are the only sample, so every range is "
             "that one input's; pass representative inputs as calibration= for an accurate program")
        samples, label = [example_inputs], lambda i: "the example inputs (calibration=None)"
    else:
        samples, label = calibration, lambda i: f"calibration batch {i}"
    check_batch = calibration_check(example_inputs, names, label)

    def check(index, sample):
        if index:
            check_observed_ranges(prepared, label(index - 1))
        return check_batch(index, sample)

    seen = calibrate(prepared, samples, desc="calibrating", progress=progress, check=check)
    if not seen:
        # Observers that saw nothing give scale 1, zero point 0 everywhere: a program that runs
        # and outputs zeros. Nothing about that is right, so it is an error, not a warning.
        raise FrontendError("the calibration data is empty: quantizing needs at least one batch "
                            "(calibration=None calibrates on the example inputs)")
    check_observed_ranges(prepared, label(seen - 1))
    converted = convert_pt2e(prepared)
    _drop_unused_attrs(converted)
    return torch.export.export(converted, example_inputs)


def _drop_unused_attrs(gm: GraphModule) -> None:
    """Delete the float weights that convert_pt2e left behind (now replaced by int8 copies).

    Otherwise re-export lifts them as unused PARAMETER placeholders and the program carries
    both the float and the int8 weights.
    """
    for n in list(gm.graph.nodes):
        if n.op == "get_attr" and not n.users:
            gm.graph.erase_node(n)
    used = {n.target for n in gm.graph.nodes if n.op == "get_attr"}
    for name in [k for k, _ in gm.named_parameters()] + [k for k, _ in gm.named_buffers()]:
        if name not in used:
            owner, _, attr = name.rpartition(".")
            delattr(gm.get_submodule(owner) if owner else gm, attr)
    gm.recompile()
