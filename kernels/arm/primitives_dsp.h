//===- primitives_dsp.h - Shared inner primitives, ACLE SIMD32 --*- C++ -*-===//
//
// The DSP-extension building blocks (Cortex-M4/M7/M33): sign-extending four int8 lanes into
// two pairs of int16 lanes and dual 16x16 multiply-accumulates. Only the DSP tier files include
// this header. SMLAD wraps modulo 2^32 like the portable accumulator (it sets the Q flag on
// overflow, which nothing reads).

#pragma once

#include <arm_acle.h>
#include <stdint.h>

#include "ember/kernels/arm/primitives_scalar.h"

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

}  // namespace ember::kernels::arm
