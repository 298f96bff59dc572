"""PyTorch's converted (PT2E) graph evaluated in float64.

The converted graph defines an int8 model as real-number math between quantize and dequantize
nodes. Eager PyTorch evaluates that math in float32, whose rounding noise decides the rounding
of outputs that lie near a quantization boundary; through a deep network those flips compound
(MobileNet-V1 with random weights moves by tens of quanta). Evaluating the same graph, node by
node, in float64 removes that noise: it is the graph's own arithmetic, which Ember's integer
kernels implement exactly. Tests compare against both and state which.
"""

from __future__ import annotations

import functools

import torch
from torch.export import ExportedProgram
from torch.fx import Interpreter

qd = torch.ops.quantized_decomposed


class _Float64(Interpreter):
    def call_function(self, target, args, kwargs):
        if target in (qd.quantize_per_tensor.default,):
            x, scale, zp, qmin, qmax, dtype = args
            return torch.clamp(torch.round(x.double() / scale) + zp, qmin, qmax).to(dtype)
        if target in (qd.dequantize_per_tensor.default,):
            q, scale, zp = args[:3]
            return (q.double() - zp) * scale
        if target in (qd.dequantize_per_channel.default,):
            q, scales, zps, axis = args[:4]
            shape = [1] * q.dim()
            shape[axis] = -1
            return (q.double() - zps.double().reshape(shape)) * scales.double().reshape(shape)
        args = tuple(a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args)
        return super().call_function(target, args, kwargs)


    def run_node(self, n):
        bias = n.args[2] if n.target in _LAYERS and len(n.args) > 2 else None
        if isinstance(bias, torch.fx.Node) and bias.target == qd.dequantize_per_channel.default:
            x, w = n.args[0], n.args[1]
            if x.target == qd.dequantize_per_tensor.default and w.target == qd.dequantize_per_channel.default:
                args = list(self.fetch_args_kwargs_from_env(n)[0])
                q_bias = self.fetch_attr(bias.args[0].target).double()  # constants (get_attr)
                product = float(x.args[1]) * self.fetch_attr(w.args[1].target).double()
                # A bias shared by several layers (a recurrent cell unrolled over time) has the
                # scale of the first; the others read it at its real value, as Ember does.
                if torch.equal(self.fetch_attr(bias.args[1].target), product.float()):
                    args[2] = q_bias * product
                    return self.call_function(n.target, tuple(args), {})
        return super().run_node(n)


_LAYERS = {torch.ops.aten.conv1d.default, torch.ops.aten.conv2d.default, torch.ops.aten.linear.default}


@functools.lru_cache(maxsize=8)
def module_of(ep: ExportedProgram) -> torch.fx.GraphModule:
    """ep.module(), built once per program (seconds for an unrolled recurrent layer)."""
    return ep.module()


def run_float64(ep: ExportedProgram, *inputs: torch.Tensor):
    """The converted graph's outputs for `inputs`, computed in float64."""
    with torch.no_grad():
        return _Float64(module_of(ep)).run(*[x.double() for x in inputs])
