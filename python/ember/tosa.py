"""Ember's int8 ops as a TOSA 1.0 graph, the form the Ethos-U path hands to Vela.

The input is the compiler's graph after `cleanup` (`_ember.lower_to_ir`): int8 activations
channels last, weights OHWI (depthwise 1HWC), each conv and linear with its int32 bias and per
channel multiplier and shift, and its int8 clamp (q_min, q_max). The graph is written with the
TOSA serializer of the pinned tosa-tools package (PRO-INT profile):

    conv       CONV2D or DEPTHWISE_CONV2D (int32 accumulator), RESCALE, CLAMP when narrower than int8
               (a SLICE first where TOSA's exact output size needs fewer input rows than PyTorch's)
    linear     RESHAPE to 1x1 pixels, CONV2D, RESCALE, CLAMP, RESHAPE back
    add        per input RESCALE to int32 by 2^left_shift and RESCALE (DOUBLE_ROUND: TFLite's two
               roundings), ADD, RESCALE, CLAMP: Ember's arithmetic
    mul        RESCALE of each input by exactly 1 (less its zero point), MUL, RESCALE, CLAMP
    slice      SLICE (step 1)
    max_pool2d MAX_POOL2D;  avg_pool2d  AVG_POOL2D (not counting padding);  lut  TABLE
    pad        PAD with the quantized pad value;  cat  CONCAT (inputs quantized as the output)
    reshape    RESHAPE;  transpose  TRANSPOSE

Numerics: Ember's multiply-and-shift rounds half to even, once (kernels/portable/requantize.h);
TOSA's RESCALE with SINGLE_ROUND rounds half up. The two agree except on exact ties
(docs/numerics.md); everything else is the same integer arithmetic.
"""

from __future__ import annotations

import numpy as np

_NP = {"int8": np.int8, "int32": np.int32}


class TosaError(ValueError):
    """An op or operand this emitter has no TOSA form for; the message names it."""


def serializer():
    """The tosa_serializer module; TosaError naming the package to install when it is missing."""
    try:
        import tosa_serializer
    except ImportError:
        raise TosaError("the TOSA path needs the tosa-tools package (pip install tosa-tools==2026.8.0; "
                        "tools/setup.sh installs it)") from None
    return tosa_serializer


def emit(ir: dict) -> bytes:
    """The whole graph of `ir` as one TOSA flatbuffer: its inputs as placeholders, its outputs
    as the graph's outputs (in the order their ops write them)."""
    return _Emitter(ir).run()


class _Emitter:
    def __init__(self, ir: dict):
        self.ts = ts = serializer()
        self.ir = ir
        self.ser = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)
        self.names: dict[int, str] = {}
        for t in ir["inputs"]:
            self._int8(t, "graph input")
            self.names[t] = self.ser.addPlaceholder(self.tensor(t)["shape"], ts.DType.INT8).name

    def tensor(self, t: int) -> dict:
        return self.ir["tensors"][t]

    def _int8(self, t: int, what: str) -> None:
        if self.tensor(t)["dtype"] != "int8":
            raise TosaError(f"{what} {self.tensor(t)['name']} is {self.tensor(t)['dtype']}, not int8")

    def data(self, t: int) -> np.ndarray:
        info = self.tensor(t)
        return np.frombuffer(info["data"], _NP[info["dtype"]]).reshape(info["shape"])

    def value(self, t: int) -> str:
        """The name holding tensor `t`: an earlier op's result, a graph input, or a constant."""
        if t not in self.names:
            self._int8(t, "operand")
            self.names[t] = self.const(self.data(t), self.ts.DType.INT8)
        return self.names[t]

    def const(self, values: np.ndarray, dtype) -> str:
        return self.ser.addConst(list(values.shape), dtype, values).name

    def shape(self, dims) -> str:
        return self.const(np.array(dims, np.int64), self.ts.DType.SHAPE)

    def temp(self, shape, dtype) -> str:
        return self.ser.addIntermediate(list(shape), dtype).name

    def result(self, t: int) -> str:
        """The name an op writes tensor `t` under: a graph output or an intermediate."""
        self._int8(t, "output")
        shape = self.tensor(t)["shape"]
        tensor = (self.ser.addOutput(shape, self.ts.DType.INT8) if t in self.ir["outputs"]
                  else self.ser.addIntermediate(shape, self.ts.DType.INT8))
        self.names[t] = tensor.name
        return tensor.name

    def op(self, code, inputs, outputs, attr) -> None:
        self.ser.addOperator(code, inputs, outputs, attr)

    def reshape(self, x: str, shape, out: str) -> None:
        attr = self.ts.TosaSerializerAttribute()
        attr.ReshapeAttribute()
        self.op(self.ts.Op.RESHAPE, [x, self.shape(shape)], [out], attr)

    def run(self) -> bytes:
        for op in self.ir["ops"]:
            emit_op = getattr(self, f"emit_{op['kind']}", None)
            if emit_op is None:
                raise TosaError(f"no TOSA form for {op['kind']} ({op['source']})")
            emit_op(op)
        return bytes(self.ser.serialize())

    # --- the int32 accumulator back to int8 ---------------------------------------------------

    def requantize(self, acc: str, shape, op: dict, out: str) -> None:
        """A conv's or linear's accumulator to int8 with its per-channel multipliers and shifts."""
        self.rescale(acc, shape, self.data(op["inputs"][3]), self.data(op["inputs"][4]), op, out)

    def rescale(self, acc: str, shape, multiplier, shift, op: dict, out: str) -> None:
        """int32 -> int8: acc * multiplier * 2^(shift - 31) (Ember's convention) + output zero
        point, then the op's clamp when narrower than int8."""
        ts, a = self.ts, op["attrs"]
        right = 31 - np.asarray(shift, np.int64)  # TOSA shifts right by 2..62
        if right.min() < 2 or right.max() > 62:
            raise TosaError(f"a requantization shift outside TOSA's 2..62 ({op['source']})")
        multiplier = np.asarray(multiplier, np.int32).reshape(-1)
        attr = ts.TosaSerializerAttribute()
        attr.RescaleAttribute(True, ts.RoundingMode.SINGLE_ROUND, len(multiplier) > 1, False, False)
        clamp = a["q_min"] > -128 or a["q_max"] < 127
        rescaled = self.temp(shape, ts.DType.INT8) if clamp else out
        self.op(ts.Op.RESCALE, [acc, self.const(multiplier, ts.DType.INT32),
                                self.const(right.reshape(-1).astype(np.int8), ts.DType.INT8),
                                self.const(np.zeros(1, np.int32), ts.DType.INT32),
                                self.const(np.array([a["output_zp"]], np.int8), ts.DType.INT8)],
                [rescaled], attr)
        if clamp:
            self.clamp(rescaled, a, out)

    def to_int32(self, t: int, zero_point: int, multiplier: int, right: int) -> str:
        """int8 tensor `t` as int32: (q - zero_point) * multiplier >> right, rounded half up."""
        return self.rescale_int32(self.value(t), self.tensor(t)["shape"], np.int8, zero_point, multiplier, right,
                                  self.ts.RoundingMode.SINGLE_ROUND)

    def rescale_int32(self, x: str, shape, dtype, zero_point: int, multiplier: int, right: int, rounding) -> str:
        """x (of numpy `dtype`, int8 or int32) to int32: (x - zero_point) * multiplier >> right,
        rounded as `rounding` says."""
        ts = self.ts
        out = self.temp(shape, ts.DType.INT32)
        attr = ts.TosaSerializerAttribute()
        attr.RescaleAttribute(True, rounding, False, False, False)
        self.op(ts.Op.RESCALE, [x, self.const(np.array([multiplier], np.int32), ts.DType.INT32),
                                self.const(np.array([right], np.int8), ts.DType.INT8),
                                self.const(np.array([zero_point], dtype), ts.DType.INT8 if dtype is np.int8
                                           else ts.DType.INT32),
                                self.const(np.zeros(1, np.int32), ts.DType.INT32)], [out], attr)
        return out

    def clamp(self, x: str, a: dict, out: str) -> None:
        attr = self.ts.TosaSerializerAttribute()
        attr.ClampAttribute([a["q_min"] & 0xFF], [a["q_max"] & 0xFF], self.ts.NanPropagationMode.PROPAGATE)
        self.op(self.ts.Op.CLAMP, [x], [out], attr)

    def stride(self, op: dict) -> list[int]:
        """The op's stride, 1 along an axis with one output (a global pool's stride is its
        window, over the NPU's limit of 3, and moves nothing)."""
        out = self.tensor(op["outputs"][0])["shape"]
        return [s if n > 1 else 1 for s, n in zip(op["attrs"]["stride"], out[1:3])]

    def window_input(self, op: dict, kernel, dilation) -> tuple[str, list[int]]:
        """The input of a windowed op and Ember's [top, left, bottom, right] padding as TOSA's
        [top, bottom, left, right], with bottom and right cut to what the last window reads:
        TOSA wants the output size to divide exactly where PyTorch floors. Where even no padding
        is too much (a 1x1 stride 2 window over an even size), the unread rows or columns are
        sliced off the input."""
        top, left, _, _ = op["attrs"]["padding"]
        (n, ih, iw, c), (_, oh, ow, _) = (self.tensor(op["inputs"][0])["shape"], self.tensor(op["outputs"][0])["shape"])
        (sh, sw), (dh, dw) = self.stride(op), dilation
        bottom = (oh - 1) * sh + (kernel[0] - 1) * dh + 1 - ih - top
        right = (ow - 1) * sw + (kernel[1] - 1) * dw + 1 - iw - left
        x = self.value(op["inputs"][0])
        if bottom < 0 or right < 0:
            size = [n, ih + min(bottom, 0), iw + min(right, 0), c]
            sliced = self.temp(size, self.ts.DType.INT8)
            attr = self.ts.TosaSerializerAttribute()
            attr.SliceAttribute()
            self.op(self.ts.Op.SLICE, [x, self.shape([0, 0, 0, 0]), self.shape(size)], [sliced], attr)
            x, bottom, right = sliced, max(bottom, 0), max(right, 0)
        return x, [top, bottom, left, right]

    def accumulate(self, code, attr, x: str, weights: np.ndarray, op: dict, out_shape) -> str:
        ts = self.ts
        acc = self.temp(out_shape, ts.DType.INT32)
        bias = (self.data(op["inputs"][2]).astype(np.int32) if op["inputs"][2] >= 0  # -1: no bias
                else np.zeros(out_shape[-1], np.int32))
        self.op(code, [x, self.const(weights, ts.DType.INT8), self.const(bias, ts.DType.INT32),
                       self.const(np.array([op["attrs"]["input_zp"]], np.int8), ts.DType.INT8),
                       self.const(np.zeros(1, np.int8), ts.DType.INT8)], [acc], attr)
        return acc

    # --- ops ----------------------------------------------------------------------------------

    def emit_conv(self, op: dict) -> None:
        ts, a = self.ts, op["attrs"]
        if len(self.tensor(op["inputs"][0])["shape"]) != 4:  # 1-D convs are stored as 2-D ones
            raise TosaError(f"conv over a {len(self.tensor(op['inputs'][0])['shape'])}-D tensor ({op['source']})")
        out = self.tensor(op["outputs"][0])["shape"]
        weights = self.data(op["inputs"][1])
        stride, dilation = self.stride(op), a["dilation"]
        x, pad = self.window_input(op, weights.shape[1:3], dilation)
        attr = ts.TosaSerializerAttribute()
        if a["depthwise"]:
            weights = weights.reshape(weights.shape[1:] + (1,))  # 1HWC -> HWC1, the same bytes
            attr.DepthwiseConv2dAttribute(pad, stride, dilation, False, ts.DType.INT32)
            code = ts.Op.DEPTHWISE_CONV2D
        elif a["groups"] == 1:
            attr.Conv2dAttribute(pad, stride, dilation, False, ts.DType.INT32)
            code = ts.Op.CONV2D
        else:
            raise TosaError(f"grouped conv (groups={a['groups']}) ({op['source']})")
        acc = self.accumulate(code, attr, x, weights, op, out)
        self.requantize(acc, out, op, self.result(op["outputs"][0]))

    def emit_linear(self, op: dict) -> None:
        ts = self.ts
        x, out_t = self.tensor(op["inputs"][0]), op["outputs"][0]
        rows, cin = int(np.prod(x["shape"][:-1])), x["shape"][-1]
        weights = self.data(op["inputs"][1])
        cout = weights.shape[0]
        pixels = self.temp([rows, 1, 1, cin], ts.DType.INT8)
        self.reshape(self.value(op["inputs"][0]), [rows, 1, 1, cin], pixels)
        attr = ts.TosaSerializerAttribute()
        attr.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
        acc = self.accumulate(ts.Op.CONV2D, attr, pixels, weights.reshape(cout, 1, 1, cin), op, [rows, 1, 1, cout])
        y = self.temp([rows, 1, 1, cout], ts.DType.INT8)
        self.requantize(acc, [rows, 1, 1, cout], op, y)
        shape = self.tensor(out_t)["shape"]
        self.reshape(y, shape, self.result(out_t))

    def emit_max_pool2d(self, op: dict) -> None:
        ts, a = self.ts, op["attrs"]
        if a["dilation"] != [1, 1]:
            raise TosaError(f"dilated max_pool2d ({op['source']})")
        x, pad = self.window_input(op, a["kernel"], [1, 1])
        attr = ts.TosaSerializerAttribute()
        attr.MaxPool2dAttribute(a["kernel"], self.stride(op), pad, ts.NanPropagationMode.PROPAGATE)
        self.op(ts.Op.MAX_POOL2D, [x], [self.result(op["outputs"][0])], attr)

    def emit_avg_pool2d(self, op: dict) -> None:
        ts, a = self.ts, op["attrs"]
        if a["count_include_pad"] and any(a["padding"]):
            raise TosaError(f"avg_pool2d counting padding (TOSA counts only the input) ({op['source']})")
        x, pad = self.window_input(op, a["kernel"], [1, 1])
        zp = self.const(np.array([self.tensor(op["inputs"][0])["quant"]["zero_point"][0]], np.int8), ts.DType.INT8)
        attr = ts.TosaSerializerAttribute()
        attr.AvgPool2dAttribute(a["kernel"], self.stride(op), pad, ts.DType.INT32)
        out = self.result(op["outputs"][0])
        clamp = a["q_min"] > -128 or a["q_max"] < 127
        pooled = self.temp(self.tensor(op["outputs"][0])["shape"], ts.DType.INT8) if clamp else out
        self.op(ts.Op.AVG_POOL2D, [x, zp, zp], [pooled], attr)
        if clamp:
            self.clamp(pooled, a, out)

    def emit_add(self, op: dict) -> None:
        """TFLite's add, as Ember runs it: each input (q - zp) * 2^left_shift (exact), rescaled to
        a common int32 scale with TFLite's two roundings (TOSA's DOUBLE_ROUND is that arithmetic,
        Vela's EXT-DOUBLEROUND), summed, rescaled to the output (one rounding, half up where
        Ember rounds half to even)."""
        ts, a = self.ts, op["attrs"]
        if op["kind"] != "add" or len(op["inputs"]) != 2:
            raise TosaError(f"{op['kind']} of {len(op['inputs'])} inputs ({op['source']})")
        shape = self.tensor(op["outputs"][0])["shape"]
        terms = []
        for side, t in zip("ab", op["inputs"]):
            shifted = self.to_int32(t, a[f"{side}_zp"], 1 << 30, 30 - a["left_shift"])
            terms.append(self.rescale_int32(shifted, self.tensor(t)["shape"], np.int32, 0, a[f"{side}_multiplier"],
                                            31 - a[f"{side}_shift"], ts.RoundingMode.DOUBLE_ROUND))
        total = self.temp(shape, ts.DType.INT32)
        attr = ts.TosaSerializerAttribute()
        attr.AddAttribute()
        self.op(ts.Op.ADD, terms, [total], attr)
        self.rescale(total, shape, [a["output_multiplier"]], [a["output_shift"]], op, self.result(op["outputs"][0]))

    def emit_mul(self, op: dict) -> None:
        """(a - a_zp) * (b - b_zp) exactly in int32 (each input's RESCALE by exactly 1 subtracts
        its zero point), then the output's RESCALE: Ember's arithmetic, rounding aside."""
        ts, a = self.ts, op["attrs"]
        factors = []
        for side, t in zip("ab", op["inputs"]):
            factors.append(self.to_int32(t, a[f"{side}_zp"], 1 << 30, 30))
        shape = self.tensor(op["outputs"][0])["shape"]
        product = self.temp(shape, ts.DType.INT32)
        attr = ts.TosaSerializerAttribute()
        attr.MulAttribute()
        self.op(ts.Op.MUL, [*factors, self.const(np.zeros(1, np.int8), ts.DType.INT8)], [product], attr)
        self.rescale(product, shape, [a["output_multiplier"]], [a["output_shift"]], op, self.result(op["outputs"][0]))

    def emit_slice(self, op: dict) -> None:
        a = op["attrs"]
        if a["step"] != 1:
            raise TosaError(f"slice with step {a['step']} ({op['source']})")
        shape = self.tensor(op["outputs"][0])["shape"]
        start = [0] * len(shape)
        start[a["dim"]] = a["start"]
        attr = self.ts.TosaSerializerAttribute()
        attr.SliceAttribute()
        self.op(self.ts.Op.SLICE, [self.value(op["inputs"][0]), self.shape(start), self.shape(shape)],
                [self.result(op["outputs"][0])], attr)

    def emit_reshape(self, op: dict) -> None:
        self.reshape(self.value(op["inputs"][0]), self.tensor(op["outputs"][0])["shape"], self.result(op["outputs"][0]))

    def emit_transpose(self, op: dict) -> None:
        attr = self.ts.TosaSerializerAttribute()
        attr.TransposeAttribute(op["attrs"]["perm"])
        self.op(self.ts.Op.TRANSPOSE, [self.value(op["inputs"][0])], [self.result(op["outputs"][0])], attr)

    def emit_lut(self, op: dict) -> None:
        attr = self.ts.TosaSerializerAttribute()
        attr.TableAttribute()
        table = self.const(self.data(op["inputs"][1]), self.ts.DType.INT8)
        self.op(self.ts.Op.TABLE, [self.value(op["inputs"][0]), table], [self.result(op["outputs"][0])], attr)

    def emit_pad(self, op: dict) -> None:
        ts, a = self.ts, op["attrs"]
        quant = self.tensor(op["outputs"][0])["quant"]
        value = int(np.clip(np.rint(a["value"] / quant["scale"][0]) + quant["zero_point"][0], -128, 127))
        padding = [n for pair in zip(a["before"], a["after"]) for n in pair]
        attr = ts.TosaSerializerAttribute()
        attr.PadAttribute()
        self.op(ts.Op.PAD, [self.value(op["inputs"][0]), self.shape(padding),
                            self.const(np.array([value], np.int8), ts.DType.INT8)],
                [self.result(op["outputs"][0])], attr)

    def emit_cat(self, op: dict) -> None:
        out = op["outputs"][0]
        if any(self.tensor(t)["quant"] != self.tensor(out)["quant"] for t in op["inputs"]):
            raise TosaError(f"cat of inputs quantized unlike its output ({op['source']})")
        attr = self.ts.TosaSerializerAttribute()
        attr.ConcatAttribute(op["attrs"]["dim"])
        self.op(self.ts.Op.CONCAT, [self.value(t) for t in op["inputs"]], [self.result(out)], attr)


# The Ember op kinds this module writes.
EMITTED = frozenset(name[len("emit_"):] for name in vars(_Emitter) if name.startswith("emit_"))
