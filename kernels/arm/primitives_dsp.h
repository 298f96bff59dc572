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

inline Pairs split_s8(uint32_t word) {
  // GCC 12's arm_acle.h has no __ror; this rotate folds into SXTB16's ROR #8 operand.
  const uint32_t rotated = (word >> 8) | (word << 24);
  return Pairs{__sxtb16(static_cast<int32_t>(word)), __sxtb16(static_cast<int32_t>(rotated))};
}

/// acc + a.even . b.even + a.odd . b.odd (four int8 products).
inline int32_t dot4(const Pairs& a, const Pairs& b, int32_t acc) {
  return __smlad(a.odd, b.odd, __smlad(a.even, b.even, acc));
}

}  // namespace ember::kernels::arm
