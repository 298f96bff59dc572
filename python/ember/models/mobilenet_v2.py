"""A compact MobileNetV2 (Sandler et al. 2018), for tests; not an MLPerf Tiny model.

The torchvision architecture (inverted residual blocks: 1x1 expansion + BN + ReLU6, 3x3
depthwise + BN + ReLU6, 1x1 linear projection + BN, a residual add where stride is 1 and the
channel count is kept), written out here so the zoo needs no torchvision. Defaults are small to
keep tests fast: input NCHW [1,3,64,64], width multiplier 0.35, 10 classes.
Output [1,10] logits (no softmax).
"""
from __future__ import annotations

import torch
from torch import nn

from ._common import as_samples, init_model, smooth_noise

# (expansion t, output channels c, repeats n, first stride s), as in the paper's table 2
_SETTINGS = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]


def _divisible(v: float, divisor: int = 8) -> int:
    """torchvision's _make_divisible: round to a multiple of 8, never below 90 % of v."""
    new = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * v else new


def conv_bn_relu6(cin: int, cout: int, k: int, stride: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU6())


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int):
        super().__init__()
        hidden = cin * expand
        layers = [conv_bn_relu6(cin, hidden, 1)] if expand != 1 else []
        layers += [conv_bn_relu6(hidden, hidden, 3, stride, groups=hidden),
                   nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.conv = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.conv(x) if self.residual else self.conv(x)


class MobileNetV2(nn.Module):
    """`features` ends in the 1x1 conv to the last channel count; `classifier` is the
    global-average-pool + linear head."""

    def __init__(self, num_classes: int = 10, width: float = 0.35):
        super().__init__()
        cin = _divisible(32 * width)
        self.last_channels = _divisible(1280 * max(1.0, width))
        layers = [conv_bn_relu6(3, cin, 3, 2)]
        for t, c, n, s in _SETTINGS:
            cout = _divisible(c * width)
            for i in range(n):
                layers.append(InvertedResidual(cin, cout, s if i == 0 else 1, t))
                cin = cout
        layers.append(conv_bn_relu6(cin, self.last_channels, 1))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(self.last_channels, num_classes)

    def forward(self, x):
        return self.classifier(self.pool(self.features(x)).flatten(1))


def calibration_data(n: int = 16, size: int = 64, seed: int = 5) -> list[tuple[torch.Tensor]]:
    """Synthetic smooth RGB images [1,3,size,size], roughly normalised (zero mean, unit scale)."""
    g = torch.Generator().manual_seed(seed)
    return as_samples(smooth_noise(g, n, (3, size, size), (8, 8)))


def mobilenet_v2(seed: int = 0, width: float = 0.35, size: int = 64):
    """Zoo entry: (model, example_inputs, calibration) for MobileNetV2 at `width`, size x size."""
    calib = calibration_data(size=size)
    model = MobileNetV2(width=width)
    init_model(model, calib, seed, head=model.classifier)
    return model, calib[0], calib
