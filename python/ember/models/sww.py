"""MLPerf Tiny sww01: 1-D DS-CNN streaming wakeword (spec: reference/mlperf_tiny_models.md, section 5).

Input NCT [1,40,30]: 40 log-mel bins x 30 frames, values in [0,1]. Output [1,3] softmax
(0 wakeword "marvin", 1 silence, 2 other).
46,459 params (BN folded; the .tflite's 46,883 adds 424 zero DW biases that this port does not
have), 826,368 MACs.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._common import as_samples, init_model, smooth_noise


class Block(nn.Module):
    """DW conv along time, valid, no bias, no BN / act; then PW 1x1 (no bias) + BN + ReLU."""

    def __init__(self, cin: int, cout: int, k: int):
        super().__init__()
        self.dw = nn.Conv1d(cin, cin, k, groups=cin, bias=False)
        self.pw = nn.Conv1d(cin, cout, 1, bias=False)
        self.bn = nn.BatchNorm1d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.pw(self.dw(x))))


class SWW(nn.Module):
    def __init__(self, num_classes: int = 3):
        super().__init__()
        self.blocks = nn.Sequential(
            Block(40, 128, 3),     # rows 1-2: DW k3 (40), PW 40->128   -> T 28
            Block(128, 128, 5),    # rows 3-4: DW k5, PW 128->128       -> T 24
            Block(128, 128, 10),   # rows 5-6: DW k10, PW 128->128      -> T 15
            Block(128, 32, 15),    # rows 7-8: DW k15, PW 128->32       -> T 1
        )
        self.fc = nn.Linear(32, num_classes)   # row 9: flatten -> FC 32->3 + softmax (99 params)

    def forward(self, x):
        return F.softmax(self.fc(self.blocks(x).flatten(1)), dim=1)


def calibration_data(n: int = 32, seed: int = 5) -> list[tuple[torch.Tensor]]:
    """Synthetic LFBE windows [1,40,30]: (dB + offset)/64 clipped to [0,1], here within the
    reference int8 input range [0, 0.944]; smooth over mel bins and time."""
    g = torch.Generator().manual_seed(seed)
    x = 0.45 + 0.15 * smooth_noise(g, n, (1, 40, 30), (10, 8))[:, 0]
    return as_samples(x.clamp(0, 0.944))


def sww(seed: int = 0):
    """Zoo entry: (model, example_inputs, calibration) for sww01 1-D DS-CNN."""
    calib = calibration_data()
    model = SWW()
    init_model(model, calib, seed, head=model.fc)
    return model, calib[0], calib
