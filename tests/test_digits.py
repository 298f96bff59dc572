"""Digits CNN: a really trained model, so quantization can be judged by accuracy. Trained in
seconds on scikit-learn's bundled digits, compiled to int8 with calibration from the training set,
and run over the held-out set on the host runtime (the device's runtime and kernels)."""

from __future__ import annotations

import pytest
import torch

import ember
from ember.models.digits import accuracy, train_digits


@pytest.mark.models
def test_int8_accuracy_within_one_point_of_float(torch_threads):
    model, (x_train, _), (x_test, y_test) = train_digits(seed=0)
    g = torch.Generator().manual_seed(1)
    calibration = [(x_train[i:i + 1],) for i in torch.randperm(len(x_train), generator=g)[:64].tolist()]
    program = ember.compile(model, calibration[0], calibration=calibration)
    assert program.inputs[0]["dtype"] == "int8"

    predicted = torch.stack([program.run(x[None])[0] for x in x_test]).argmax(1)
    int8_accuracy = (predicted == y_test).float().mean().item()
    float_accuracy = accuracy(model, x_test, y_test)
    print(f"\ndigits, {len(y_test)} held-out images: float {float_accuracy:.2%}, int8 {int8_accuracy:.2%}")
    assert float_accuracy >= 0.95
    assert abs(int8_accuracy - float_accuracy) <= 0.01
