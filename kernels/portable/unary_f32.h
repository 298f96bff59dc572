//===- unary_f32.h - Reference float32 elementwise functions ----*- C++ -*-===//
//
// The portable float unary ops (neg, abs, exp, log, sqrt, rsqrt, sigmoid, tanh, hardswish,
// hardsigmoid, silu, mish, gelu, clamp), each written as PyTorch's scalar CPU kernel writes it so
// results agree to the last bit wherever libm does.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

enum class UnaryOp : uint8_t {
  Neg, Abs, Exp, Log, Sqrt, Rsqrt, Sigmoid, Tanh, Hardswish, Hardsigmoid, Silu,
  Mish,      // x * tanh(log1p(exp(x)))
  GeluErf,   // 0.5 * x * (1 + erf(x / sqrt(2)))
  GeluTanh,  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), approximate="tanh"
};

/// f(x) in float32: neg -x; abs fabsf; exp expf; log logf; sqrt sqrtf; rsqrt 1/sqrtf;
/// sigmoid 1/(1+expf(-x)); tanh tanhf; hardswish x*min(max(x+3,0),6)/6; hardsigmoid
/// min(max(x+3,0),6)/6; silu x/(1+expf(-x)); mish x*tanhf(log1pf(expf(x))); gelu as above.
float unary_op_f32(UnaryOp op, float x);

/// The parametric activations, as PyTorch's CPU kernels write them: leaky_relu
/// x > 0 ? x : x * slope; elu x > 0 ? x * scale : expm1f(x * input_scale) * alpha * scale.
float leaky_relu_value(float x, float slope);
float elu_value(float x, float alpha, float scale, float input_scale);

/// out[i] = f(in[i]) for i < count. in and out may be the same buffer.
void unary_f32(UnaryOp op, size_t count, const float* input, float* output);

/// out[i] = min(max(in[i], lo), hi); NaN passes through (torch.clamp). lo <= hi.
void clamp_f32(size_t count, float lo, float hi, const float* input, float* output);

/// The adapters check_<op>_f32/run_<op>_f32 (declared in kernels/kernels.h from kernels.def):
/// input (float32) -> output (float32, input's shape). gelu_f32 ints: approximate (0 none,
/// 1 tanh). clamp_f32 floats: min <= max (relu: 0, +inf; relu6: 0, 6). leaky_relu_f32 floats:
/// slope; elu_f32 floats: alpha, scale, input_scale.

}  // namespace ember::kernels
