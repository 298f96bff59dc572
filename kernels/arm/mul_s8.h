//===- mul_s8.h - Optimized int8 broadcasting multiplication ----*- C++ -*-===//
//
// The same op as kernels/portable/mul_s8.h, bit for bit, for the built tier: the product of the
// zero-point-corrected operands, requantized once. The entry (mul_s8.cc) walks the broadcast
// over the outer axes; the tier's mul_s8_run (mul_s8_{scalar,mve}.cc; the DSP tier uses the
// scalar one) does one innermost run. No added operands, no scratch. The output may alias an
// input of the same shape (in-place planning): every element is read before its output is
// written.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/mul_s8.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

/// out[i] = mul(a[i * a_step], b[i * b_step]) for i < n; a_step, b_step in {0, 1}. One
/// implementation per tier.
void mul_s8_run(const MulParamsS8& p, const int8_t* a, int32_t a_step, const int8_t* b, int32_t b_step,
                int8_t* out, int32_t n);

rt::Status check_mul_s8(const rt::OpContext& ctx);
rt::Status run_mul_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
