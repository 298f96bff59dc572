"""What the user hands the front end, when it is wrong: each case gets one line naming the input,
parameter, calibration batch or op at fault (FrontendError, or ProgramError at run time), or a
warning where compiling is still right. Without these checks each case failed deep inside torch
or torchao, or compiled into a program that could not run or only output zeros."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.export import Dim

import ember
from conftest import Lambda
from ember import FrontendError, ProgramError

NAN, INF = float("nan"), float("inf")


def linear() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 3)).eval()  # its input is named "input"


X = torch.randn(1, 4, generator=torch.Generator().manual_seed(1))


def test_nan_or_inf_input_to_run_names_the_input():
    program = ember.compile(linear(), (X,), calibration=[(X,)], target="host")
    with pytest.raises(ProgramError, match=r"non_finite_input.*input 'input' holds NaN at \[0, 1\]"):
        program.run(torch.tensor([[0.0, NAN, 1.0, 2.0]]))
    with pytest.raises(ProgramError, match=r"input 'input' holds -inf at \[0, 3\]"):
        program.run(torch.tensor([[0.0, 1.0, 1.0, -INF]]))


def test_nan_or_inf_calibration_batch_names_batch_and_input():
    with pytest.raises(FrontendError, match=r"calibration batch 1, input 'input' holds NaN at \[0, 2\]"):
        ember.quantize(linear(), (X,), [(X,), (torch.tensor([[0.0, 1.0, NAN, 2.0]]),)])
    with pytest.raises(FrontendError, match=r"calibration batch 0, input 'input' holds inf at \[0, 0\]"):
        ember.quantize(linear(), (X,), [torch.tensor([[INF, 1.0, 0.0, 2.0]])])


@pytest.mark.parametrize("calibration", [[], iter([])], ids=["list", "generator"])
def test_empty_calibration_is_an_error(calibration):
    with pytest.raises(FrontendError, match="the calibration data is empty"):
        ember.quantize(linear(), (X,), calibration)


def test_dynamic_batch_warns_with_input_and_size():
    ep = torch.export.export(linear(), (torch.randn(3, 4),), dynamic_shapes=({0: Dim("batch", min=2, max=16)},))
    with pytest.warns(UserWarning, match=r"input 'input': dynamic dimension 0 \(sizes 2 to 16\) "
                                         r"compiled with size 3") as record:
        program = ember.lower(ep, "host")
    assert record[0].filename == __file__  # attributed to the user's line, not to ember's
    assert program.inputs[0]["shape"] == [3, 4]


class Scaled(nn.Module):
    def forward(self, x, s):
        return x * s


def test_0d_input_is_a_compile_error():
    with pytest.raises(FrontendError, match=r"input 's': 0-d \(scalar\) tensor inputs are not supported"):
        ember.compile(Scaled(), (X, torch.tensor(2.0)), target="host")


def test_float64_model_compiles_as_float32_with_a_warning():
    model, x = linear().double(), X.double()
    with pytest.warns(UserWarning) as record:
        program = ember.compile(model, (x,), calibration=[(x,), (2 * x,)], target="host")
    messages = [str(w.message) for w in record]
    assert any("float64 parameters (0.weight and 1 more) are compiled as float32" in m for m in messages)
    assert any("float64 example input 'input' converted to float32" in m for m in messages)
    assert any("calibration batch 0, input 'input' is float64" in m for m in messages)
    assert next(model.parameters()).dtype == torch.float64  # the user's model is not touched
    # Rounding to float32 is all that happens: the same program as from the float32 model.
    assert program.data == ember.compile(linear(), (X,), calibration=[(X,), (2 * X,)], target="host").data


class Widened(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x).double() * 2  # asked for in forward: cannot be converted for the user


def test_float64_computed_in_forward_names_the_op():
    op = r"aten\.\w+\.\w+ at test_frontend_errors\.py:\d+"
    with pytest.raises(FrontendError, match=op + ": computes in float64"):
        ember.quantize(Widened().eval(), (X,))


def test_nan_or_inf_weight_names_the_parameter():
    model = linear()
    with torch.no_grad():
        model[0].weight[2, 1] = NAN
    with pytest.raises(FrontendError, match=r"parameter 0\.weight holds NaN at \[2, 1\]"):
        ember.compile(model, (X,), target="host")
    model = linear()
    with torch.no_grad():
        model[0].bias[1] = INF
    with pytest.raises(FrontendError, match=r"parameter 0\.bias holds inf at \[1\]"):
        ember.compile(model, (X,), target="host")


def test_negative_batchnorm_variance_names_the_buffer():
    model = nn.Sequential(nn.Conv2d(2, 2, 1), nn.BatchNorm2d(2)).eval()
    with torch.no_grad():
        model[1].running_var[1] = -1.0
    with pytest.raises(FrontendError, match=r"buffer 1\.running_var holds a negative variance at \[1\]"):
        ember.quantize(model, (torch.randn(1, 2, 3, 3),))


def test_calibration_batch_of_wrong_shape_names_batch_input_and_shapes():
    def at(batch: int) -> str:
        return rf"calibration batch {batch}, input 'input': "

    with pytest.raises(FrontendError, match=at(1) + r"shape \[1, 5\], expected \[1, 4\]"):
        ember.quantize(linear(), (X,), [(X,), (torch.randn(1, 5),)])
    with pytest.raises(FrontendError, match=at(0) + r"shape \[8, 4\], expected \[1, 4\].*batches of 1"):
        ember.quantize(linear(), (X,), [torch.randn(8, 4)])
    with pytest.raises(FrontendError, match=r"calibration batch 0 has 1 input, the model takes 2 \('xs_0', 'xs_1'\)"):
        ember.quantize(Lambda(lambda a, b: a + b), (X, X), [(X,)])
    with pytest.raises(FrontendError, match=at(0) + "dtype torch.int64, expected torch.float32"):
        ember.quantize(linear(), (X,), [torch.ones(1, 4, dtype=torch.int64)])


def test_calibration_takes_labelled_samples_and_data_loaders():
    """(inputs, label) pairs and a DataLoader's [x, label] batches calibrate on the inputs alone,
    as the same inputs without labels do; no calibration at all warns."""
    data = [torch.randn(1, 4) for _ in range(4)]
    labels = [torch.tensor([i]) for i in range(4)]
    plain = ember.lower(ember.quantize(linear(), (X,), [(x,) for x in data]), "host")
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.cat(data), torch.cat(labels)), batch_size=1)
    for calibration in (list(zip(data, labels)), loader):
        assert ember.lower(ember.quantize(linear(), (X,), calibration), "host").data == plain.data
    two = Lambda(lambda a, b: a * b)
    pairs = [((x, x), label) for x, label in zip(data, labels)]
    assert ember.lower(ember.quantize(two, (X, X), pairs), "host").data == \
        ember.lower(ember.quantize(two, (X, X), [(x, x) for x in data]), "host").data
    with pytest.warns(UserWarning, match="no calibration data"):
        ember.quantize(linear(), (X,))


class Log(nn.Module):
    def forward(self, x):
        return torch.log(x) * 2


def test_nan_computed_by_the_model_names_batch_and_op():
    with pytest.raises(FrontendError, match=r"calibration batch 1: aten\.log\.default "
                                            r"at test_frontend_errors\.py:\d+ gives NaN or inf"):
        ember.quantize(Log(), (X.abs(),), [(X.abs(),), (-X.abs(),)])
