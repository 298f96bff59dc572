//===- requantize_s8.h - Reference int8 to int8 rescale ---------*- C++ -*-===//
//
// The portable int8 requantization: moves values from one int8 quantization to another (a
// quantize node after an op whose output scale differs, a ReLU folded into clamp bounds, ...).

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// out[i] = clamp(mbqm(in[i] - input_zp, multiplier, shift) + output_zp, act_min, act_max).
/// Zero points in [-128, 127], multiplier 0 or in [2^30, 2^31), shift in [-31, 30] (at most 22
/// when positive, so (q - zp) << shift fits int32), -128 <= act_min <= act_max <= 127.
void requantize_s8(size_t count, int32_t input_zp, int32_t output_zp, int32_t multiplier,
                   int32_t shift, int32_t act_min, int32_t act_max, const int8_t* input,
                   int8_t* output);

/// Operands: input (int8) -> output (int8, input's shape).
/// ints: input_zp, output_zp, multiplier, shift, act_min, act_max.
rt::Status check_requantize_s8(const rt::OpContext& ctx);
rt::Status run_requantize_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels
