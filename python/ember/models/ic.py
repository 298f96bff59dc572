"""MLPerf Tiny ic01: ResNet-8 with 16 filters, CIFAR-10 32x32x3 (spec: reference/mlperf_tiny_models.md, section 3).

Input NCHW [1,3,32,32], raw 0-255 pixels (no normalisation). Output [1,10] softmax.
77,706 params (BN folded), 12,501,632 MACs.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._common import as_samples, init_model, smooth_noise


class Stack(nn.Module):
    """A residual stack: conv 3x3/s + BN + ReLU, conv 3x3/1 + BN, add shortcut, ReLU.

    stride 1: identity shortcut (rows 1-3). stride 2: the first conv uses the TF 'same' pad
    0/1 and the shortcut is a 1x1/2 conv with bias and no BN (rows 4-7 and 8-11)."""

    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.stride = stride
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, padding=1 if stride == 1 else 0, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Conv2d(cin, cout, 1, stride) if stride != 1 else None

    def forward(self, x):
        y = F.pad(x, (0, 1, 0, 1)) if self.stride == 2 else x
        y = F.relu(self.bn1(self.conv1(y)))
        y = self.bn2(self.conv2(y))
        s = self.shortcut(x) if self.shortcut is not None else x
        return F.relu(s + y)


class ResNet8(nn.Module):
    def __init__(self, num_classes: int = 10, f: int = 16):
        super().__init__()
        self.conv0 = nn.Conv2d(3, f, 3, padding=1, bias=False)   # row 0: conv 3x3/1, 3->16, BN+ReLU
        self.bn0 = nn.BatchNorm2d(f)
        self.stack1 = Stack(f, f, 1)                             # rows 1-3: 32x32x16, identity skip
        self.stack2 = Stack(f, 2 * f, 2)                         # rows 4-7: 16x16x32, 1x1/2 shortcut
        self.stack3 = Stack(2 * f, 4 * f, 2)                     # rows 8-11: 8x8x64, 1x1/2 shortcut
        self.pool = nn.AvgPool2d(8)                              # row 12: AvgPool 8x8
        self.fc = nn.Linear(4 * f, num_classes)                  # row 13: FC 64->10 + softmax

    def forward(self, x):
        x = F.relu(self.bn0(self.conv0(x)))
        x = self.stack3(self.stack2(self.stack1(x)))
        return F.softmax(self.fc(self.pool(x).flatten(1)), dim=1)


def calibration_data(n: int = 32, seed: int = 3) -> list[tuple[torch.Tensor]]:
    """Synthetic smooth RGB images [1,3,32,32], integer pixel values in [0,255]."""
    g = torch.Generator().manual_seed(seed)
    x = 128 + 50 * smooth_noise(g, n, (3, 32, 32), (6, 6))
    return as_samples(x.clamp(0, 255).round())


def ic(seed: int = 0):
    """Zoo entry: (model, example_inputs, calibration) for ic01 ResNet-8."""
    calib = calibration_data()
    model = ResNet8()
    init_model(model, calib, seed, head=model.fc)
    return model, calib[0], calib
