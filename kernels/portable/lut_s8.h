//===- lut_s8.h - Reference int8 table lookup -------------------*- C++ -*-===//
//
// Any int8 -> int8 elementwise function (sigmoid, tanh, hardswish, GELU, SiLU, ...) as one
// 256-entry table the compiler computes from the exact float function and both quantizations.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// out[i] = table[in[i] + 128] for i < count. Formats: table int8[256].
void lut_s8(size_t count, const int8_t* input, const int8_t* table, int8_t* output);

/// Operands: input (int8), table (int8 [256]) -> output (int8, input's shape).
rt::Status check_lut_s8(const rt::OpContext& ctx);
rt::Status run_lut_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels
