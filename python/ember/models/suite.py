"""The real-model suite: architectures as users bring them, written the way torchvision, timm and
the PyTorch tutorials write them (in-place activations, dropout, chunk, a view/transpose channel
shuffle, 1-D convolutions and pools, functional pooling and reductions, GRU and LSTM layers,
attention, transposed convolutions and upsampling). Nothing here is shaped
for Ember. Weights are seeded (``_common.init_model``); class counts are a user's (6 to 12), so
the models are the sizes that run on a microcontroller.

``SUITE`` names every entry (MobileNetV2 is ``mobilenet_v2`` at 96x96, from its own module);
each is a zoo entry returning (model, example_inputs, calibration). See docs/models.md.
"""
from __future__ import annotations

from functools import partial

import torch
from torch import nn

from ._common import as_samples, init_model, smooth_noise
from .blocks import Conv2dNormActivation, SqueezeExcitation, make_divisible
from .mobilenet_v2 import MobileNetV2


# --- MobileNetV3-small (torchvision.models.mobilenetv3) ---------------------------------------
class InvertedResidualV3(nn.Module):
    def __init__(self, cin, kernel, expanded, cout, use_se, use_hs, stride):
        super().__init__()
        norm = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        act = nn.Hardswish if use_hs else nn.ReLU
        layers = []
        if expanded != cin:
            layers.append(Conv2dNormActivation(cin, expanded, kernel_size=1, norm_layer=norm, activation_layer=act))
        layers.append(Conv2dNormActivation(expanded, expanded, kernel_size=kernel, stride=stride, groups=expanded,
                                           norm_layer=norm, activation_layer=act))
        if use_se:
            layers.append(SqueezeExcitation(expanded, make_divisible(expanded // 4), scale_activation=nn.Hardsigmoid))
        layers.append(Conv2dNormActivation(expanded, cout, kernel_size=1, norm_layer=norm, activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.use_res_connect = stride == 1 and cin == cout

    def forward(self, x):
        result = self.block(x)
        if self.use_res_connect:
            result += x
        return result


class MobileNetV3Small(nn.Module):
    def __init__(self, num_classes=10, width_mult=0.75, dropout=0.2):
        super().__init__()
        a = lambda c: make_divisible(c * width_mult)  # noqa: E731
        conf = [(16, 3, 16, 16, True, False, 2), (16, 3, 72, 24, False, False, 2), (24, 3, 88, 24, False, False, 1),
                (24, 5, 96, 40, True, True, 2), (40, 5, 240, 40, True, True, 1), (40, 5, 240, 40, True, True, 1),
                (40, 5, 120, 48, True, True, 1), (48, 5, 144, 48, True, True, 1), (48, 5, 288, 96, True, True, 2),
                (96, 5, 576, 96, True, True, 1), (96, 5, 576, 96, True, True, 1)]
        norm = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        layers = [Conv2dNormActivation(3, a(16), stride=2, norm_layer=norm, activation_layer=nn.Hardswish)]
        for cin, k, exp, cout, se, hs, s in conf:
            layers.append(InvertedResidualV3(a(cin), k, a(exp), a(cout), se, hs, s))
        last_in = a(96)
        layers.append(Conv2dNormActivation(last_in, 6 * last_in, kernel_size=1, norm_layer=norm,
                                           activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        last = make_divisible(1024 * width_mult)
        self.classifier = nn.Sequential(nn.Linear(6 * last_in, last), nn.Hardswish(inplace=True),
                                        nn.Dropout(p=dropout, inplace=True), nn.Linear(last, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


# --- ShuffleNetV2 (torchvision.models.shufflenetv2) -------------------------------------------
def channel_shuffle(x, groups: int):
    batchsize, num_channels, height, width = x.size()
    x = x.view(batchsize, groups, num_channels // groups, height, width)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(batchsize, num_channels, height, width)


class ShuffleBlock(nn.Module):
    def __init__(self, inp, oup, stride):
        super().__init__()
        self.stride = stride
        f = oup // 2
        dw = lambda i, s: nn.Conv2d(i, i, 3, s, 1, bias=False, groups=i)  # noqa: E731
        if stride > 1:
            self.branch1 = nn.Sequential(dw(inp, stride), nn.BatchNorm2d(inp), nn.Conv2d(inp, f, 1, 1, 0, bias=False),
                                         nn.BatchNorm2d(f), nn.ReLU(inplace=True))
        else:
            self.branch1 = nn.Sequential()
        self.branch2 = nn.Sequential(
            nn.Conv2d(inp if stride > 1 else f, f, 1, 1, 0, bias=False), nn.BatchNorm2d(f), nn.ReLU(inplace=True),
            dw(f, stride), nn.BatchNorm2d(f), nn.Conv2d(f, f, 1, 1, 0, bias=False), nn.BatchNorm2d(f),
            nn.ReLU(inplace=True))

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = torch.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    def __init__(self, repeats=(4, 8, 4), channels=(24, 48, 96, 192, 1024), num_classes=10):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(3, channels[0], 3, 2, 1, bias=False), nn.BatchNorm2d(channels[0]),
                                   nn.ReLU(inplace=True))
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        cin = channels[0]
        for name, n, cout in zip(("stage2", "stage3", "stage4"), repeats, channels[1:]):
            setattr(self, name, nn.Sequential(ShuffleBlock(cin, cout, 2), *[ShuffleBlock(cout, cout, 1) for _ in range(n - 1)]))
            cin = cout
        self.conv5 = nn.Sequential(nn.Conv2d(cin, channels[-1], 1, 1, 0, bias=False), nn.BatchNorm2d(channels[-1]),
                                   nn.ReLU(inplace=True))
        self.fc = nn.Linear(channels[-1], num_classes)

    def forward(self, x):
        x = self.maxpool(self.conv1(x))
        x = self.conv5(self.stage4(self.stage3(self.stage2(x))))
        return self.fc(x.mean([2, 3]))


# --- SqueezeNet 1.1 (torchvision.models.squeezenet) -------------------------------------------
class Fire(nn.Module):
    def __init__(self, inplanes, squeeze, e1, e3):
        super().__init__()
        self.squeeze = nn.Conv2d(inplanes, squeeze, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze, e1, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze, e3, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.squeeze_activation(self.squeeze(x))
        return torch.cat([self.expand1x1_activation(self.expand1x1(x)),
                          self.expand3x3_activation(self.expand3x3(x))], 1)


class SqueezeNet(nn.Module):
    def __init__(self, num_classes=10, dropout=0.5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=3, stride=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True), Fire(64, 16, 64, 64), Fire(128, 16, 64, 64),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True), Fire(128, 32, 128, 128), Fire(256, 32, 128, 128),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True), Fire(256, 48, 192, 192), Fire(384, 48, 192, 192),
            Fire(384, 64, 256, 256), Fire(512, 64, 256, 256))
        final_conv = nn.Conv2d(512, num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))

    def forward(self, x):
        return torch.flatten(self.classifier(self.features(x)), 1)


# --- MnasNet (torchvision.models.mnasnet) ------------------------------------------------------
class MnasResidual(nn.Module):
    def __init__(self, cin, cout, k, stride, expansion):
        super().__init__()
        mid = cin * expansion
        self.apply_residual = cin == cout and stride == 1
        self.layers = nn.Sequential(
            nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(inplace=True),
            nn.Conv2d(mid, mid, k, padding=k // 2, stride=stride, groups=mid, bias=False), nn.BatchNorm2d(mid),
            nn.ReLU(inplace=True), nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return self.layers(x) + x if self.apply_residual else self.layers(x)


class MNASNet(nn.Module):
    def __init__(self, alpha=0.5, num_classes=10, dropout=0.2):
        super().__init__()

        def depth(d):
            v = max(8, int(d * alpha + 4) // 8 * 8)
            return v if v >= 0.9 * d * alpha else v + 8

        d = [depth(x) for x in (32, 16, 24, 40, 80, 96, 192, 320)]

        def stack(cin, cout, k, s, e, n):
            return nn.Sequential(MnasResidual(cin, cout, k, s, e), *[MnasResidual(cout, cout, k, 1, e) for _ in range(n - 1)])

        self.layers = nn.Sequential(
            nn.Conv2d(3, d[0], 3, padding=1, stride=2, bias=False), nn.BatchNorm2d(d[0]), nn.ReLU(inplace=True),
            nn.Conv2d(d[0], d[0], 3, padding=1, groups=d[0], bias=False), nn.BatchNorm2d(d[0]), nn.ReLU(inplace=True),
            nn.Conv2d(d[0], d[1], 1, bias=False), nn.BatchNorm2d(d[1]),
            stack(d[1], d[2], 3, 2, 3, 3), stack(d[2], d[3], 5, 2, 3, 3), stack(d[3], d[4], 5, 2, 6, 3),
            stack(d[4], d[5], 3, 1, 6, 2), stack(d[5], d[6], 5, 2, 6, 4), stack(d[6], d[7], 3, 1, 6, 1),
            nn.Conv2d(d[7], 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.ReLU(inplace=True))
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True), nn.Linear(1280, num_classes))

    def forward(self, x):
        return self.classifier(self.layers(x).mean([2, 3]))


# --- EfficientNet-B0 (torchvision.models.efficientnet) ----------------------------------------
class StochasticDepth(nn.Module):
    """torchvision.ops.StochasticDepth: the identity in eval."""

    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0.0:
            return x
        keep = torch.empty([x.shape[0]] + [1] * (x.ndim - 1)).bernoulli_(1 - self.p)
        return x * keep / (1 - self.p)


class MBConv(nn.Module):
    def __init__(self, expand_ratio, k, stride, cin, cout, sd_prob):
        super().__init__()
        self.use_res_connect = stride == 1 and cin == cout
        expanded = make_divisible(cin * expand_ratio)
        layers = []
        if expanded != cin:
            layers.append(Conv2dNormActivation(cin, expanded, kernel_size=1, activation_layer=nn.SiLU))
        layers.append(Conv2dNormActivation(expanded, expanded, kernel_size=k, stride=stride, groups=expanded,
                                           activation_layer=nn.SiLU))
        layers.append(SqueezeExcitation(expanded, max(1, cin // 4), activation=partial(nn.SiLU, inplace=True)))
        layers.append(Conv2dNormActivation(expanded, cout, kernel_size=1, activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(sd_prob)

    def forward(self, x):
        result = self.block(x)
        if self.use_res_connect:
            result = self.stochastic_depth(result)
            result += x
        return result


class EfficientNetB0(nn.Module):
    def __init__(self, num_classes=10, dropout=0.2, stochastic_depth_prob=0.2):
        super().__init__()
        setting = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
                   (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
        layers = [Conv2dNormActivation(3, 32, stride=2, activation_layer=nn.SiLU)]
        total, block_id = sum(s[-1] for s in setting), 0
        for e, k, s, cin, cout, n in setting:
            stage = []
            for i in range(n):
                stage.append(MBConv(e, k, s if i == 0 else 1, cin if i == 0 else cout, cout,
                                    stochastic_depth_prob * block_id / total))
                block_id += 1
            layers.append(nn.Sequential(*stage))
        layers.append(Conv2dNormActivation(320, 1280, kernel_size=1, activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True), nn.Linear(1280, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


# --- ResNet-18 (torchvision.models.resnet) -----------------------------------------------------
class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet18(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        planes, layers = 64, []
        for width, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers.append(nn.Sequential(BasicBlock(planes, width, stride), BasicBlock(width, width)))
            planes = width
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


# --- TC-ResNet8 (Choi et al., "Temporal Convolution for Real-time Keyword Spotting") ---------
class TCResidual(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv1d(cin, cout, 9, stride, padding=4, bias=False)
        self.bn1 = nn.BatchNorm1d(cout)
        self.conv2 = nn.Conv1d(cout, cout, 9, 1, padding=4, bias=False)
        self.bn2 = nn.BatchNorm1d(cout)
        self.shortcut = nn.Sequential(nn.Conv1d(cin, cout, 1, stride, bias=False), nn.BatchNorm1d(cout),
                                      nn.ReLU(inplace=True))
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return self.relu(out)


class TCResNet8(nn.Module):
    """MFCC [N, 1, time, 40] in; the 40 coefficients become the channels of a 1-D conv."""

    def __init__(self, num_classes=12, k=1.5):
        super().__init__()
        c = [int(k * x) for x in (16, 24, 32, 48)]
        self.conv = nn.Conv1d(40, c[0], 3, padding=1, bias=False)
        self.blocks = nn.Sequential(TCResidual(c[0], c[1], 2), TCResidual(c[1], c[2], 2), TCResidual(c[2], c[3], 2))
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(c[3], num_classes)

    def forward(self, x):
        x = x.squeeze(1).transpose(1, 2)
        x = self.blocks(self.conv(x))
        return self.fc(self.dropout(self.pool(x).squeeze(-1)))


# --- A Conv1d IMU classifier, written by hand ---------------------------------------------------
class IMUNet(nn.Module):
    """Six-axis accelerometer and gyroscope windows [N, 6, 128] -> activity class."""

    def __init__(self, num_classes=6):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(6, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(inplace=True), nn.MaxPool1d(2),
            nn.Conv1d(32, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU(inplace=True), nn.AvgPool1d(2),
            nn.Conv1d(64, 64, 3, padding=1, groups=64), nn.Conv1d(64, 96, 1), nn.BatchNorm1d(96), nn.ReLU())
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(192, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = torch.cat([x.mean(-1), x.amax(-1)], dim=1)
        return self.fc(self.drop(x))



# --- Recurrent keyword spotters (MFCC [N, 1, 49, 10], as the MLPerf KWS features) -----------
class GRUKWS(nn.Module):
    """Two stacked GRU layers, batch first; the last layer's final state classifies."""

    def __init__(self, num_classes=12, hidden=64):
        super().__init__()
        self.gru = nn.GRU(10, hidden, num_layers=2, batch_first=True)
        self.fc = nn.Linear(hidden, num_classes)

    def forward(self, x):
        _, h = self.gru(x.squeeze(1))
        return self.fc(h[-1])


class LSTMKWS(nn.Module):
    """A bidirectional LSTM over (time, batch, features); the mean over time classifies."""

    def __init__(self, num_classes=12, hidden=48):
        super().__init__()
        self.lstm = nn.LSTM(10, hidden, bidirectional=True)
        self.dropout = nn.Dropout(0.1)
        self.fc = nn.Linear(2 * hidden, num_classes)

    def forward(self, x):
        y, _ = self.lstm(x.squeeze(1).permute(1, 0, 2))
        return self.fc(self.dropout(y.mean(0)))


# --- A transformer encoder (the PyTorch tutorials' nn.TransformerEncoder) ---------------------
class TransformerClassifier(nn.Module):
    """Feature frames [N, 16, 32] -> a linear embedding plus a learned position table, two
    encoder layers (d=64, 2 heads, attention through scaled_dot_product_attention), mean over
    time, layer norm, classifier."""

    def __init__(self, num_classes=10, d=64, heads=2, layers=2, frames=16, features=32):
        super().__init__()
        self.embed = nn.Linear(features, d)
        self.pos = nn.Parameter(0.1 * torch.randn(1, frames, d))
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, num_classes)

    def forward(self, x):
        x = self.encoder(self.embed(x) + self.pos)
        return self.fc(self.norm(x.mean(1)))


# --- A convolutional autoencoder (the PyTorch tutorials' denoising autoencoder) --------------
class ConvAutoencoder(nn.Module):
    """Grayscale 64x64 -> 8x8x64 code -> 64x64: strided convolutions down; transposed
    convolutions and a bilinear upsampling up; a sigmoid image out."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(inplace=True))
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(64, 32, 3, stride=2, padding=1, output_padding=1), nn.BatchNorm2d(32),
            nn.ReLU(inplace=True),
            nn.ConvTranspose2d(32, 16, 3, stride=2, padding=1, output_padding=1), nn.ReLU(inplace=True),
            nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
            nn.Conv2d(16, 1, 3, padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


class MobileNetV2LRN(MobileNetV2):
    """MobileNetV2 with AlexNet's local response normalisation after its features: an op with no
    int8 form, which runs in float inside the int8 program."""

    def __init__(self):
        super().__init__()
        self.features.append(nn.LocalResponseNorm(5))


def _images(size: int, n: int = 16, seed: int = 5) -> list[tuple[torch.Tensor]]:
    return as_samples(smooth_noise(torch.Generator().manual_seed(seed), n, (3, size, size), (8, 8)))


def _entry(make, samples, head):
    def entry(seed: int = 0):
        calibration = samples()
        with torch.random.fork_rng():  # parameters init_model leaves (attention, GRU, LSTM) seeded too
            torch.manual_seed(seed)
            model = make()
        init_model(model, calibration, seed, head=head(model))
        return model, calibration[0], calibration
    return entry


_MFCC = lambda: as_samples(smooth_noise(torch.Generator().manual_seed(5), 16, (1, 98, 40), (12, 8)))  # noqa: E731
_MFCC49 = lambda: as_samples(smooth_noise(torch.Generator().manual_seed(5), 16, (1, 49, 10), (8, 4)))  # noqa: E731
_FRAMES = lambda: as_samples(smooth_noise(torch.Generator().manual_seed(5), 16, (16, 32), (8,)))  # noqa: E731
_IMU = lambda: as_samples(smooth_noise(torch.Generator().manual_seed(5), 16, (6, 128), (16,)))  # noqa: E731

ENTRIES = {
    "mobilenet_v2_96": _entry(MobileNetV2, partial(_images, 96), lambda m: m.classifier[-1]),
    "mobilenet_v3_small": _entry(MobileNetV3Small, partial(_images, 96), lambda m: m.classifier[-1]),
    "shufflenet_v2": _entry(ShuffleNetV2, partial(_images, 96), lambda m: m.fc),
    "squeezenet": _entry(SqueezeNet, partial(_images, 96), lambda m: None),
    "mnasnet": _entry(MNASNet, partial(_images, 96), lambda m: m.classifier[-1]),
    "efficientnet_b0": _entry(EfficientNetB0, partial(_images, 64), lambda m: m.classifier[-1]),
    "resnet18": _entry(ResNet18, partial(_images, 32), lambda m: m.fc),
    "tc_resnet8": _entry(TCResNet8, _MFCC, lambda m: m.fc),
    "imu_conv1d": _entry(IMUNet, _IMU, lambda m: m.fc),
    "gru_kws": _entry(GRUKWS, _MFCC49, lambda m: m.fc),
    "lstm_kws": _entry(LSTMKWS, _MFCC49, lambda m: m.fc),
    "transformer": _entry(TransformerClassifier, _FRAMES, lambda m: m.fc),
    "mobilenet_v2_lrn": _entry(MobileNetV2LRN, partial(_images, 96), lambda m: m.classifier[-1]),
    "conv_autoencoder": _entry(ConvAutoencoder, lambda: as_samples(smooth_noise(
        torch.Generator().manual_seed(5), 16, (1, 64, 64), (8, 8))), lambda m: None),
}
SUITE = tuple(ENTRIES)
