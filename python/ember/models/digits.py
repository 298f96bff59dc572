"""A small CNN trained on scikit-learn's bundled `load_digits` (8x8 grayscale, 10 classes).

The only zoo model with real trained weights, so accuracy after quantization can be checked.
Input NCHW [1,1,8,8] with pixel values scaled to [0,1]. Output [1,10] logits (no softmax).
"""
from __future__ import annotations

import functools

import torch
import torch.nn.functional as F
from torch import nn


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1, bias=False)   # 8x8x1 -> 8x8x8, BN + ReLU
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)     # -> 4x4x16, ReLU
        self.fc = nn.Linear(16 * 4 * 4, 10)                       # -> 10 logits

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(x.flatten(1))


def load_data(seed: int = 0):
    """load_digits as float tensors: ((x_train, y_train), (x_test, y_test)), x NCHW [N,1,8,8]
    in [0,1], y int64; a stratified 80/20 split."""
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError:
        raise ImportError("the digits model's data comes with scikit-learn: pip install 'ember[zoo]'") from None

    d = load_digits()
    x = torch.tensor(d.images, dtype=torch.float32).unsqueeze(1) / 16.0
    y = torch.tensor(d.target, dtype=torch.int64)
    i_tr, i_te = train_test_split(torch.arange(len(y)).numpy(), test_size=0.2, random_state=seed,
                                  stratify=d.target)
    return (x[i_tr], y[i_tr]), (x[i_te], y[i_te])


@functools.lru_cache(maxsize=4)
def _train(seed: int, epochs: int):
    (x_tr, y_tr), test = load_data(seed)
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)  # nn.Module default init draws from the global generator
    model = DigitsCNN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # deterministic and, for a model this small, fastest
    try:
        model.train()
        for _ in range(epochs):
            for idx in torch.randperm(len(y_tr), generator=g).split(64):
                opt.zero_grad()
                F.cross_entropy(model(x_tr[idx]), y_tr[idx]).backward()
                opt.step()
            sched.step()
    finally:
        torch.set_num_threads(threads)
    return {k: v.clone() for k, v in model.state_dict().items()}, (x_tr, y_tr), test


def train_digits(seed: int = 0, epochs: int = 15):
    """Train DigitsCNN on CPU (deterministic for a given seed, about a second).
    Returns (model in eval mode, (x_train, y_train), (x_test, y_test)); results are cached."""
    state, train, test = _train(seed, epochs)
    model = DigitsCNN()
    model.load_state_dict(state)
    return model.eval(), train, test


def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def digits(seed: int = 0, n_calib: int = 32):
    """Zoo entry: (model, example_inputs, calibration), calibration drawn from the training set."""
    model, (x_tr, _), _ = train_digits(seed)
    idx = torch.randperm(len(x_tr), generator=torch.Generator().manual_seed(seed + 1))[:n_calib]
    calib = [(x_tr[i:i + 1].clone(),) for i in idx.tolist()]
    return model, calib[0], calib
