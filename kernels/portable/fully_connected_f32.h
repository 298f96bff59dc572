//===- fully_connected_f32.h - Reference float32 linear layer ---*- C++ -*-===//
//
// The portable float linear layer (nn.Linear) for ops left in float: every input row times
// the transposed weight matrix, plus bias, clamped.

#pragma once

#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// out[r, o] = clamp(bias[o] + sum_k in[r, k] * w[o, k], act_min, act_max); bias may be
/// nullptr. Formats: input [rows, K], filter [O, K], output [rows, O].
void fully_connected_f32(int32_t rows, int32_t k, int32_t o, float act_min, float act_max,
                         const float* input, const float* filter, const float* bias,
                         float* output);

/// Operands: input [..., K], filter [O, K], bias (optional, [O]) -> output [..., O] with as
/// many rows as the input, all float32. floats: act_min, act_max.
rt::Status check_fully_connected_f32(const rt::OpContext& ctx);
rt::Status run_fully_connected_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
