"""Shared helpers for the model zoo: seeded initialisation and synthetic calibration data.

Zoo models carry no trained weights (nothing is downloaded). Instead every zoo entry builds its
model deterministically from a fixed seed:

* conv / linear weights: Kaiming-normal (fan-in) so activations keep their scale through depth;
* BatchNorm: running mean / variance are measured on the entry's seeded calibration data (so
  every BN actually normalises and the statistics are far from the trivial mean 0 / var 1), and
  gamma / beta are drawn at random so folding BN into the preceding layer changes its weights
  and adds a real bias. beta > 0 keeps most units in the ReLU's linear range (about 15 % are
  clipped), which makes the random deep nets far less sensitive to int8 noise;
* classifier head (optional): centred and rescaled (one scalar, the RMS spread of its inputs
  across calibration samples) so that the logits vary with the input; otherwise global pooling of
  random features gives nearly the same output for every input, and a top-1 check after
  quantization would test nothing.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

_BN = (nn.BatchNorm1d, nn.BatchNorm2d)


def init_model(model: nn.Module, calibration: list[tuple[torch.Tensor, ...]], seed: int,
               head: nn.Linear | None = None) -> nn.Module:
    """Seed all weights, set BN statistics from `calibration`, standardise the inputs of the
    classifier `head` (if given), return `model` in eval mode."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu", generator=g)
                if m.bias is not None:
                    m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=g))
            elif isinstance(m, _BN):
                m.weight.copy_(0.5 + torch.rand(m.weight.shape, generator=g))         # gamma in [0.5, 1.5)
                m.bias.copy_(0.5 + torch.rand(m.bias.shape, generator=g))           # beta in [0.5, 1.5)
                m.reset_running_stats()
                m.momentum = None                                                     # cumulative average
        # Measure the BN running statistics on the calibration batch (train mode, stats only).
        batch = [torch.cat(xs) for xs in zip(*calibration)]
        model.train()
        model(*batch)
        model.eval()
        if head is not None:
            feats = []
            h = head.register_forward_hook(lambda m, i, o: feats.append(i[0]))
            model(*batch)
            h.remove()
            mean, spread = feats[0].mean(0), feats[0].std(0).pow(2).mean().sqrt()
            head.weight.div_(spread)
            head.bias.copy_(0.1 * head.bias - head.weight @ mean)
    return model


def smooth_noise(g: torch.Generator, n: int, shape: tuple[int, ...], low: tuple[int, ...]) -> torch.Tensor:
    """`n` samples of smooth random fields of `shape` (C,H,W) or (C,T): coarse noise of size `low`
    upsampled (bilinear / linear), plus a little fine noise. Roughly zero-mean, unit-scale.
    Each sample also gets its own random gain and per-channel offset (like loudness or
    brightness), so whole-input statistics differ between samples as they do in real data."""
    gain = 0.5 + torch.rand((n, 1, *[1] * len(low)), generator=g)
    offset = torch.randn((n, shape[0], *[1] * len(low)), generator=g)
    coarse = gain * torch.randn((n, shape[0], *low), generator=g) + offset
    mode = "bilinear" if len(low) == 2 else "linear"
    x = F.interpolate(coarse, size=shape[1:], mode=mode, align_corners=False)
    return x + 0.1 * torch.randn((n, *shape), generator=g)


def as_samples(x: torch.Tensor) -> list[tuple[torch.Tensor]]:
    """Split a batch into a list of 1-sample input tuples."""
    return [(s.unsqueeze(0).contiguous(),) for s in x]
