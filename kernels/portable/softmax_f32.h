//===- softmax_f32.h - Reference float32 softmax ----------------*- C++ -*-===//
//
// The portable float softmax over the last axis, for ops left in float. Max-subtracted for
// range, as PyTorch computes it.

#pragma once

#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// Per row of `depth` values: m = max; e_i = expf(x_i - m); out_i = e_i * (1 / sum e) (PyTorch's
/// last-dim kernel multiplies by the reciprocal). Formats: input and output [rows, depth]; the
/// buffers may be the same.
void softmax_f32(int32_t rows, int32_t depth, const float* input, float* output);

/// Operands: input (float32, rank >= 1, last dim >= 1) -> output (float32, input's shape).
rt::Status check_softmax_f32(const rt::OpContext& ctx);
rt::Status run_softmax_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
