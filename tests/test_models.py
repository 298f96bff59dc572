"""Tests for the ember.models zoo: MLPerf Tiny layer counts, shapes, export, digits training."""
import functools
import time

import pytest
import torch

import ember.models as zoo
from ember.models.digits import _train, accuracy
from ember.models.stats import count

# (params with BN folded, MACs, output shape), from reference/mlperf_tiny_models.md section 7.
# sww: 46,459 params. The .tflite stores 46,883 = 46,459 + 424 zero DW biases (40+128+128+128),
# which this port does not have (its DW convs are bias=False); we test the 46,459 figure.
EXPECTED = {
    "kws": (22_604, 2_656_768, (1, 12)),
    "vww": (210_850, 7_489_664, (1, 2)),
    "ic": (77_706, 12_501_632, (1, 10)),
    "ad": (265_864, 264_192, (1, 640)),
    "sww": (46_459, 826_368, (1, 3)),
}
INPUTS = {"kws": (1, 1, 49, 10), "vww": (1, 3, 96, 96), "ic": (1, 3, 32, 32), "ad": (1, 640), "sww": (1, 40, 30)}
MLPERF = list(EXPECTED)


@functools.lru_cache(maxsize=None)
def entry(name):
    return zoo.ZOO[name]()


@pytest.mark.parametrize("name", MLPERF)
def test_params_and_macs(name):
    model, ex, _ = entry(name)
    params, macs, _ = EXPECTED[name]
    assert count(model, ex) == (params, macs)


@pytest.mark.parametrize("name", MLPERF)
def test_output_shape_and_softmax(name):
    model, ex, _ = entry(name)
    assert not model.training
    with torch.no_grad():
        out = model(*ex)
    assert tuple(out.shape) == EXPECTED[name][2]
    assert torch.isfinite(out).all()
    if name != "ad":  # classifiers end in softmax
        assert torch.allclose(out.sum(1), torch.ones(1)) and (out >= 0).all()


@pytest.mark.parametrize("name", MLPERF)
def test_entry_contract(name):
    model, ex, calib = entry(name)
    assert isinstance(ex, tuple) and len(ex) == 1 and tuple(ex[0].shape) == INPUTS[name]
    assert isinstance(calib, list) and len(calib) == 32
    assert all(isinstance(c, tuple) and len(c) == 1 and c[0].shape == ex[0].shape for c in calib)
    # BN statistics are seeded and non-trivial, so folding matters
    bns = [m for m in model.modules() if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d))]
    assert bns and all(not torch.allclose(b.running_var, torch.ones_like(b.running_var)) for b in bns)
    # deterministic: a second call gives the same weights and outputs
    model2, ex2, _ = zoo.ZOO[name]()
    assert torch.equal(ex[0], ex2[0])
    with torch.no_grad():
        assert torch.equal(model(*ex), model2(*ex))
    # outputs depend on the input (not collapsed by random init)
    with torch.no_grad():
        outs = model(torch.cat([c[0] for c in calib]))
    assert outs.std(0).mean() > 1e-2


def test_input_ranges():
    x = lambda n: torch.cat([c[0] for c in entry(n)[2]])
    assert 0 <= x("vww").min() and x("vww").max() <= 1
    assert 0 <= x("ic").min() and x("ic").max() <= 255 and x("ic").max() > 1
    assert 0 <= x("sww").min() and x("sww").max() <= 1
    assert -123.5 <= x("kws").min() and x("kws").max() <= 25.8
    assert -85 <= x("ad").min() and x("ad").max() <= 15


def test_sww_depthwise_layers():
    model, _, _ = entry("sww")
    dws = [b.dw for b in model.blocks]
    assert [d.kernel_size[0] for d in dws] == [3, 5, 10, 15]
    assert all(d.bias is None and d.groups == d.in_channels for d in dws)
    assert all(b.pw.bias is None for b in model.blocks)


@pytest.mark.parametrize("name", MLPERF + ["digits"])
def test_export(name):
    model, ex, _ = entry(name)
    ep = torch.export.export(model, ex)
    with torch.no_grad():
        assert torch.allclose(ep.module()(*ex), model(*ex), atol=1e-5)


def test_digits_training():
    _train.cache_clear()
    t0 = time.perf_counter()
    model, (x_tr, y_tr), (x_te, y_te) = zoo.train_digits(seed=0)
    elapsed = time.perf_counter() - t0
    assert elapsed < 20
    assert x_tr.shape[1:] == (1, 8, 8) and x_te.shape[1:] == (1, 8, 8)
    assert x_tr.dtype == torch.float32 and len(x_tr) + len(x_te) == 1797
    assert accuracy(model, x_te, y_te) >= 0.95


def test_digits_entry():
    model, ex, calib = entry("digits")
    assert tuple(ex[0].shape) == (1, 1, 8, 8) and len(calib) == 32
    with torch.no_grad():
        assert tuple(model(*ex).shape) == (1, 10)
    x_tr = zoo.train_digits(seed=0)[1][0]
    assert all(any(torch.equal(c[0][0], x) for x in x_tr) for c in calib[:4])


def test_stats_counts_bias_and_bn():
    # conv without bias + BN adds a folded bias; conv with bias + BN does not double count
    for bias in (False, True):
        m = torch.nn.Sequential(torch.nn.Conv2d(2, 4, 3, bias=bias), torch.nn.BatchNorm2d(4), torch.nn.ReLU())
        assert count(m, (torch.zeros(1, 2, 5, 5),)) == (2 * 4 * 9 + 4, 4 * 3 * 3 * 2 * 9)
    m = torch.nn.Conv2d(2, 4, 3, bias=False)
    assert count(m, (torch.zeros(1, 2, 5, 5),)).params == 2 * 4 * 9
