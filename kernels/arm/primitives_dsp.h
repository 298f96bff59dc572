//===- primitives_dsp.h - Shared inner primitives, ACLE SIMD32 --*- C++ -*-===//
//
// The DSP-extension building blocks (Cortex-M4/M7/M33): sign-extending four int8 lanes into
// two pairs of int16 lanes and dual 16x16 multiply-accumulates. Only the DSP tier files include
// this header. SMLAD wraps modulo 2^32 like the portable accumulator (it sets the Q flag on
// overflow, which nothing reads).

#pragma once

#include <arm_acle.h>
#include <stdint.h>

#include "kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {

/// Splits four int8 lanes (b0 b1 b2 b3) into int16 pairs (b0, b2) and (b1, b3). A dot product
/// is order-free, so both operands of a dot product split the same way need no re-ordering.
struct Pairs {
  int32_t even, odd;
};

/// SXTB16 of word rotated right by 8 bits: the odd bytes (b1, b3) as int16 lanes, one
/// instruction. GCC 12's arm_acle.h has no __ror, and GCC does not fold a rotate written in C
/// into SXTB16's ROR operand (it emits a separate MOV ..., ROR #8).
inline int32_t sxtb16_odd(uint32_t word) {
  int32_t r;
  asm("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(word));
  return r;
}

inline Pairs split_s8(uint32_t word) {
  return Pairs{__sxtb16(static_cast<int32_t>(word)), sxtb16_odd(word)};
}

/// acc + a.even . b.even + a.odd . b.odd (four int8 products).
inline int32_t dot4(const Pairs& a, const Pairs& b, int32_t acc) {
  return __smlad(a.odd, b.odd, __smlad(a.even, b.even, acc));
}

/// A channel's requantization in the form the DSP asm loops take (depthwise_conv2d_s8_dsp.cc,
/// mat_mult_s8_dsp.cc), when its shift is in [-23, -2] and the activation range is all of int8
/// (every zoo layer). With right = -shift - 1 >= 1, requantize_s8's rounding constant
/// 2^(31 + right) has no low word, so the high word h of acc * m + constant is one SMMLA with
/// rh = 2^(right - 1); rh also holds zp * 2^right, which the shift turns into + zp (right <= 22
/// keeps h within int32: |acc * m / 2^32| < 2^30). SSAT #8 is then the clamp. A tie (half to
/// even) needs h's low `right` bits zero, one TST against `low` (1 output in 2^right), and the
/// product's low word zero (MUL, out of line); it clears the low bit of the value before zp.
struct FastOut {
  int32_t m, rh, right, low;
};

inline bool fast_out(const ChannelRequant& q, bool full_range) { return full_range && q.right >= 1 && q.right <= 22; }

inline FastOut fast_constants(const ChannelRequant& q, int32_t zp) {
  return FastOut{q.multiplier,
                 static_cast<int32_t>((uint32_t{1} << (q.right - 1)) + (static_cast<uint32_t>(zp) << q.right)), q.right,
                 static_cast<int32_t>(q.low)};
}

}  // namespace ember::kernels::arm
