"""MLPerf Tiny ad01: fully connected autoencoder, 640 inputs (spec: reference/mlperf_tiny_models.md, section 4).

Input [1,640]: 5 log-mel frames x 128 mels, frame-major. Output [1,640] reconstruction (no softmax).
265,864 params (BN folded), 264,192 MACs.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._common import as_samples, init_model, smooth_noise


class FCBNReLU(nn.Module):
    """FC + BN + ReLU (rows 1-9)."""

    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.fc = nn.Linear(cin, cout, bias=False)
        self.bn = nn.BatchNorm1d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.fc(x)))


class AutoEncoder(nn.Module):
    def __init__(self, dim: int = 640, hidden: int = 128, bottleneck: int = 8):
        super().__init__()
        self.layers = nn.Sequential(
            FCBNReLU(dim, hidden),                               # row 1: 640->128
            *[FCBNReLU(hidden, hidden) for _ in range(3)],       # rows 2-4: 128->128
            FCBNReLU(hidden, bottleneck),                        # row 5: 128->8 bottleneck
            FCBNReLU(bottleneck, hidden),                        # row 6: 8->128
            *[FCBNReLU(hidden, hidden) for _ in range(3)],       # rows 7-9: 128->128
        )
        self.out = nn.Linear(hidden, dim)                        # row 10: 128->640, linear

    def forward(self, x):
        return self.out(self.layers(x))


def calibration_data(n: int = 32, seed: int = 4) -> list[tuple[torch.Tensor]]:
    """Synthetic log-mel windows [1,640] in dB: a spectral tilt from about -10 dB (low mels) to
    -50 dB (high mels), smooth over frequency and time, clipped to the reference int8 input
    range [-84.9, 14.9]."""
    g = torch.Generator().manual_seed(seed)
    tilt = torch.linspace(-10.0, -50.0, 128)
    x = tilt + 8.0 * smooth_noise(g, n, (1, 5, 128), (3, 32))[:, 0]   # [n, 5 frames, 128 mels]
    return as_samples(x.clamp(-84.9, 14.9).reshape(n, 640))


def ad(seed: int = 0):
    """Zoo entry: (model, example_inputs, calibration) for ad01 autoencoder."""
    calib = calibration_data()
    model = init_model(AutoEncoder(), calib, seed)
    return model, calib[0], calib
