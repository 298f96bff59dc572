"""MLPerf Tiny vww01: MobileNetV1, alpha 0.25, 96x96x3 (spec: reference/mlperf_tiny_models.md, section 2).

Input NCHW [1,3,96,96], pixel/255 in [0,1]. Output [1,2] softmax (person / no person).
210,850 params (BN folded), 7,489,664 MACs.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._common import as_samples, init_model, smooth_noise


def _same_pad(x, stride: int):
    """TF 'same' for a 3x3 kernel: stride 1 pads 1/1 (done by the conv itself); stride 2 on an even
    input pads 0 before, 1 after (section 0, 'Padding trap')."""
    return F.pad(x, (0, 1, 0, 1)) if stride == 2 else x


class ConvBNReLU(nn.Module):
    """3x3 conv (or depthwise when groups == cin) 'same' + BN + ReLU (plain ReLU, not ReLU6)."""

    def __init__(self, cin: int, cout: int, stride: int, groups: int = 1):
        super().__init__()
        self.stride = stride
        self.conv = nn.Conv2d(cin, cout, 3, stride, padding=1 if stride == 1 else 0, groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(_same_pad(x, self.stride))))


class DWSep(nn.Module):
    """One MobileNet block: DW 3x3 (stride s) + BN + ReLU, PW 1x1 + BN + ReLU."""

    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.dw = ConvBNReLU(cin, cin, stride, groups=cin)
        self.pw = nn.Conv2d(cin, cout, 1, bias=False)
        self.pw_bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.pw_bn(self.pw(self.dw(x))))


# (cin, cout, stride) for blocks 1-13 of the spec table
_BLOCKS = [
    (8, 16, 1),                         # blk 1: 48x48, 8 / 8->16
    (16, 32, 2),                        # blk 2: 48->24, 16 / 16->32
    (32, 32, 1),                        # blk 3: 24
    (32, 64, 2),                        # blk 4: 24->12
    (64, 64, 1),                        # blk 5: 12
    (64, 128, 2),                       # blk 6: 12->6
    *[(128, 128, 1)] * 5,               # blk 7-11: 6x6x128
    (128, 256, 2),                      # blk 12: 6->3
    (256, 256, 1),                      # blk 13: 3x3x256
]


class MobileNetV1(nn.Module):
    def __init__(self, num_classes: int = 2):
        super().__init__()
        self.conv0 = ConvBNReLU(3, 8, 2)                                     # blk 0: conv 3x3/2, 3->8, 48x48x8
        self.blocks = nn.Sequential(*[DWSep(*b) for b in _BLOCKS])          # blk 1-13
        self.pool = nn.AvgPool2d(3)                                          # AvgPool 3x3 valid -> 1x1x256
        self.fc = nn.Linear(256, num_classes)                               # FC 256->2 + softmax (514 params)

    def forward(self, x):
        x = self.pool(self.blocks(self.conv0(x))).flatten(1)
        return F.softmax(self.fc(x), dim=1)


def calibration_data(n: int = 32, seed: int = 2) -> list[tuple[torch.Tensor]]:
    """Synthetic smooth RGB images [1,3,96,96] with values pixel/255 in [0,1]."""
    g = torch.Generator().manual_seed(seed)
    x = 0.5 + 0.2 * smooth_noise(g, n, (3, 96, 96), (8, 8))
    return as_samples((x.clamp(0, 1) * 255).round() / 255)


def vww(seed: int = 0):
    """Zoo entry: (model, example_inputs, calibration) for vww01 MobileNetV1-0.25."""
    calib = calibration_data()
    model = MobileNetV1()
    init_model(model, calib, seed, head=model.fc)
    return model, calib[0], calib
