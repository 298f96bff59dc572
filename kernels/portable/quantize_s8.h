//===- quantize_s8.h - Reference float32 to int8 quantization ---*- C++ -*-===//
//
// The edge op that turns a float input into int8 where the user keeps float inputs. Matches
// PyTorch's quantize_per_tensor (the pt2e reference decomposition) bit for bit.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// v rounded to the nearest integer, ties to even (torch.round, nearbyint in the default
/// rounding mode), without depending on the floating-point environment.
float round_half_even(float v);

/// q[i] = clamp(round_half_even(x[i] * inv_scale) + zero_point, -128, 127), the product and
/// the sum in float32 as PyTorch computes them. NaN gives zero_point.
/// Ranges: zero_point in [-128, 127], inv_scale finite and > 0.
void quantize_s8(size_t count, float inv_scale, int32_t zero_point, const float* input,
                 int8_t* output);

/// Operands: input (float32) -> output (int8, input's shape). ints: zero_point;
/// floats: inv_scale (1 / scale, as PyTorch multiplies by it).
rt::Status check_quantize_s8(const rt::OpContext& ctx);
rt::Status run_quantize_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels
