"""MLPerf Tiny kws01: DS-CNN small (spec: reference/mlperf_tiny_models.md, section 1).

Input NCHW [1,1,49,10]: 49 frames x 10 MFCCs. Output [1,12] softmax probabilities.
22,604 params (BN folded), 2,656,768 MACs.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._common import as_samples, init_model, smooth_noise


# The twelve Speech Commands classes, in the reference model's output order.
LABELS = ("down", "go", "left", "no", "off", "on", "right", "stop", "up", "yes", "silence", "unknown")


class DSBlock(nn.Module):
    """Depthwise 3x3 'same' + BN + ReLU, then pointwise 1x1 + BN + ReLU (rows 2-9)."""

    def __init__(self, c: int = 64):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c, bias=False)  # DW 3x3/1, same (1): 640 params
        self.dw_bn = nn.BatchNorm2d(c)
        self.pw = nn.Conv2d(c, c, 1, bias=False)                        # PW 1x1, 64->64: 4,160 params
        self.pw_bn = nn.BatchNorm2d(c)

    def forward(self, x):
        x = F.relu(self.dw_bn(self.dw(x)))
        return F.relu(self.pw_bn(self.pw(x)))


class DSCNN(nn.Module):
    def __init__(self, num_classes: int = 12, c: int = 64):
        super().__init__()
        # Row 1: Conv2D 10x4 / 2x2, TF 'same' on 49x10 = pads H 4/5, W 1/1, 1->64, BN+ReLU -> 25x5x64
        self.conv1 = nn.Conv2d(1, c, (10, 4), stride=2, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        # Rows 2-9: four DW/PW blocks, 25x5x64 throughout
        self.blocks = nn.Sequential(*[DSBlock(c) for _ in range(4)])
        # Row 10: AvgPool 25x5 (global; the .tflite pools 25x5, not the Keras recipe's 24x5)
        self.pool = nn.AvgPool2d((25, 5))
        # Row 11: FC 64->12 + softmax (780 params)
        self.fc = nn.Linear(c, num_classes)

    def forward(self, x):
        x = F.pad(x, (1, 1, 4, 5))  # (W left, W right, H top, H bottom)
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.pool(self.blocks(x)).flatten(1)
        return F.softmax(self.fc(x), dim=1)


def calibration_data(n: int = 32, seed: int = 1) -> list[tuple[torch.Tensor]]:
    """Synthetic MFCC-like frames [1,1,49,10]: a strongly negative c0, decaying spread for higher
    coefficients, smooth along time; clipped to the reference int8 input range [-123.4, 25.7]."""
    g = torch.Generator().manual_seed(seed)
    mean = torch.tensor([-50.0, 8.0, -4.0, 3.0, -2.0, 2.0, -1.0, 1.0, 0.0, 0.0])
    std = torch.tensor([15.0, 10.0, 8.0, 6.0, 5.0, 4.0, 4.0, 3.0, 3.0, 3.0])
    x = smooth_noise(g, n, (1, 49, 10), (12, 10)) * std + mean
    return as_samples(x.clamp(-123.4, 25.7))


def kws(seed: int = 0):
    """Zoo entry: (model, example_inputs, calibration) for kws01 DS-CNN."""
    calib = calibration_data()
    model = DSCNN()
    init_model(model, calib, seed, head=model.fc)
    return model, calib[0], calib
