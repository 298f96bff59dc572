//===- dequantize_s8.h - Reference int8 to float32 dequantization -*- C++ -*-===//
//
// The edge op that turns int8 results back into float where the user keeps float outputs (or
// where a float-only op follows). Matches PyTorch's dequantize_per_tensor bit for bit.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// x[i] = float32(q[i] - zero_point) * scale, one float32 multiply (exact conversion first).
/// Ranges: zero_point in [-128, 127], scale finite and > 0.
void dequantize_s8(size_t count, float scale, int32_t zero_point, const int8_t* input,
                   float* output);

/// Operands: input (int8) -> output (float32, input's shape). ints: zero_point; floats: scale.
rt::Status check_dequantize_s8(const rt::OpContext& ctx);
rt::Status run_dequantize_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels
