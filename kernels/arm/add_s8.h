//===- add_s8.h - Optimized int8 broadcasting addition ----------*- C++ -*-===//
//
// The same op as kernels/portable/add_s8.h, bit for bit, for the built tier: TFLite's input
// rescaling (multiply_by_quantized_multiplier of (q - zp) << left_shift) for each operand, then
// Ember's single-rounding requantization of the sum. The entry (add_s8.cc) walks the broadcast
// over the outer axes; the tier's add_s8_run (add_s8_{scalar,mve}.cc; the DSP tier uses the
// scalar one) does one innermost run, where each operand is either contiguous or one element
// repeated. The output may alias an input of the same shape (the compiler's in-place planning):
// every element is read before its own output is written.
//
// Added operands (inputs 2 and 3, both or neither; the compiler's pack_weights pass): each
// operand's rescale table, its rescaled value for each of the 256 int8 values, so a run looks
// two values up instead of rescaling each element (two 32-bit multiplies with exact rounding)
// where both operands are contiguous. The check recomputes both tables, so an accepted program
// means what the portable kernel computes; without them the op rescales each element. No
// scratch.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/add_s8.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

/// out[i] = add(a[i * a_step], b[i * b_step]) for i < n; a_step, b_step in {0, 1}. One
/// implementation per tier.
void add_s8_run(const AddParamsS8& p, const int8_t* a, int32_t a_step, const int8_t* b, int32_t b_step,
                int8_t* out, int32_t n);

/// out[i] = add(a[i], b[i]) for i < n (both operands contiguous) with the rescale tables ta and
/// tb (add_s8_rescale_table). A run with a repeated operand rescales it once and takes
/// add_s8_run.
void add_s8_run_tables(const AddParamsS8& p, const int32_t* ta, const int8_t* a, const int32_t* tb, const int8_t* b,
                       int8_t* out, int32_t n);

/// table[uint8_t(q)] = the rescaled operand for q, as the portable kernel computes it:
/// (q - zp) << left_shift by multiply_by_quantized_multiplier(multiplier, shift), for each int8
/// q. Parameters as the portable check accepts them; every entry is then below 2^30 in magnitude.
inline constexpr int32_t kRescaleTableSize = 256;
void add_s8_rescale_table(int32_t zp, int32_t left_shift, int32_t multiplier, int32_t shift, int32_t* table);

rt::Status check_add_s8(const rt::OpContext& ctx);
rt::Status run_add_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
