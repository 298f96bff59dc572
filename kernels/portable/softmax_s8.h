//===- softmax_s8.h - Reference int8 softmax --------------------*- C++ -*-===//
//
// The portable int8 softmax over the last axis, in integer arithmetic only. The exponentials
// come from a 256-entry table the compiler builds from the input scale, so the device never
// evaluates exp: x - max takes at most 256 distinct values for int8 input.

#pragma once

#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// For each of `rows` rows of `depth` values: m = max of the row; e_i = table[m - x_i] (Q23,
/// table[d] = round(exp(-input_scale * d) * 2^23), so table[0] = 2^23); sum = sum of e_i in
/// int64; out_i = clamp(round_half_away(e_i * 256 / sum) - 128, -128, 127), i.e. output scale
/// 1/256 and zero point -128. A row whose sum is not positive (a corrupt table) gives -128.
/// Formats: input and output [rows, depth], table int32[256].
void softmax_s8(int32_t rows, int32_t depth, const int8_t* input, const int32_t* table,
                int8_t* output);

/// Operands: input (int8, rank >= 1), table (int32 [256]) -> output (int8, input's shape).
rt::Status check_softmax_s8(const rt::OpContext& ctx);
rt::Status run_softmax_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels
