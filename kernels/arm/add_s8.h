//===- add_s8.h - Optimized int8 broadcasting addition ----------*- C++ -*-===//
//
// The same op as kernels/portable/add_s8.h, bit for bit, for the built tier: TFLite's input
// rescaling (multiply_by_quantized_multiplier of (q - zp) << left_shift) for each operand, then
// Ember's single-rounding requantization of the sum. The entry (add_s8.cc) walks the broadcast
// over the outer axes; the tier's add_s8_run (add_s8_{scalar,mve}.cc; the DSP tier uses the
// scalar one) does one innermost run, where each operand is either contiguous or one element
// repeated. No added operands, no scratch. The output may alias an input of the same shape
// (the compiler's in-place planning): every element is read before its own output is written.

#pragma once

#include <stdint.h>

#include "kernels/portable/add_s8.h"
#include "runtime/op_context.h"

namespace ember::kernels::arm {

/// out[i] = add(a[i * a_step], b[i * b_step]) for i < n; a_step, b_step in {0, 1}. One
/// implementation per tier.
void add_s8_run(const AddParamsS8& p, const int8_t* a, int32_t a_step, const int8_t* b, int32_t b_step,
                int8_t* out, int32_t n);

rt::Status check_add_s8(const rt::OpContext& ctx);
rt::Status run_add_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
