//===- add_s8.h - Reference int8 broadcasting addition ----------*- C++ -*-===//
//
// The portable int8 add, TFLite's reference integer Add: both operands are brought to a common
// scale with extra headroom (left_shift, 20 for int8), added, and requantized to the output.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/broadcast.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// Parameters in the order of the kernel's ints. Ranges (enforced by check_add_s8):
/// left_shift in [0, 22]; zero points in [-128, 127]; multipliers 0 or in [2^30, 2^31);
/// a_shift, b_shift in [-31, 0]; output_shift in [-31, 30]; -128 <= act_min <= act_max <= 127.
struct AddParamsS8 {
  int32_t left_shift;
  int32_t a_zp, a_multiplier, a_shift;
  int32_t b_zp, b_multiplier, b_shift;
  int32_t output_zp, output_multiplier, output_shift;
  int32_t act_min, act_max;
};

/// out = clamp(mbqm(sa + sb, output_multiplier, output_shift) + output_zp, act_min, act_max)
/// with sa = mbqm((a - a_zp) << left_shift, a_multiplier, a_shift), sb likewise. The ranges
/// above keep every intermediate inside int32.
void add_s8(const AddParamsS8& params, const Broadcast& bc, const int8_t* a, const int8_t* b,
            int8_t* out);

/// Operands: a, b (int8, broadcasting) -> out (int8, the broadcast shape). ints: as AddParamsS8.
rt::Status check_add_s8(const rt::OpContext& ctx);
rt::Status run_add_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels
