"""The program records, per op, which kernel the target runs and why a portable one falls back;
`ember inspect` shows it."""

from __future__ import annotations

import torch
from torch import nn

import ember
from ember.cli import main


class Mixed(nn.Module):
    """A plain conv, a depthwise conv, a depth-multiplier-2 conv, a grouped conv, a pool, a softmax and
    an exp, which the quantizer leaves in float."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.dw2 = nn.Conv2d(8, 16, 3, padding=1, groups=8)
        self.grouped = nn.Conv2d(16, 16, 1, groups=2)
        self.pool = nn.AvgPool2d(2)

    def forward(self, x):
        return torch.exp(torch.softmax(self.pool(self.grouped(self.dw2(self.dw(torch.relu(self.conv(x)))))), dim=1))


def _program(target):
    torch.manual_seed(0)
    x = torch.randn(1, 3, 8, 8)
    return ember.compile(Mixed().eval(), (x,), calibration=[(torch.randn(1, 3, 8, 8),) for _ in range(4)],
                         target=target)


def _where(source):
    """The module path in "aten.x at file:line (module)", else the aten op for a functional call."""
    return source.split("(")[-1].rstrip(")") if source.endswith(")") else source.split(" ")[0]


def _notes(program):
    return [(_where(op["source"]), op["kernel_note"]) for op in program.inspect()["ops"]]


def test_optimized_paths_and_fallback_reasons_are_recorded():
    assert _notes(_program("cortex-m55")) == [
        ("conv", "mve kernel (im2col)"),
        ("dw", "mve kernel (depthwise 3x3)"),
        ("dw2", "mve kernel (depthwise 3x3, depth multiplier 2: rows expanded)"),
        ("grouped", "portable kernel: grouped convolution"),
        ("pool", "mve kernel"),
        ("aten.softmax.int", "mve kernel"),
        ("quantized_decomposed.dequantize_per_tensor.default", "portable kernel: no mve kernel for dequantize_s8"),
        ("aten.exp.default", "float: its operands are float (the quantizer left them so)"),
    ]


def test_host_programs_run_the_portable_kernels():
    notes = {note for _, note in _notes(_program("host"))}
    assert notes == {"portable reference kernel", "float: its operands are float (the quantizer left them so)"}


def test_inspect_prints_the_notes(tmp_path, capsys):
    path = tmp_path / "mixed.emb"
    _program("cortex-m4").save(path)
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "dsp kernel (depthwise 3x3)" in out
    assert "portable kernel: grouped convolution" in out


class Concat(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 4, 1)
        self.b = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        return torch.cat([self.a(x), torch.relu(self.b(x))], dim=1)


def test_byte_moving_kernels_are_not_reported_as_fallbacks():
    x = torch.randn(1, 3, 8, 8)
    program = ember.compile(Concat().eval(), (x,), calibration=[(torch.randn(1, 3, 8, 8),) for _ in range(4)],
                            target="cortex-m4")
    notes = {op["kernel"]: op["kernel_note"] for op in program.inspect()["ops"]}
    assert notes["cat_s8"] == "portable kernel (moves bytes only; the same on every tier)"
