"""Attention as PyTorch code writes it (F.scaled_dot_product_attention, with and without masks)
compiled to int8: the front end decomposes it to its math (frontend._attention), the products of
two activations run batch_matmul_s8, the softmax softmax_s8. Compared with PyTorch's converted
graph (at most 1 output quantum) and, against the float model, no further than that graph."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import ember
from conftest import quanta_apart


class Attention(nn.Module):
    """Two heads of self-attention over [N, T, 16] with linear projections around it."""

    def __init__(self, mask: str):
        super().__init__()
        self.qkv, self.out = nn.Linear(16, 48), nn.Linear(16, 16)
        self.mask = mask
        if mask == "float":  # an additive mask of the dtype's lowest value, as Hugging Face models make
            self.register_buffer("bias", torch.triu(torch.full((6, 6), torch.finfo(torch.float32).min), 1))
        if mask == "bool":
            self.register_buffer("keep", torch.ones(6, 6, dtype=torch.bool).tril())

    def forward(self, x):
        q, k, v = self.qkv(x).unflatten(-1, (3, 2, 8)).permute(2, 0, 3, 1, 4).unbind(0)
        mask = {"none": None, "causal": None, "float": getattr(self, "bias", None), "bool": getattr(self, "keep", None)}
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[self.mask], is_causal=self.mask == "causal")
        return self.out(y.transpose(1, 2).flatten(2))


def _quantized(mask: str):
    torch.manual_seed(0)
    model = Attention(mask).eval()
    calibration = [(torch.randn(1, 6, 16),) for _ in range(8)]
    return model, calibration, ember.quantize(model, calibration[0], calibration, progress=False)


@pytest.mark.parametrize("mask", ["none", "causal", "float"])
def test_attention_int8_matches_reference(mask):
    model, calibration, ep = _quantized(mask)
    program = ember.lower(ep, "cortex-m55")
    kernels = {op["kernel"] for op in program.inspect()["ops"]}
    assert {"batch_matmul_s8", "softmax_s8", "fully_connected_s8"} <= kernels
    assert not any(k.endswith("_f32") for k in kernels)
    for sample in calibration[:4]:
        assert quanta_apart(program, ep, sample) <= 1
    # Against the float model, no further than PyTorch's own int8 graph is, plus one quantum.
    x = calibration[0][0]
    with torch.no_grad():
        ours, theirs = (program.run(x) - model(x)).abs().max(), (ep.module()(x) - model(x)).abs().max()
    assert ours <= theirs + program.outputs[0]["scale"]


def test_causal_mask_is_the_float_mask():
    """is_causal and the equivalent additive mask compile to the same arithmetic."""
    x = torch.randn(1, 6, 16)
    outputs = []
    for mask in ("causal", "float"):
        _, _, ep = _quantized(mask)
        outputs.append(ember.lower(ep, "host").run(x, dequantize=False))
    assert torch.equal(outputs[0], outputs[1])


def test_constant_boolean_mask_is_the_additive_one():
    """A registered boolean mask (True keeps a position) is evaluated at compile time into the
    additive mask: int8 kernels only, and the causal mask's program gives the same bytes."""
    _, calibration, ep = _quantized("bool")
    program = ember.lower(ep, "cortex-m55")
    assert not any(op["kernel"].endswith("_f32") for op in program.inspect()["ops"])
    for sample in calibration[:4]:
        assert quanta_apart(program, ep, sample) <= 1
    x = torch.randn(1, 6, 16)
    outputs = [ember.lower(_quantized(mask)[2], "host").run(x, dequantize=False) for mask in ("bool", "causal")]
    assert torch.equal(outputs[0], outputs[1])


class PaddingMask(nn.Module):
    """A key padding mask computed from the input: no constant to evaluate."""

    def forward(self, x):
        q = x.unsqueeze(1)
        keep = (x[..., 0] > 0)[:, None, None, :]
        return F.scaled_dot_product_attention(q, q, q, attn_mask=keep).squeeze(1)


def test_computed_boolean_mask_is_a_compile_error_naming_the_op():
    x = torch.randn(1, 6, 16)
    ep = ember.quantize(PaddingMask().eval(), (x,), [(x,)])
    with pytest.raises(ember.CompileError, match=r"aten\.(gt|logical_not|masked_fill)"):
        ember.lower(ep, "cortex-m55")
