//===- mul_s8.h - Reference int8 broadcasting multiplication ----*- C++ -*-===//
//
// The portable int8 elementwise product, TFLite's reference integer Mul: the product of the
// zero-point-corrected operands requantized once with s_a*s_b/s_out.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/broadcast.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// Parameters in the order of the kernel's ints. Zero points in [-128, 127]; output_multiplier
/// 0 or in [2^30, 2^31); output_shift in [-31, 30]; -128 <= act_min <= act_max <= 127.
struct MulParamsS8 {
  int32_t a_zp, b_zp;
  int32_t output_zp, output_multiplier, output_shift;
  int32_t act_min, act_max;
};

/// out = clamp(mbqm((a - a_zp) * (b - b_zp), output_multiplier, output_shift) + output_zp,
///             act_min, act_max).
void mul_s8(const MulParamsS8& params, const Broadcast& bc, const int8_t* a, const int8_t* b,
            int8_t* out);

/// Operands: a, b (int8, broadcasting) -> out (int8, the broadcast shape). ints: as MulParamsS8.
rt::Status check_mul_s8(const rt::OpContext& ctx);
rt::Status run_mul_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels
