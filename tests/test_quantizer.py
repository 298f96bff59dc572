"""EmberQuantizer: structure of the re-exported quantized graph, and numerics vs float."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from ember.calibrate import calibrate
from ember.quantizer import quantize

aten = torch.ops.aten
qd = torch.ops.quantized_decomposed
Q = qd.quantize_per_tensor.default
DQ = qd.dequantize_per_tensor.default
DQC = qd.dequantize_per_channel.default


# --- helpers ----------------------------------------------------------------------------------
def _run(model, shape, n_cal=8, seed=0):
    """Quantize with random BN statistics (so folding is visible) and compare against float."""
    torch.manual_seed(seed)
    model.eval()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    cal = [torch.randn(shape) for _ in range(n_cal)]
    ep = quantize(model, (cal[0],), cal, progress=False)
    x = cal[1]
    with torch.no_grad():
        ref, got = model(x), ep.module()(x)
    rel = ((got - ref).abs().max() / (ref.max() - ref.min()).clamp_min(1e-6)).item()
    print(f"\n{type(model).__name__}: max|q-f| / range(f) = {rel:.4f}")
    return ep, rel


def _nodes(ep, target):
    return [n for n in ep.graph.nodes if n.op == "call_function" and n.target == target]


def _one(ep, target):
    found = _nodes(ep, target)
    assert len(found) == 1, f"expected one {target}, got {len(found)}"
    return found[0]


def _const(ep, node):
    """Tensor behind a lifted placeholder (parameter, buffer or constant)."""
    sig = ep.graph_signature
    for table, store in ((sig.inputs_to_parameters, ep.state_dict),
                         (sig.inputs_to_buffers, ep.state_dict),
                         (sig.inputs_to_lifted_tensor_constants, ep.constants)):
        if node.name in table:
            return store[table[node.name]]
    raise AssertionError(f"{node} is not a constant placeholder")


def _in_qparams(node, i=0):
    dq = node.args[i]
    assert dq.target == DQ, f"input {i} of {node} is {dq.target}, not a dequantize"
    return dq.args[1], dq.args[2]


def _out_qparams(node):
    qs = [u for u in node.users if u.target == Q]
    assert len(qs) == 1, f"output of {node} is not quantized"
    return qs[0].args[1], qs[0].args[2]


def _assert_no_bn(ep):
    names = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
    assert not any("batch_norm" in t for t in names), names


def _check_conv_like(ep, node):
    """int8 per-channel symmetric weight on axis 0; int32 bias with scale = s_in * s_w."""
    w_dq, b_dq = node.args[1], node.args[2]
    assert w_dq.target == DQC and b_dq.target == DQC
    w, w_scale, w_zp, axis, qmin, qmax, dtype = w_dq.args
    assert (axis, qmin, qmax, dtype) == (0, -127, 127, torch.int8)
    assert _const(ep, w).dtype == torch.int8
    assert torch.all(_const(ep, w_zp) == 0)
    b, b_scale, b_zp, b_axis, _, _, b_dtype = b_dq.args
    assert b_dtype == torch.int32 and b_axis == 0 and _const(ep, b).dtype == torch.int32
    assert torch.all(_const(ep, b_zp) == 0)
    in_scale, _ = _in_qparams(node, 0)
    torch.testing.assert_close(_const(ep, b_scale), in_scale * _const(ep, w_scale),
                               rtol=1e-6, atol=0)


def _check_fused(node, act_target):
    """conv/linear/add directly feeds its activation: no q/dq in between."""
    (act,) = node.users
    assert act.target == act_target and act.args[0] is node
    _out_qparams(act)  # the activation's output carries the quantization


# --- conv / linear with BN and fused activations ----------------------------------------------
class ConvBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class DwConvRelu6(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, groups=8, bias=False)
        self.bn, self.act = nn.BatchNorm2d(8), nn.ReLU6()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Conv1dBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.bn = nn.Conv1d(4, 6, 3), nn.BatchNorm1d(6)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class LinearBnRelu(nn.Module):  # the anomaly-detection model's building block
    def __init__(self):
        super().__init__()
        self.fc, self.bn = nn.Linear(16, 12), nn.BatchNorm1d(12)

    def forward(self, x):
        return F.relu(self.bn(self.fc(x)))


@pytest.mark.parametrize("model,shape,op", [
    (ConvBnRelu(), (1, 3, 8, 8), aten.conv2d.default),
    (DwConvRelu6(), (1, 8, 8, 8), aten.conv2d.default),
    (Conv1dBnRelu(), (2, 4, 16), aten.conv1d.default),
    (LinearBnRelu(), (4, 16), aten.linear.default),
])
def test_conv_linear_bn_act(model, shape, op):
    ep, rel = _run(model, shape)
    _assert_no_bn(ep)
    node = _one(ep, op)
    _check_conv_like(ep, node)
    (act,) = node.users
    assert act.target in (aten.relu.default, aten.hardtanh.default)
    _check_fused(node, act.target)
    assert rel < 0.03


# --- elementwise binary -----------------------------------------------------------------------
class AddRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 4, 1), nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.a(x) + self.b(x))


class Mul(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 4, 1), nn.Conv2d(3, 4, 1)

    def forward(self, x):
        return self.a(x) * self.b(x)


def test_add_relu_fused():
    ep, rel = _run(AddRelu(), (1, 3, 8, 8))
    add = _one(ep, aten.add.Tensor)
    _in_qparams(add, 0)
    _in_qparams(add, 1)
    _check_fused(add, aten.relu.default)
    assert rel < 0.03


def test_mul():
    ep, rel = _run(Mul(), (1, 3, 8, 8))
    mul = _one(ep, aten.mul.Tensor)
    _in_qparams(mul, 0)
    _in_qparams(mul, 1)
    _out_qparams(mul)
    assert rel < 0.03


def test_arithmetic_with_a_number_is_quantized_and_unknown_op_stays_float():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 1)

        def forward(self, x):
            return torch.exp(self.conv(x) + 1.0)

    ep, _ = _run(M(), (1, 3, 4, 4))
    add, exp = _one(ep, aten.add.Tensor), _one(ep, aten.exp.default)
    assert add.args[0].target == DQ and add.args[1] == 1.0
    assert any(u.target == Q for u in add.users)  # x + 1: its own output qparams (a table)
    assert not any(u.target == Q for u in exp.users)  # no annotation for exp: stays float


# --- pooling and data movement: shared qparams ------------------------------------------------
def _assert_shared(node, i=0):
    assert _in_qparams(node, i) == _out_qparams(node), node


class Pools(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        y = F.max_pool2d(y, 2)
        y = F.avg_pool2d(y, 2)
        y = F.adaptive_avg_pool2d(y, 1)
        return y.mean((2, 3))


def test_pooling_shares_qparams():
    ep, rel = _run(Pools(), (1, 3, 16, 16))
    for op in (aten.max_pool2d.default, aten.avg_pool2d.default,
               aten.adaptive_avg_pool2d.default, aten.mean.dim):
        _assert_shared(_one(ep, op))
    assert rel < 0.03


class Movement(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 4, 1), nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(288, 5)

    def forward(self, x):
        y = torch.cat([torch.relu(self.a(x)), self.b(x)], dim=1)
        y = F.pad(y, (1, 1, 1, 1))
        y = y.permute(0, 2, 3, 1).transpose(1, 2)
        y = y.unsqueeze(0).squeeze(0)
        a, b = y.chunk(2, dim=3)  # split, then a getitem per part
        y = torch.cat([b, a, y[:, :, :, 1:3], y.select(3, 0).unsqueeze(3)], dim=3)
        return self.fc(torch.flatten(y, 1)[:, :288])


def test_data_movement_shares_qparams():
    ep, rel = _run(Movement(), (1, 3, 4, 4))
    for cat in _nodes(ep, aten.cat.default):
        outs = _out_qparams(cat)
        assert all((dq.args[1], dq.args[2]) == outs for dq in cat.args[0])
    # The functional graph (frontend.export): flatten is a view, chunk a split.
    for op in (aten.pad.default, aten.permute.default, aten.transpose.int, aten.unsqueeze.default,
               aten.select.int, aten.view.default, aten.slice.Tensor):
        assert _nodes(ep, op), op
        for node in _nodes(ep, op):
            _assert_shared(node)
    split = _one(ep, aten.split.Tensor)
    for part in split.users:
        assert _in_qparams(split) == _out_qparams(part)
    _check_conv_like(ep, _one(ep, aten.linear.default))
    assert rel < 0.03


# --- fixed-qparam and standalone activations --------------------------------------------------
class Head(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fc, self.fn = nn.Linear(8, 6), fn

    def forward(self, x):
        return self.fn(self.fc(x))


@pytest.mark.parametrize("fn,target,qparams", [
    (lambda y: F.softmax(y, dim=-1), aten.softmax.int, (1 / 256, -128)),
    (torch.sigmoid, aten.sigmoid.default, (1 / 256, -128)),
    (torch.tanh, aten.tanh.default, (1 / 128, 0)),
    (F.hardswish, aten.hardswish.default, None),
    (F.silu, aten.silu.default, None),
])
def test_activation_qparams(fn, target, qparams):
    ep, rel = _run(Head(fn), (4, 8))
    node = _one(ep, target)
    _in_qparams(node, 0)
    out = _out_qparams(node)
    if qparams is not None:
        assert out == pytest.approx(qparams)
    assert rel < 0.03


# --- calibration helper -----------------------------------------------------------------------
def test_calibrate_accepts_tuples_tensors_and_generators():
    seen = []

    class Probe(nn.Module):
        def forward(self, x, y=None):
            seen.append(y is not None)
            return x

    assert calibrate(Probe(), [torch.zeros(1), (torch.zeros(1), torch.ones(1))],
                     progress=False) == 2
    assert calibrate(Probe(), (torch.zeros(1) for _ in range(3)), progress=False) == 3
    assert seen == [False, True, False, False, False]
