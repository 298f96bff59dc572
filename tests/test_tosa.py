"""The TOSA Ember emits for its int8 ops (ember.tosa), run by the TOSA reference model of the
pinned tosa-tools package, against Ember's portable kernels (the host runtime).

Per op and quantization corner (per-channel scales, non-zero zero points, activation clamps,
saturation: the random inputs span all of int8 while calibration saw a normal distribution),
the two must be equal except on exact rounding ties, where TOSA's RESCALE rounds half up, its
AVG_POOL2D half away from zero, and Ember half to even. The test recomputes every conv and
linear accumulator and every window sum exactly (float64 on integers), so it knows where the
ties are: it counts them and fails on any other difference.
The reference model's arithmetic stands in for the Ethos-U's here; no NPU runs."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import tosa_reference_model
import torch.nn.functional as F
from torch import nn

import ember
from ember import _ember
from ember.api import to_graph
from ember.tosa import emit
from conftest import Lambda


pytestmark = pytest.mark.models  # a model compiled per case: the models tier

SAMPLES = 8

CASES = {
    "conv3x3": (lambda: nn.Conv2d(3, 8, 3, padding=1), (1, 3, 8, 8)),
    "conv_stride2_asymmetric_pad_relu": (lambda: nn.Sequential(nn.Conv2d(4, 6, 3, stride=2, padding=(1, 0)), nn.ReLU()),
                                         (1, 4, 9, 7)),
    "conv_dilated": (lambda: nn.Conv2d(4, 4, 3, dilation=2, padding=2), (1, 4, 8, 8)),
    "depthwise_relu6": (lambda: nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.ReLU6()), (1, 8, 6, 6)),
    "pointwise": (lambda: nn.Conv2d(8, 16, 1), (1, 8, 5, 5)),
    "conv1d_depthwise_no_bias": (lambda: nn.Conv1d(6, 6, 5, stride=2, padding=2, groups=6, bias=False), (1, 6, 17)),
    "conv_1x1_stride2_even": (lambda: nn.Conv2d(4, 8, 1, stride=2), (1, 4, 8, 8)),  # sliced: TOSA's exact size
    "linear": (lambda: nn.Linear(48, 10), (2, 48)),
    "max_pool": (lambda: nn.MaxPool2d(3, stride=2, padding=1), (1, 4, 9, 9)),
    "avg_pool_global": (lambda: nn.AdaptiveAvgPool2d(1), (1, 8, 25, 5)),
    "avg_pool_2x2": (lambda: nn.AvgPool2d(2), (1, 4, 8, 8)),
    "avg_pool_3x3_no_pad_count": (lambda: nn.AvgPool2d(3, 2, 1, count_include_pad=False), (1, 4, 7, 7)),
    "max_pool_flatten": (lambda: nn.Sequential(nn.MaxPool2d(2), nn.Flatten()), (1, 4, 6, 6)),  # transpose, reshape
    "sigmoid_table": (lambda: nn.Sigmoid(), (1, 4, 5, 5)),
    "pad": (lambda: Lambda(lambda x: F.pad(torch.relu(x), (1, 2, 0, 3))), (1, 3, 4, 4)),
    "slice": (lambda: Lambda(lambda x: torch.relu(x[:, 1:3])), (1, 4, 5, 5)),
    "cat": (lambda: Lambda(lambda x: torch.cat([torch.relu(x), F.max_pool2d(x, 3, 1, 1)], 1)), (1, 3, 4, 4)),
}


def _ir_and_program(make, shape):
    torch.manual_seed(0)
    model = make().eval()
    x = torch.randn(shape)
    ep = ember.quantize(model, (x,), [(torch.randn(shape),) for _ in range(16)])
    return _ember.lower_to_ir(to_graph(ep), "host", "cleanup"), ember.lower(ep, "host")


def _data(ir, t):
    info = ir["tensors"][t]
    return np.frombuffer(info["data"], {"int8": np.int8, "int32": np.int32}[info["dtype"]]).reshape(info["shape"])


def _accumulator(ir, op, x: np.ndarray) -> np.ndarray:
    """The op's exact int32 accumulator (as int64), channels last, from its IR operands."""
    a = op["attrs"]
    w = torch.from_numpy(_data(ir, op["inputs"][1]).astype(np.float64))
    bias = torch.from_numpy(_data(ir, op["inputs"][2]).astype(np.float64)) if op["inputs"][2] >= 0 else None
    xs = torch.from_numpy(x.astype(np.float64) - a["input_zp"])
    if op["kind"] == "linear":
        return (xs @ w.T + (0 if bias is None else bias)).numpy().astype(np.int64)
    top, left, bottom, right = a["padding"]
    xs = F.pad(xs.permute(0, 3, 1, 2), (left, right, top, bottom))  # zero in the zero-point domain
    weights = w.permute(3, 0, 1, 2) if a["depthwise"] else w.permute(0, 3, 1, 2)  # 1HWC / OHWI -> OIHW
    acc = F.conv2d(xs, weights, bias, stride=a["stride"], dilation=a["dilation"], groups=a["groups"])
    return acc.permute(0, 2, 3, 1).numpy().astype(np.int64)


def _rounded(ir, op, acc: np.ndarray):
    """acc * multiplier / 2^s rounded half up (TOSA) and half to even (Ember), each plus the
    output zero point and clamped; and where the product sits exactly on a tie."""
    a = op["attrs"]
    m = _data(ir, op["inputs"][3]).astype(object)
    s = (31 - _data(ir, op["inputs"][4]).astype(np.int64)).astype(object)
    product = acc.astype(object) * m
    half = np.vectorize(lambda v: 1 << (v - 1), otypes=[object])(s)
    floor = np.vectorize(lambda p, n: p >> n, otypes=[object])(product, s)
    rest = product - floor * np.vectorize(lambda n: 1 << n, otypes=[object])(s)
    tie = rest == half
    up = floor + (rest >= half)
    even = floor + ((rest > half) | (tie & (floor % 2 == 1)))
    finish = lambda v: np.clip(v.astype(np.int64) + a["output_zp"], a["q_min"], a["q_max"])  # noqa: E731
    return finish(up), finish(even), tie


def _pooled(ir, op, x: np.ndarray):
    """The window means of `x` (int8, channels last) rounded half away from zero (TOSA's
    AVG_POOL2D) and half to even (Ember), plus the zero point; and where a mean is exactly
    halfway."""
    a = op["attrs"]
    zp = ir["tensors"][op["inputs"][0]]["quant"]["zero_point"][0]
    top, left, bottom, right = a["padding"]
    xs = F.pad(torch.from_numpy(x.astype(np.float64) - zp).permute(0, 3, 1, 2), (left, right, top, bottom))
    ones = F.pad(torch.ones(x.shape[0], 1, x.shape[1], x.shape[2], dtype=torch.float64), (left, right, top, bottom))
    window = dict(kernel_size=a["kernel"], stride=a["stride"], divisor_override=1)
    total = F.avg_pool2d(xs, **window).permute(0, 2, 3, 1).numpy().astype(np.int64)
    count = F.avg_pool2d(ones, **window).permute(0, 2, 3, 1).numpy().astype(np.int64)
    floor, rest = total // count, total % count
    tie = 2 * rest == count
    away = np.sign(total) * ((2 * np.abs(total) + count) // (2 * count))
    even = floor + ((2 * rest > count) | (tie & (floor % 2 == 1)))
    finish = lambda v: np.clip(v + zp, a["q_min"], a["q_max"])  # noqa: E731
    return finish(away), finish(even), tie


@pytest.mark.parametrize("name", CASES)
def test_tosa_equals_portable_kernels_except_on_ties(name):
    ir, program = _ir_and_program(*CASES[name])
    tosa = emit(ir)
    (op,) = [o for o in ir["ops"] if o["kind"] in ("conv", "linear", "avg_pool2d")] or [None]
    rng = np.random.default_rng(1)
    ties = differing = total = 0
    for _ in range(SAMPLES):
        x = rng.integers(-128, 128, program.inputs[0]["shape"]).astype(np.int8)
        (ours,) = program.run_raw(x)
        total += ours.size
        outputs, status = tosa_reference_model.run(tosa, [x])
        assert status == tosa_reference_model.GraphStatus.TOSA_VALID
        theirs = outputs[0].reshape(ours.shape)
        if op is None:  # no rescale: the same bytes
            assert np.array_equal(theirs, ours)
            continue
        up, even, tie = (_pooled if op["kind"] == "avg_pool2d" else _rounded)(ir, op, _accumulator(ir, op, x)
                                                                               if op["kind"] != "avg_pool2d" else x)
        assert np.array_equal(theirs, up.reshape(ours.shape))   # TOSA's rule on the exact value
        assert np.array_equal(ours, even.reshape(ours.shape))   # Ember: the same, half to even
        differ = theirs != ours
        assert not (differ & ~tie.reshape(ours.shape)).any()    # they part only on ties
        ties += int(tie.sum())
        differing += int(differ.sum())
    print(f"{name}: {ties} ties, {differing} outputs differ, of {total}")


def test_dyadic_scales_tie_often_and_only_ties_differ():
    """Multipliers rewritten to exact halves (acc / 2 before the zero point): about half the
    products are ties. TOSA rounds every one up, Ember to even; nothing else differs."""
    ir, program = _ir_and_program(*CASES["pointwise"])
    (op,) = [o for o in ir["ops"] if o["kind"] == "conv"]
    for t, value in ((op["inputs"][3], 1 << 30), (op["inputs"][4], 0)):  # 2^30 * 2^(0 - 31) = 1/2
        info = ir["tensors"][t]
        info["data"] = np.full(info["shape"], value, np.int32).tobytes()
    tosa = emit(ir)
    x = np.random.default_rng(2).integers(-128, 128, program.inputs[0]["shape"]).astype(np.int8)
    outputs, _ = tosa_reference_model.run(tosa, [x])
    up, even, tie = _rounded(ir, op, _accumulator(ir, op, x))
    assert np.array_equal(outputs[0].reshape(up.shape), up)
    assert tie.mean() > 0.3
    assert ((up != even) <= tie).all() and (up != even).any()


def _tflite_rescale(x, multiplier: int, shift: int):
    """Ember's add input rescale (TFLite's MultiplyByQuantizedMultiplier, shift <= 0): a rounding
    doubling high multiply, then a rounding right shift, both ties away from zero."""
    def one(v):
        product = v * multiplier
        high = product + ((1 << 30) if product >= 0 else 1 - (1 << 30))
        high = -((-high) >> 31) if high < 0 else high >> 31  # C++ division: toward zero
        mask = (1 << -shift) - 1
        return (high >> -shift) + ((high & mask) > (mask >> 1) + (high < 0))
    return np.vectorize(one, otypes=[object])(x)


def _lut_then(fn, seed: int):
    """Ember and the reference model on fn(x, table(x)) for a lookup table: per sample the op
    after the table, x, the table's output, Ember's output and the reference model's."""
    ir, program = _ir_and_program(lambda: Lambda(lambda x: fn(x, torch.sigmoid(x))), (1, 8, 6, 6))
    lut, op = ir["ops"]
    tosa = emit(ir)
    rng = np.random.default_rng(seed)
    for _ in range(SAMPLES):
        x = rng.integers(-128, 128, program.inputs[0]["shape"]).astype(np.int8)
        (ours,) = program.run_raw(x)
        (theirs,), _ = tosa_reference_model.run(tosa, [x])
        yield op, x, _data(ir, lut["inputs"][1])[x.astype(np.int64) + 128], ours, theirs.reshape(ours.shape)


def _output_rounding(a: dict, product, ours, theirs):
    """Checks an elementwise op's outputs from its exact int32 product times the output
    multiplier: the reference model's rounded half up, Ember's half to even, apart only on ties.
    Returns where the product ties."""
    right = 31 - a["output_shift"]
    floor, rest, half = product >> right, product & ((1 << right) - 1), 1 << (right - 1)
    tie = rest == half
    finish = lambda v: np.clip(v.astype(np.int64) + a["output_zp"], a["q_min"], a["q_max"])  # noqa: E731
    assert np.array_equal(theirs, finish(floor + (rest >= half)))
    assert np.array_equal(ours, finish(floor + ((rest > half) | (tie & (floor % 2 == 1)))))
    assert not ((theirs != ours) & ~tie).any()
    return tie


def test_add_equals_portable_kernel_except_on_ties():
    """x + sigmoid(x): each input rescaled as TFLite and Ember do it, with two roundings (TOSA's
    DOUBLE_ROUND), so both sides sum the same int32 terms; only the output's rounding may tie."""
    ties = differing = 0
    for add, x, table, ours, theirs in _lut_then(lambda x, y: x + y, seed=3):
        a = add["attrs"]
        terms = [_tflite_rescale((operand.astype(object) - a[f"{side}_zp"]) * (1 << a["left_shift"]),
                                 a[f"{side}_multiplier"], a[f"{side}_shift"]) for side, operand in zip("ab", (x, table))]
        tie = _output_rounding(a, (terms[0] + terms[1]) * a["output_multiplier"], ours, theirs)
        ties += int(tie.sum())
        differing += int((theirs != ours).sum())
    print(f"add: {ties} ties, {differing} outputs differ")


def test_mul_equals_portable_kernel_except_on_ties():
    """x * sigmoid(x): the product (a - a_zp) * (b - b_zp) is exact on both sides; only the
    output's rounding may tie."""
    ties = differing = 0
    for mul, x, table, ours, theirs in _lut_then(lambda x, y: x * y, seed=4):
        a = mul["attrs"]
        product = (x.astype(object) - a["a_zp"]) * (table.astype(object) - a["b_zp"]) * a["output_multiplier"]
        tie = _output_rounding(a, product, ours, theirs)
        ties += int(tie.sum())
        differing += int((theirs != ours).sum())
    print(f"mul: {ties} ties, {differing} outputs differ")
