"""Float fallback inside an int8 graph, and float models.

The quantizer annotates no pow, div or avg_pool3d, so local response normalization (which exports
as mul, view, pad, avg_pool3d, squeeze, mul, add, pow, div) stays float between a dequantize and a
quantize, and runs on the portable float kernels inside the int8 program. The case to test is
MobileNetV2 followed by LRN; the same ops alone check the float kernels against PyTorch.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

import ember
from conftest import Lambda, quanta_apart
from ember.models.mobilenet_v2 import calibration_data, mobilenet_v2


class MobileNetV2LRN(nn.Module):
    """MobileNetV2 features, local response normalization, then the pooling/linear head."""

    def __init__(self):
        super().__init__()
        base, self.example_inputs, self.calibration = mobilenet_v2()
        self.features = base.features
        self.lrn = nn.LocalResponseNorm(size=5)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = base.classifier

    def forward(self, x):
        return self.classifier(self.pool(self.lrn(self.features(x))).flatten(1))


@pytest.fixture(scope="module")
def mobilenet_lrn():
    torch.manual_seed(0)
    return MobileNetV2LRN().eval()


@pytest.fixture(scope="module")
def held_out():
    return torch.cat([x for (x,) in calibration_data(n=32, seed=11)])


def _kernels(program) -> set[str]:
    return {op["kernel"] for op in program.inspect()["ops"]}


@pytest.mark.models
def test_mobilenet_v2_lrn_int8_with_float_lrn(mobilenet_lrn, held_out, torch_threads):
    model = mobilenet_lrn
    # ember.compile is quantize + lower; keep the converted graph as the reference.
    ep = ember.quantize(model, model.example_inputs, model.calibration)
    program = ember.lower(ep)
    assert program.data == ember.compile(model, model.example_inputs, calibration=model.calibration).data

    kernels = _kernels(program)
    assert {"conv2d_s8", "depthwise_conv2d_s8", "add_s8", "fully_connected_s8"} <= kernels
    # LRN's arithmetic with numbers (x ** 2, k + alpha * s, ** beta) runs as int8 tables; its
    # 3-D average pool and the division by a tensor stay float.
    assert {"avg_pool3d_f32", "div_f32", "lut_s8", "quantize_s8", "dequantize_s8"} <= kernels
    assert program.inputs[0]["dtype"] == "int8" and program.outputs[0]["dtype"] == "int8"

    reference = ep.module()
    with torch.no_grad():
        ref = torch.cat([reference(x[None]) for x in held_out])
        eager = model(held_out)
    got = torch.cat([program.run(x[None]) for x in held_out])
    span = float(ref.max() - ref.min())
    err = (got - ref).abs()
    quant_err = (ref - eager).abs()
    print(f"\nMobileNetV2+LRN int8 vs PyTorch reference over {len(held_out)} inputs: max "
          f"{err.max():.4f} ({err.max() / span:.2%} of the output range {span:.2f}, "
          f"{err.max() / program.outputs[0]['scale']:.0f} output quanta), RMS "
          f"{err.pow(2).mean().sqrt() / span:.2%}; reference vs float: max {quant_err.max() / span:.2%}, "
          f"RMS {quant_err.pow(2).mean().sqrt() / span:.2%}; same top class "
          f"{(got.argmax(1) == ref.argmax(1)).sum()}/{len(held_out)}")
    # Tolerance, relative to the output range: max 10 %, RMS 2.5 %. Each kernel matches the
    # reference within a quantum, and the float LRN exactly (see the tests below), but over 52
    # layers of random weights a value within ~1e-7 of a rounding tie flips one quantum in the
    # reference: its float32 conv (exact 122.49999578, float32 122.500015) or even, evaluated
    # in float64 (tests/reference.py), its float32 bias scale (exact -59.4999984, reference
    # -59.5000007). Ember's integer result is the exact one; the flip grows about 2x every 4
    # blocks. Measured: max 6.3 %, RMS 1.3 %. The int8 reference is itself far coarser than
    # that against the float model, so the check also requires Ember's error from the
    # reference to stay below the reference's own quantization error.
    assert err.max() <= 0.10 * span
    assert err.pow(2).mean().sqrt() <= 0.025 * span
    assert err.max() <= quant_err.max()


@pytest.mark.models
def test_mobilenet_v2_lrn_float(mobilenet_lrn, held_out):
    model = mobilenet_lrn
    program = ember.compile(model, model.example_inputs, quantized=False)
    kernels = _kernels(program)
    assert {"conv2d_f32", "depthwise_conv2d_f32", "avg_pool3d_f32", "pow_f32", "div_f32"} <= kernels
    assert not any(k.endswith("_s8") for k in kernels)
    with torch.no_grad():
        ref = model(held_out[:8])
    got = torch.cat([program.run(x[None]) for x in held_out[:8]])
    span = float(ref.max() - ref.min())
    err = float((got - ref).abs().max())
    print(f"\nMobileNetV2+LRN float vs eager: max {err:.2e} ({err / span:.1e} of the output range)")
    # Float kernels sum in a different order than PyTorch's (NHWC, no BN folding in eager).
    assert err <= 1e-4 * span


class Sandwich(nn.Module):
    """conv -> fn (one or two conv outputs) -> conv: `fn` sits between int8 tensors."""

    def __init__(self, fn, binary: bool):
        super().__init__()
        self.fn = fn
        self.conv_a = nn.Conv2d(3, 6, 3, padding=1)
        self.conv_b = nn.Conv2d(3, 6, 1) if binary else None
        self.out = nn.Conv2d(6, 4, 1)

    def forward(self, x):
        a = self.conv_a(x)
        return self.out(self.fn(a, self.conv_b(x)) if self.conv_b is not None else self.fn(a))


# name: (function, binary, kernel that must run it). Inputs to sqrt, rsqrt, pow are made positive.
FLOAT_OPS = {
    "sub": (lambda a, b: a - b, True, "sub_f32"),
    "div": (lambda a, b: a / (b.abs() + 1), True, "div_f32"),
    "neg": (lambda a: torch.neg(a), False, "neg_f32"),
    "abs": (torch.abs, False, "abs_f32"),
    "exp": (lambda a: torch.exp(a * 0.3), False, "exp_f32"),
    "pow": (lambda a: (a.abs() + 0.1).pow(0.75), False, "pow_f32"),
    "pow_tensor": (lambda a, b: (a.abs() + 0.1).pow(b.clamp(-2, 2)), True, "pow_f32"),
    "sqrt": (lambda a: torch.sqrt(a.abs() + 0.1), False, "sqrt_f32"),
    "rsqrt": (lambda a: torch.rsqrt(a.abs() + 0.5), False, "rsqrt_f32"),
    "minimum": (torch.minimum, True, "minimum_f32"),
    "maximum": (torch.maximum, True, "maximum_f32"),
    "rsub": (lambda a: 1 - a, False, "sub_f32"),
    "pow_scalar_base": (lambda a: 2 ** (a * 0.3), False, "pow_f32"),
    "lrn": (nn.LocalResponseNorm(3), False, "avg_pool3d_f32"),
}


@pytest.mark.parametrize("name", list(FLOAT_OPS))
def test_float_op_alone_matches_eager(name):
    fn, binary, kernel = FLOAT_OPS[name]
    g = torch.Generator().manual_seed(len(name))
    a = torch.randn(1, 5, 7, 9, generator=g)
    inputs = (a, torch.randn(1, 5, 1, 1, generator=g)) if binary else (a,)  # broadcast over H, W
    module = Lambda(fn)
    program = ember.compile(module, inputs, quantized=False)
    assert kernel in _kernels(program)
    ref = module(*inputs)
    got = program.run(*inputs)
    # exp, pow and sqrt may differ from PyTorch's vectorised versions in the last bit or two.
    torch.testing.assert_close(got, ref, rtol=1e-6, atol=1e-6)


# Between int8 tensors these are functions of one int8 value (their numbers included), so they
# run as lookup tables computed from the float function, exactly as PyTorch's reference graph.
INT8_TABLES = {"neg", "abs", "exp", "pow", "sqrt", "rsqrt", "rsub", "pow_scalar_base"}
# a - b between int8 tensors is int8: a plus the bitwise not of b (an exact negation, a table).
INT8_BINARY = {"sub": {"conv2d_s8", "lut_s8", "add_s8"}}


@pytest.mark.parametrize("name", list(FLOAT_OPS))
def test_float_op_inside_int8_graph(name, torch_threads):
    fn, binary, kernel = FLOAT_OPS[name]
    torch.manual_seed(0)
    module = Sandwich(fn, binary).eval()
    x = torch.randn(1, 3, 9, 11)
    calibration = [(x * (1 + 0.1 * i),) for i in range(4)]
    ep = ember.quantize(module, (x,), calibration)
    program = ember.lower(ep, target="host")
    kernels = _kernels(program)
    assert "conv2d_s8" in kernels
    if name in INT8_TABLES:
        assert kernels == {"conv2d_s8", "lut_s8"}
    elif name in INT8_BINARY:
        assert kernels == INT8_BINARY[name]
    else:
        assert {kernel, "dequantize_s8", "quantize_s8"} <= kernels
    for sample in calibration[:2]:
        assert quanta_apart(program, ep, sample) <= 1


def test_python_int_scalar_on_float_tensor():
    # `x + 1` passes an int; PyTorch promotes it to float, and so must the program's constant.
    module = Lambda(lambda x: (x + 1) * 2 - 3)
    x = torch.randn(1, 4, 5)
    program = ember.compile(module, (x,), quantized=False)
    torch.testing.assert_close(program.run(x), module(x))
