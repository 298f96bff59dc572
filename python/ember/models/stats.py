"""Parameter and MAC counts as deployed (BatchNorm folded), by tracing one forward pass.

Counting rules (reference/mlperf_tiny_models.md, section 0):
* params: conv / linear weights and biases. A BatchNorm fed directly by a conv / linear folds
  into it, adding a bias of `out_channels` when that layer has none; BN parameters themselves
  are never counted.
* MACs: conv, depthwise conv and linear multiply-accumulates only, per sample (batch 1); a GRU
  or LSTM counts its gates' products over the sequence, multi-head attention its projections and
  the two products of the attention itself.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import nn

_LAYERS = (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Linear)
_BN = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)


class Stats(NamedTuple):
    params: int
    macs: int


def _macs(m: nn.Module, out: torch.Tensor) -> int:
    per_sample = out.numel() // out.shape[0]
    if isinstance(m, nn.Linear):
        return per_sample * m.in_features
    return per_sample * (m.in_channels // m.groups) * math.prod(m.kernel_size)


def _sequence_macs(m: nn.Module, inputs: tuple) -> int:
    x = inputs[0]
    if isinstance(m, nn.MultiheadAttention):  # q, k, v projections, q·kᵀ, weights·v, output
        t, d = (x.shape[1] if m.batch_first else x.shape[0]), m.embed_dim
        return 4 * t * d * d + 2 * t * t * d
    steps = x.shape[1] if m.batch_first and x.dim() == 3 else x.shape[0]
    gates = 3 if isinstance(m, nn.GRU) else 4
    directions = 2 if m.bidirectional else 1
    per_step = sum(gates * ((m.input_size if layer == 0 else m.hidden_size * directions) + m.hidden_size)
                   * m.hidden_size for layer in range(m.num_layers))
    return steps * directions * per_step


def count(model: nn.Module, example_inputs: tuple) -> Stats:
    """Return `Stats(params, macs)` for `model` run on `example_inputs` (each module counted once
    for its parameters, and at every call for its MACs)."""
    params: dict[nn.Module, int] = {}
    macs = 0
    produced: dict[int, tuple[torch.Tensor, nn.Module]] = {}   # id(output) -> (output, layer)

    def layer_hook(m, inputs, out):
        nonlocal macs
        macs += _macs(m, out)
        params.setdefault(m, m.weight.numel() + (m.bias.numel() if m.bias is not None else 0))
        produced[id(out)] = (out, m)   # keep `out` alive so its id stays unique

    def sequence_hook(m, inputs, out):
        nonlocal macs
        macs += _sequence_macs(m, inputs)
        params.setdefault(m, sum(p.numel() for p in m.parameters()))

    def bn_hook(m, inputs, out):
        hit = produced.get(id(inputs[0]))
        if hit is not None and hit[0] is inputs[0] and hit[1].bias is None:
            layer = hit[1]
            params[layer] = layer.weight.numel() + layer.weight.shape[0]   # folded BN adds a bias

    handles = [m.register_forward_hook(layer_hook) for m in model.modules() if isinstance(m, _LAYERS)]
    handles += [m.register_forward_hook(bn_hook) for m in model.modules() if isinstance(m, _BN)]
    handles += [m.register_forward_hook(sequence_hook) for m in model.modules()
                if isinstance(m, (nn.GRU, nn.LSTM, nn.MultiheadAttention))]
    try:
        with torch.no_grad():
            model(*example_inputs)
    finally:
        for h in handles:
            h.remove()
    return Stats(sum(params.values()), macs)
