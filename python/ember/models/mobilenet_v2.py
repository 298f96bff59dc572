"""A compact MobileNetV2 (Sandler et al. 2018), for tests; not an MLPerf Tiny model.

The torchvision architecture, as torchvision writes it (inverted residual blocks: 1x1 expansion
+ BN + ReLU6(inplace=True), 3x3 depthwise + BN + ReLU6, 1x1 linear projection + BN, a residual
add where stride is 1 and the channel count is kept; dropout before the classifier), written out
here so the zoo needs no torchvision. Defaults are small to keep tests fast: input NCHW
[1,3,64,64], width multiplier 0.35, 10 classes.
Output [1,10] logits (no softmax).
"""
from __future__ import annotations

import torch
from torch import nn

from ._common import as_samples, init_model, smooth_noise
from .blocks import Conv2dNormActivation, make_divisible

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


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int):
        super().__init__()
        hidden = cin * expand
        layers = [Conv2dNormActivation(cin, hidden, 1, activation_layer=nn.ReLU6)] if expand != 1 else []
        layers += [Conv2dNormActivation(hidden, hidden, 3, stride, groups=hidden, activation_layer=nn.ReLU6),
                   nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.conv = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.conv(x) if self.residual else self.conv(x)


class MobileNetV2(nn.Module):
    """`features` ends in the 1x1 conv to the last channel count; `classifier` is dropout and
    the linear layer after global average pooling."""

    def __init__(self, num_classes: int = 10, width: float = 0.35, dropout: float = 0.2):
        super().__init__()
        cin = make_divisible(32 * width)
        self.last_channels = make_divisible(1280 * max(1.0, width))
        layers = [Conv2dNormActivation(3, cin, 3, 2, activation_layer=nn.ReLU6)]
        for t, c, n, s in _SETTINGS:
            cout = make_divisible(c * width)
            for i in range(n):
                layers.append(InvertedResidual(cin, cout, s if i == 0 else 1, t))
                cin = cout
        layers.append(Conv2dNormActivation(cin, self.last_channels, 1, activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channels, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = nn.functional.adaptive_avg_pool2d(x, (1, 1))
        return self.classifier(torch.flatten(x, 1))


def calibration_data(n: int = 16, size: int = 64, seed: int = 5) -> list[tuple[torch.Tensor]]:
    """Synthetic smooth RGB images [1,3,size,size], roughly normalised (zero mean, unit scale)."""
    g = torch.Generator().manual_seed(seed)
    return as_samples(smooth_noise(g, n, (3, size, size), (8, 8)))


def mobilenet_v2(seed: int = 0, width: float = 0.35, size: int = 64):
    """Zoo entry: (model, example_inputs, calibration) for MobileNetV2 at `width`, size x size."""
    calib = calibration_data(size=size)
    model = MobileNetV2(width=width)
    init_model(model, calib, seed, head=model.classifier[-1])
    return model, calib[0], calib
