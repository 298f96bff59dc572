"""Every op Ember supports, alone, on randomized shapes and parameters: the host runtime's int8
result is at most 1 quantum from PyTorch's converted (quantized reference) graph."""

from __future__ import annotations

import random

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import ember
from conftest import Lambda, quanta_apart

CASES = 4  # random instances per op: the first two in the unit tier, the rest in the models tier
SEEDS = [seed if seed < 2 else pytest.param(seed, marks=pytest.mark.models) for seed in range(CASES)]


class Conv(nn.Module):
    def __init__(self, cin, cout, k, stride, pad, dilation, groups, act):
        super().__init__()
        self.pad = pad
        self.conv = nn.Conv2d(cin, cout, k, stride=stride, dilation=dilation, groups=groups)
        self.act = act

    def forward(self, x):
        x = F.pad(x, self.pad) if any(self.pad) else x
        return self.act(self.conv(x))


ACTS = [nn.Identity(), nn.ReLU(), nn.ReLU6(), nn.Hardtanh(-0.5, 0.5)]


def _conv_case(rng: random.Random, depthwise: bool):
    cin = rng.choice([1, 3, 5, 8, 13])
    mult = rng.choice([1, 2]) if depthwise else 1
    cout = cin * mult if depthwise else rng.choice([1, 4, 7, 16])
    k = (rng.choice([1, 3, 5]), rng.choice([1, 3]))
    stride = rng.choice([1, 2])
    dilation = rng.choice([1, 1, 2])
    pad = tuple(rng.choice([0, 1, 2]) for _ in range(4))  # left, right, top, bottom: asymmetric
    h, w = rng.randint(7, 14), rng.randint(7, 14)
    module = Conv(cin, cout, k, stride, pad, dilation, cin if depthwise else 1, rng.choice(ACTS))
    return module, (torch.randn(1, cin, h, w) * rng.choice([0.5, 2.0]) + rng.choice([-1.0, 0.0, 3.0]),)


class Linear(nn.Module):
    def __init__(self, k, n, act):
        super().__init__()
        self.fc = nn.Linear(k, n)
        self.act = act

    def forward(self, x):
        return self.act(self.fc(x))


def _shape4(rng):
    return (1, rng.choice([1, 3, 6, 9]), rng.randint(3, 9), rng.randint(3, 9))


def make_case(op: str, seed: int):
    rng = random.Random(seed)
    torch.manual_seed(seed)
    if op == "conv2d":
        return _conv_case(rng, depthwise=False)
    if op == "depthwise_conv2d":
        return _conv_case(rng, depthwise=True)
    if op == "linear":
        k, n = rng.randint(3, 40), rng.randint(1, 20)
        return Linear(k, n, rng.choice(ACTS)), (torch.randn(1, k) * 2,)
    if op == "conv1d":
        cin, cout, k = rng.choice([3, 8]), rng.choice([4, 9]), rng.choice([1, 3, 5])
        conv = nn.Conv1d(cin, cout, k, stride=rng.choice([1, 2]), groups=1)
        return nn.Sequential(conv, nn.ReLU()), (torch.randn(1, cin, rng.randint(8, 20)),)
    s = _shape4(rng)
    if op in ("add", "mul"):
        fn = torch.add if op == "add" else torch.mul
        b_shape = rng.choice([s, (1, s[1], 1, 1), (1, 1, s[2], s[3])])
        act = rng.choice([nn.Identity(), nn.ReLU()])
        scale = rng.choice([0.3, 1.0, 4.0])
        return Lambda(lambda a, b: act(fn(a, b))), (torch.randn(s), torch.randn(b_shape) * scale + 0.5)
    if op == "avg_pool2d":
        k, st = rng.choice([2, 3]), rng.choice([1, 2])
        p = rng.choice([0, 1]) if k == 3 else 0
        return nn.AvgPool2d(k, st, padding=p, count_include_pad=rng.choice([True, False])), (torch.randn(s),)
    if op == "max_pool2d":
        k, st = rng.choice([2, 3]), rng.choice([1, 2])
        return nn.MaxPool2d(k, st, padding=rng.choice([0, 1]) if k == 3 else 0), (torch.randn(s),)
    if op == "global_avg_pool":
        pool = rng.choice([nn.AdaptiveAvgPool2d(1), Lambda(lambda x: x.mean(dim=(2, 3), keepdim=True))])
        return pool, (torch.randn(s) + 1,)
    if op == "softmax":
        return nn.Softmax(dim=-1), (torch.randn(1, rng.randint(2, 30)) * rng.choice([1, 4]),)
    if op == "softmax_channels":  # over the channels of a channels-last activation
        return nn.Sequential(nn.Conv2d(s[1], rng.randint(2, 12), 1), nn.Softmax(dim=1)), (torch.randn(s),)
    if op in ("sigmoid", "tanh", "hardswish", "hardsigmoid", "gelu", "silu", "relu", "relu6", "leaky_relu", "elu"):
        fn = {"sigmoid": nn.Sigmoid(), "tanh": nn.Tanh(), "hardswish": nn.Hardswish(),
              "hardsigmoid": nn.Hardsigmoid(), "gelu": nn.GELU(), "silu": nn.SiLU(),
              "relu": nn.ReLU(), "relu6": nn.ReLU6(), "leaky_relu": nn.LeakyReLU(rng.choice([0.01, 0.2])),
              "elu": nn.ELU(rng.choice([1.0, 0.5]))}[op]
        # Alone on the (quantized) model input: a standalone int8 op, a lookup table.
        return fn, (torch.randn(s) * 3,)
    if op == "scalar_arith":
        c = rng.choice([0.5, 3.0, -2.0, 6.0, 0.1])
        fns = [lambda x: x * c, lambda x: x + c, lambda x: c - x, lambda x: x / c, lambda x: x ** 2,
               lambda x: (x - c) * 0.25]
        return Lambda(rng.choice(fns)), (torch.randn(s) * 2,)
    if op == "flatten_linear":
        return nn.Sequential(nn.Conv2d(s[1], 4, 3, padding=1), nn.Flatten(), nn.Linear(4 * s[2] * s[3], 5)), \
            (torch.randn(s),)
    if op == "permute":
        return nn.Sequential(nn.Conv2d(s[1], 4, 1), Lambda(lambda x: x.permute(0, 2, 3, 1).reshape(1, -1))), \
            (torch.randn(s),)
    if op == "cat":
        conv_a, conv_b = nn.Conv2d(s[1], 3, 1), nn.Conv2d(s[1], 5, 1)
        return Lambda(lambda x: torch.cat([conv_a(x), conv_b(x)], dim=1)), (torch.randn(s),)
    if op == "pad":
        pads = tuple(rng.choice([0, 1, 2]) for _ in range(4))
        return nn.Sequential(nn.Conv2d(s[1], 4, 1), Lambda(lambda x: F.pad(x, pads))), (torch.randn(s),)
    if op == "conv_transpose2d":
        cin, cout, k, st = rng.choice([1, 3, 8]), rng.choice([1, 4, 7]), rng.choice([2, 3, 4]), rng.choice([1, 2, 3])
        p = rng.randint(0, k - 1)
        conv = nn.ConvTranspose2d(cin, cout, k, stride=st, padding=p, output_padding=rng.randint(0, st - 1),
                                  dilation=rng.choice([1, 1, 2]) if st == 1 else 1)
        return nn.Sequential(conv, rng.choice(ACTS)), (torch.randn(1, cin, rng.randint(3, 8), rng.randint(3, 8)),)
    if op == "conv_transpose1d":
        cin, cout = rng.choice([3, 8]), rng.choice([4, 9])
        conv = nn.ConvTranspose1d(cin, cout, rng.choice([2, 3, 5]), stride=rng.choice([1, 2, 4]), padding=1)
        return nn.Sequential(conv, nn.ReLU()), (torch.randn(1, cin, rng.randint(4, 12)),)
    if op == "upsample_1d":  # nearest over the length of a channels-last [N, C, L] activation
        up = nn.Upsample(scale_factor=rng.choice([2, 3]))
        return nn.Sequential(nn.Conv1d(3, 4, 3), up, nn.Conv1d(4, 2, 1)), (torch.randn(1, 3, rng.randint(5, 12)),)
    if op == "upsample":
        mode = rng.choice(["nearest", "bilinear"])
        align = rng.choice([False, True]) if mode == "bilinear" else None
        up = rng.choice([nn.Upsample(scale_factor=rng.choice([2, 3]), mode=mode, align_corners=align),
                         nn.Upsample(size=(2 * s[2] + 1, s[3] + 3), mode="bilinear", align_corners=align or False)])
        return nn.Sequential(nn.Conv2d(s[1], 4, 1), up), (torch.randn(s),)
    if op == "adaptive_pool":
        size = (rng.randint(1, s[2] + 2), rng.randint(1, s[3]))  # windows of unequal sizes, overlapping
        pool = rng.choice([nn.AdaptiveAvgPool2d(size), nn.AdaptiveMaxPool2d(size),
                           Lambda(lambda x: F.adaptive_avg_pool1d(x.flatten(2), 5))])
        return nn.Sequential(nn.Conv2d(s[1], 4, 1), pool), (torch.randn(s),)
    if op == "softmax_any_axis":
        dim = rng.choice([0, 1, 2])
        return Lambda(lambda x: torch.softmax(x * 3, dim=dim)), (torch.randn(rng.randint(2, 5), rng.randint(2, 6), 4),)
    raise ValueError(op)


OPS = ["conv2d", "depthwise_conv2d", "conv1d", "linear", "add", "mul", "avg_pool2d", "max_pool2d",
       "global_avg_pool", "softmax", "softmax_channels", "sigmoid", "tanh", "hardswish", "hardsigmoid", "gelu", "silu",
       "relu", "relu6", "scalar_arith", "flatten_linear", "permute", "cat", "pad", "conv_transpose2d",
       "conv_transpose1d", "upsample", "softmax_any_axis", "leaky_relu", "elu", "adaptive_pool",
       "upsample_1d"]


# Seeds 2 and 3 make every input non-negative / non-positive, so the input zero point sits at the
# ends of the int8 range: -128 and 127.
EXTREME_ZERO_POINT = {2: -128, 3: 127}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op", OPS)
def test_op_matches_pytorch_reference(op, seed):
    module, inputs = make_case(op, seed)
    module.eval()
    if seed in EXTREME_ZERO_POINT:
        sign = 1 if EXTREME_ZERO_POINT[seed] == -128 else -1
        inputs = tuple(sign * x.abs() for x in inputs)
    calibration = [tuple(x * (1 + 0.1 * i) for x in inputs) for i in range(4)]
    ep = ember.quantize(module, inputs, calibration)
    program = ember.lower(ep, target="host")
    if seed in EXTREME_ZERO_POINT:
        assert program.inputs[0]["zero_point"] == EXTREME_ZERO_POINT[seed]
    for sample in calibration[:2]:
        assert quanta_apart(program, ep, sample) <= 1


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op", ["conv_transpose2d", "conv_transpose1d", "upsample", "softmax_any_axis", "leaky_relu",
                                "elu", "adaptive_pool"])
def test_float_program_matches_eager(op, seed):
    """The same ops compiled without quantization, on the float kernels."""
    module, inputs = make_case(op, seed)
    module.eval()
    program = ember.compile(module, inputs, quantized=False)
    with torch.no_grad():
        assert torch.allclose(program.run(*inputs), module(*inputs), atol=1e-5)


def test_grouped_transposed_convolution_stays_float():
    """A grouped transposed convolution (whose filter's axis 1 holds a group's channels) is left
    float by the quantizer and runs on the float conv kernel inside the int8 program."""
    module = nn.Sequential(nn.Conv2d(4, 4, 1), nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2), nn.Conv2d(6, 2, 1)).eval()
    x = torch.randn(1, 4, 5, 5)
    ep = ember.quantize(module, (x,), [(x,), (2 * x,)])
    program = ember.lower(ep, "host")
    notes = {op["kernel"]: op["kernel_note"] for op in program.inspect()["ops"]}
    assert notes["conv2d_f32"].startswith("float:")
    assert quanta_apart(program, ep, (x,)) <= 1


def test_arithmetic_with_numbers_is_one_int8_table():
    """x * 0.5 + 1 on an int8 tensor: two tables composed into one, no float kernels."""
    conv = nn.Conv2d(3, 4, 1)
    module = Lambda(lambda x: conv(x) * 0.5 + 1).eval()
    x = torch.randn(1, 3, 6, 6)
    ep = ember.quantize(module, (x,), [(x,), (x * 2,)])
    program = ember.lower(ep, target="cortex-m55")
    assert [op["kernel"] for op in program.inspect()["ops"]] == ["conv2d_s8", "lut_s8"]
    assert quanta_apart(program, ep, (x,)) <= 1
