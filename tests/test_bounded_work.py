"""No program file makes a kernel loop longer than its operands' sizes warrant (SECURITY.md counts
a hang as a vulnerability; docs/runtime.md, "Work per op").

For every kernel with a window, stride, dilation, padding, perm or axis parameter, a small
program compiled from PyTorch is patched (tests/fbpatch.py) to the extremes the checks allow:
windows of 65,536 taps over 64x64 pixels, strides of 65,536, dilations and paddings of 32,768 and
more, and empty tensors whose other dims are 65,535 (they hold no bytes, so no region bounds
them). Each file is rejected at load with its class's code, or runs to the end; a file with a
sensible twin (the smallest window that covers the same taps) gives the twin's bytes. The
portable pools used to walk every tap of the window: 20 s to minutes per window file here.
"""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import ember
import ember.export
from ember import _ember
from conftest import Lambda
from fbpatch import TENSOR, Patcher

HUGE = 65536   # the largest window, stride, dilation and padding check_window_axis accepts
BIG = 65535    # an empty tensor's other dims
SIDE = 64      # the inputs' height and width

# Wall-clock guard per run, the one timed assertion. The slowest file here (a 65,536-tap
# window over 2 channels of 64x64 float pixels: 4,096 taps for each of 8,192 outputs) runs in
# under 0.1 s on the host; walking every tap, as the portable pools did, took 20 s to minutes per
# window file, and clipping one axis only would still cost 3.4e10 steps. 5 s is 50 times the
# one and a fraction of the other, so neither a loaded machine nor a partial fix passes by chance.
GUARD_SECONDS = 5.0

DTYPE_BYTES = {0: 1, 1: 4, 2: 4}  # schema/program.fbs DType: Int8, Int32, Float32


@dataclass
class Case:
    kernel: str
    name: str
    data: bytes
    expect: str                     # "ok", or the load status of a rejected file
    same_as: bytes | None = None    # a file that must give the same output bytes
    check: Callable | None = None   # (outputs, reference outputs) -> None, instead of equality


def _compile(fn, inputs, quantized: bool) -> bytes:
    module = Lambda(fn) if not isinstance(fn, nn.Module) else fn.eval()
    if quantized:
        ep = ember.quantize(module, inputs, [inputs, tuple(2 * x for x in inputs)])
        return bytes(ember.lower(ep, "host").data)
    return bytes(ember.compile(module, inputs, quantized=False).data)


def _op(p: Patcher, kernel: str) -> int:
    kid = ember.export.kernel_names().index(kernel)
    ops = [i for i in range(p.count("ops")) if p.get(p.op(i), "op", "kernel", "<H") == kid]
    assert len(ops) == 1, f"{kernel}: {len(ops)} ops"
    return p.op(ops[0])


def _set_shape(p: Patcher, tensor: int, dims: list[int]) -> None:
    """Rank and all five dims (those past the rank 0, as the verifier requires)."""
    t = p.tensor(tensor)
    p.set(t, "tensor", "rank", "<B", len(dims))
    struct.pack_into("<5i", p.buf, t + TENSOR["dims"], *(list(dims) + [0] * (5 - len(dims))))


def _patch(data: bytes, kernel: str, ints: dict[int, int] | None = None,
           shapes: Callable[[Patcher, int], dict[int, list[int]]] | None = None) -> bytes:
    """`data` with ints[i] = v of the op running `kernel`, and the tensors of shapes(p, op)."""
    p = Patcher(data)
    op = _op(p, kernel)
    for i, v in (ints or {}).items():
        p.set_int(op, "op", "ints", i, v)
    if shapes is not None:
        for t, dims in shapes(p, op).items():
            _set_shape(p, t, dims)
        _fit_regions(p)
    return bytes(p.buf)


def _fit_regions(p: Patcher) -> None:
    """Each region's size to what its tensors now use, rounded to 16 bytes as the planner does
    (the verifier refuses a region larger than that)."""
    used = [0] * p.count("regions")
    for i in range(p.count("tensors")):
        t = p.tensor(i)
        if p.get(t, "tensor", "storage", "<B") != 0:  # Arena
            continue
        dims = p.shape(i)
        size = 0 if 0 in dims else int(np.prod(dims, dtype=np.int64)) * DTYPE_BYTES[p.get(t, "tensor", "dtype", "<b")]
        r = p.get(t, "tensor", "region", "<B")
        used[r] = max(used[r], p.get(t, "tensor", "offset", "<I") + size)
    for r, n in enumerate(used):
        if n < 1 << 32 and p.pos(p.region(r), "region", "size") is not None:
            p.set(p.region(r), "region", "size", "<I", (n + 15) // 16 * 16)


def _io(p: Patcher, op: int, shapes: dict[str, list[int]]) -> dict[int, list[int]]:
    """Operand shapes by role: 'in0', 'in1', 'out0' -> the op's tensor ids."""
    ins, outs = p.int_vec(op, "op", "inputs"), p.int_vec(op, "op", "outputs")
    return {(ins if k.startswith("in") else outs)[int(k[-1])]: v for k, v in shapes.items()}


def _all_activations(dims: list[int]) -> Callable[[Patcher, int], dict[int, list[int]]]:
    """Every tensor that is not a constant gets `dims`."""
    return lambda p, op: {t: dims for t in range(p.count("tensors")) if not p.is_constant(t)}


def _input_bytes(data: bytes, seed: int = 0) -> list[bytes]:
    p = Patcher(data)
    rng = np.random.default_rng(seed)
    out = []
    for t in p.int_vec(p.root, "program", "inputs"):
        dtype = p.get(p.tensor(t), "tensor", "dtype", "<b")
        n = int(np.prod(p.shape(t), dtype=np.int64)) * DTYPE_BYTES[dtype]
        if dtype == 2:  # float32: values a pool or conv handles exactly
            out.append(rng.integers(-100, 100, n // 4).astype(np.float32).tobytes())
        else:
            out.append(rng.integers(-128, 128, n, dtype=np.int64).astype(np.int8).tobytes())
    return out


def _run(data: bytes) -> tuple[list[bytes], float]:
    rt = _ember.Runtime(data)
    assert rt.status == "ok", rt.message
    inputs = _input_bytes(data)
    start = time.perf_counter()
    status, outputs, message = rt.run(inputs)
    elapsed = time.perf_counter() - start
    assert status == "ok", message
    return outputs, elapsed


def _window_ints(kernel: str, k: tuple[int, int], pad: tuple[int, int], stride=(1, 1),
                 dilation=(1, 1), include_pad: int | None = None) -> dict[int, int]:
    """A 2-D pool's ints 0-5 (kernel, stride, pad per axis), its dilation or count_include_pad."""
    ints = {0: k[0], 1: k[1], 2: stride[0], 3: stride[1], 4: pad[0], 5: pad[1]}
    if kernel.startswith("max"):
        ints.update({6: dilation[0], 7: dilation[1]})
    elif include_pad is not None:
        ints[6] = include_pad
    return ints


POOLS_2D = {
    "max_pool2d_s8": (lambda x: F.max_pool2d(x, 1), True),
    "avg_pool2d_s8": (lambda x: F.avg_pool2d(x, 1), True),
    "max_pool2d_f32": (lambda x: F.max_pool2d(x, 1), False),
    "avg_pool2d_f32": (lambda x: F.avg_pool2d(x, 1), False),
}


def _pool_2d_cases() -> list[Case]:
    cases = []
    x = torch.randn(1, 2, SIDE, SIDE)
    for kernel, (fn, quantized) in POOLS_2D.items():
        base = _compile(fn, (x,), quantized)  # kernel 1: 64x64 in, 64x64 out
        is_max = kernel.startswith("max")
        pool = F.max_pool2d if is_max else F.avg_pool2d
        # The reported class: a window of 65,536 taps (PyTorch's padding of half of it keeps
        # 64 outputs per axis), every output the whole input. Its twin: the smallest window that
        # covers the input from every output, 127 taps. For the average, count only real taps
        # (both then divide by 4096). avg_pool2d_s8's check caps a window at 2^23 taps.
        big = (128, HUGE) if kernel == "avg_pool2d_s8" else (HUGE, HUGE)
        sensible = _patch(base, kernel, _window_ints(kernel, (127, 127), (63, 63), include_pad=0))
        cases.append(Case(kernel, "window 65536", _patch(
            base, kernel, _window_ints(kernel, big, (big[0] // 2, big[1] // 2), include_pad=0)),
            "ok", same_as=sensible))
        if kernel == "avg_pool2d_f32":
            # count_include_pad: the divisor is the padded window's area, 2^32, past int32.
            def scaled(outs, refs):
                got = np.frombuffer(outs[0], np.float32)
                want = np.frombuffer(refs[0], np.float32) * np.float32(4096 / 2**32)
                np.testing.assert_array_equal(got, want)
            cases.append(Case(kernel, "window 65536, count_include_pad", _patch(
                base, kernel, _window_ints(kernel, big, (HUGE // 2, HUGE // 2), include_pad=1)),
                "ok", same_as=sensible, check=scaled))
        if is_max:
            # Taps 32,768 apart: only the middle one lands in the input, as with the 1-tap base.
            cases.append(Case(kernel, "dilation 32768", _patch(
                base, kernel, _window_ints(kernel, (3, 3), (HUGE // 2, HUGE // 2), dilation=(HUGE // 2,) * 2)),
                "ok", same_as=base))
        # Padding over half the window, which PyTorch refuses (the outputs stay consistent).
        cases.append(Case(kernel, "padding 65535", _patch(
            base, kernel, _window_ints(kernel, (HUGE, HUGE), (HUGE - 1, HUGE - 1))), "bad_op_parameter"))
        cases.append(Case(kernel, "padding 3 of 4", _patch(
            base, kernel, _window_ints(kernel, (4, 4), (3, 3))), "bad_op_parameter"))
        # A global pool (one output) with stride 65,536: the same single window.
        glob = _compile(lambda t: pool(t, SIDE), (x,), quantized)
        cases.append(Case(kernel, "stride 65536", _patch(
            glob, kernel, {2: HUGE, 3: HUGE}), "ok", same_as=glob))
        # No channels: both tensors empty, so N, H and W may be 65,535 each.
        cases.append(Case(kernel, "empty, 65535^3 pixels", _patch(
            base, kernel, shapes=lambda p, op: _io(p, op, {"in0": [BIG, BIG, BIG, 0], "out0": [BIG, BIG, BIG, 0]})),
            "bad_shape"))
    return cases


def _pool_3d_cases() -> list[Case]:
    x = torch.randn(1, 2, 16, 16, 16)
    base = _compile(lambda t: F.avg_pool3d(t, 1), (x,), False)
    k = "avg_pool3d_f32"
    sensible = _patch(base, k, {0: 31, 1: 31, 2: 31, 6: 15, 7: 15, 8: 15, 9: 0})
    big = {0: HUGE, 1: HUGE, 2: HUGE, 6: HUGE // 2, 7: HUGE // 2, 8: HUGE // 2}

    def scaled(outs, refs):  # the padded window's volume, 2^48
        np.testing.assert_array_equal(np.frombuffer(outs[0], np.float32),
                                      np.frombuffer(refs[0], np.float32) * np.float32(4096 / 2**48))
    glob = _compile(lambda t: F.avg_pool3d(t, 16), (x,), False)
    return [
        Case(k, "window 65536", _patch(base, k, {**big, 9: 0}), "ok", same_as=sensible),
        Case(k, "window 65536, count_include_pad", _patch(base, k, {**big, 9: 1}), "ok",
             same_as=sensible, check=scaled),
        Case(k, "padding 65535", _patch(base, k, {**big, 6: HUGE - 1, 7: HUGE - 1, 8: HUGE - 1}),
             "bad_op_parameter"),
        Case(k, "stride 65536", _patch(glob, k, {3: HUGE, 4: HUGE, 5: HUGE}), "ok", same_as=glob),
    ]


CONVS = {
    "conv2d_s8": (nn.Conv2d(2, 4, 3, padding=1), True),
    "depthwise_conv2d_s8": (nn.Conv2d(2, 2, 3, padding=1, groups=2), True),
    "conv2d_f32": (nn.Conv2d(2, 4, 3, padding=1), False),
    "depthwise_conv2d_f32": (nn.Conv2d(2, 2, 3, padding=1, groups=2), False),
}


def _conv_cases() -> list[Case]:
    """A convolution's window is its filter, an operand: its work is at most output x filter.
    The parameters can still try: dilation and padding of 65,536, strides of 65,536, no
    channels."""
    torch.manual_seed(0)
    cases = []
    x = torch.randn(1, 2, SIDE, SIDE)
    for kernel, (conv, quantized) in CONVS.items():
        base = _compile(conv, (x,), quantized)  # 3x3, padding 1: 64x64 out
        # Taps 65,536 apart with as much padding: each window's middle tap alone is inside.
        cases.append(Case(kernel, "dilation 65536", _patch(base, kernel, {2: HUGE, 3: HUGE, 4: HUGE, 5: HUGE}), "ok"))
        cases.append(Case(kernel, "padding 65536", _patch(base, kernel, {2: HUGE, 3: HUGE}), "bad_shape"))
        cases.append(Case(kernel, "stride 65536 (64 outputs)", _patch(base, kernel, {0: HUGE, 1: HUGE}), "bad_shape"))
        one = _compile(nn.Conv2d(2, conv.out_channels, 1, groups=conv.groups), (torch.randn(1, 2, 1, 1),), quantized)
        cases.append(Case(kernel, "stride 65536", _patch(one, kernel, {0: HUGE, 1: HUGE}), "ok", same_as=one))
        cases.append(Case(kernel, "empty, 65535^3 pixels", _patch(
            base, kernel, shapes=lambda p, op: _io(p, op, {"in0": [BIG, BIG, BIG, 0], "out0": [BIG, BIG, BIG, 0]})),
            "bad_shape"))
    return cases


def _data_movement_cases() -> list[Case]:
    """Pad amounts, transpose perms, cat axes and broadcasts over empty tensors: the outer loops
    of an empty tensor's walk must not run."""
    cases = []
    big5 = [BIG, BIG, BIG, BIG, 0]
    for quantized, suffix in ((True, "s8"), (False, "f32")):
        x3 = torch.randn(2, 3, 4)
        pad = _compile(lambda t: F.pad(t, (1, 2)), (x3,), quantized)  # before = (0, 0, 1)
        k = f"pad_{suffix}"
        first = 1 if quantized else 0  # pad_s8's ints start with the pad value
        cases.append(Case(k, "before 2^30", _patch(pad, k, {first + 2: 1 << 30}), "bad_shape"))
        cases.append(Case(k, "before 2^30, output grown", _patch(
            pad, k, {first + 2: 1 << 30}, lambda p, op: _io(p, op, {"out0": [2, 3, (1 << 30) + 7]})),
            "size_overflow"))
        cases.append(Case(k, "empty, 65535^2 rows", _patch(
            pad, k, {first + 2: 0}, lambda p, op: _io(p, op, {"in0": [BIG, BIG, 0], "out0": [BIG, BIG, 0]})), "ok"))

        x5 = torch.randn(1, 2, 3, 4, 5)
        tr = _compile(lambda t: t.permute(0, 1, 2, 4, 3), (x5,), quantized)
        k = f"transpose_{suffix}"
        cases.append(Case(k, "empty, 65535^4 rows", _patch(
            tr, k, shapes=lambda p, op: _io(p, op, {"in0": [BIG, BIG, BIG, 0, BIG], "out0": big5})), "ok"))

        # The ReLUs make the int8 cat an int8 op; they run on the same empty tensors.
        cat = _compile(lambda a, b: torch.cat([F.relu(a), F.relu(b)], 4), (x5, x5), quantized)
        k = f"cat_{suffix}"
        cases.append(Case(k, "empty, 65535^4 rows", _patch(cat, k, shapes=_all_activations(big5)), "ok"))

    binaries = [("add_s8", lambda a, b: a + b, True), ("mul_s8", lambda a, b: a * b, True),
                ("add_f32", lambda a, b: a + b, False), ("maximum_f32", torch.maximum, False)]
    for k, fn, quantized in binaries:
        prog = _compile(fn, (torch.randn(2, 3, 4, 5, 6), torch.randn(1, 1, 1, 1, 6)), quantized)
        cases.append(Case(k, "broadcast, empty, 65535^4 rows", _patch(
            prog, k, shapes=lambda p, op: _io(p, op, {"in0": big5, "in1": [1, 1, 1, 1, 0], "out0": big5})), "ok"))
    return cases


def hang_cases() -> list[Case]:
    """Built when the test runs (they compile models: seconds), not while pytest collects."""
    return _pool_2d_cases() + _pool_3d_cases() + _conv_cases() + _data_movement_cases()


# Every kernel whose ints include a window, stride, dilation, padding, perm or axis
# (kernels/kernels.def).
PARAMETER_KERNELS = {
    "conv2d_s8", "depthwise_conv2d_s8", "conv2d_f32", "depthwise_conv2d_f32",
    "max_pool2d_s8", "avg_pool2d_s8", "max_pool2d_f32", "avg_pool2d_f32", "avg_pool3d_f32",
    "pad_s8", "pad_f32", "transpose_s8", "transpose_f32", "cat_s8", "cat_f32",
}


def _check(case: Case) -> None:
    rt = _ember.Runtime(case.data)
    if case.expect != "ok":
        assert rt.status == case.expect, f"{rt.status}: {rt.message}"
        return
    outputs, elapsed = _run(case.data)
    assert elapsed < GUARD_SECONDS, f"{elapsed:.1f} s"
    if case.same_as is not None:
        reference, _ = _run(case.same_as)
        if case.check is not None:
            case.check(outputs, reference)
        else:
            assert outputs == reference


def test_hang_files_rejected_or_bounded():
    """Every parameter kernel has hang files (a huge window accepted and run for every pool), and
    each is rejected at load with its code or runs within the guard."""
    cases = hang_cases()
    assert PARAMETER_KERNELS <= set(ember.export.kernel_names())
    covered = {c.kernel for c in cases}
    assert PARAMETER_KERNELS <= covered, PARAMETER_KERNELS - covered
    for k in ("max_pool2d_s8", "avg_pool2d_s8", "max_pool2d_f32", "avg_pool2d_f32", "avg_pool3d_f32"):
        assert any(c.kernel == k and c.name.startswith("window") and c.expect == "ok" for c in cases)
    failures = []
    for case in cases:
        try:
            _check(case)
        except AssertionError as e:
            failures.append(f"{case.kernel}: {case.name}: {e}")
    assert not failures, "\n".join(failures)
