//===- softmax_s8.h - Optimized int8 softmax --------------------*- C++ -*-===//
//
// The same op as kernels/portable/softmax_s8.h for the built tier. The entry (softmax_s8.cc)
// checks with the portable check and walks the rows; softmax_s8_row (softmax_s8_{scalar,mve}.cc;
// the DSP tier uses the scalar one: a row is table lookups and divisions, which SIMD32 has
// neither of) is one row.
//
// Both tiers take the fast path only for a row whose table values e_i are all in [0, 2^23] and
// whose sum is in (0, 2^32): every table the compiler builds (e_0 = 2^23, rows of up to 511
// classes). Then each output is one 32-bit division of e_i * 256 + sum / 2 by the sum, the
// portable kernel's narrow case. Any other row (a hostile table, a longer row) runs the
// portable kernel's row, so the bytes are the portable kernel's for every input.

#pragma once

#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

/// One row of `depth` >= 1 values. One implementation per tier.
void softmax_s8_row(const int8_t* in, int32_t depth, const int32_t* table, int8_t* out);

rt::Status check_softmax_s8(const rt::OpContext& ctx);
rt::Status run_softmax_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
