//===- requantize_s8.h - Optimized int8 to int8 rescale ---------*- C++ -*-===//
//
// The same op as kernels/portable/requantize_s8.h, bit for bit, for the built tier. The entry
// (requantize_s8.cc) is tier-independent; requantize_s8_run (requantize_s8_{scalar,mve}.cc;
// the DSP tier uses the scalar one) is the loop. The output may alias the input (in-place
// planning): each element is read before its output is written.

#pragma once

#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

/// The op's ints, in order.
struct RequantizeParamsS8 {
  int32_t input_zp, output_zp, multiplier, shift, act_min, act_max;
};

/// out[i] = clamp(mbqm(in[i] - input_zp, multiplier, shift) + output_zp, act_min, act_max) for
/// i < n. One implementation per tier.
void requantize_s8_run(const RequantizeParamsS8& p, const int8_t* in, int8_t* out, int32_t n);

/// kernels::valid_requantization (kernels/portable/op_check.h) for the built tier: the same
/// answer, at a lower cost on Helium (four channels per step). The conv, depthwise and fully
/// connected checks run it over every channel at load.
bool valid_requantization(const int32_t* multiplier, const int32_t* shift, int32_t n);

rt::Status check_requantize_s8(const rt::OpContext& ctx);
rt::Status run_requantize_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
