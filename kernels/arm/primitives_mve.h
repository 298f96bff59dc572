//===- primitives_mve.h - Shared inner primitives, Helium -------*- C++ -*-===//
//
// Vector requantization for the MVE tier (Cortex-M55/M85), exact to the portable
// requantize_to_s8 for shift <= -1 (see requantize_s8 in primitives_scalar.h for the proof):
//   hi2  = VQDMULH(acc, m)        = floor(2 * acc * m / 2^32) = floor(P / 2^31) (m < 2^31, so
//                                   the doubling never saturates)
//   up   = VRSHL(hi2, shift)      = floor((hi2 + 2^(k-1)) / 2^k), rounding half up, k = -shift
//   lo   = VMUL(acc, m) << 1      = (P mod 2^31) * 2, zero exactly when the low 31 bits are
//   a tie needs lo == 0 and hi2 mod 2^k == 2^(k-1); half to even then clears up's low bit.
// The tie test runs only when some lane has lo == 0 (rare), behind one predicate branch.
// Only MVE tier files include this header.

#pragma once

#include <arm_mve.h>
#include <stdint.h>

#include "ember/kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {

/// Four accumulators (one output channel: same multiplier, shift <= -1) to rounded int32.
inline int32x4_t requantize_mve(int32x4_t acc, int32_t multiplier, int32_t shift) {
  const int32x4_t hi2 = vqdmulhq_n_s32(acc, multiplier);
  int32x4_t up = vrshlq_n_s32(hi2, shift);
  const int32x4_t lo = vshlq_n_s32(vmulq_n_s32(acc, multiplier), 1);
  const mve_pred16_t exact = vcmpeqq_s32(lo, vdupq_n_s32(0));  // _n form: GCC 12 ICE
  if (exact != 0) {
    const int32_t k = -shift;
    const int32_t mask = static_cast<int32_t>((uint32_t{1} << k) - 1u);
    const int32_t half = static_cast<int32_t>(uint32_t{1} << (k - 1));
    const mve_pred16_t tie = vcmpeqq_m_n_s32(vandq_s32(hi2, vdupq_n_s32(mask)), half, exact);
    up = vpselq_s32(vandq_s32(up, vdupq_n_s32(-2)), up, tie);
  }
  return up;
}

/// Four accumulators of four channels (per-lane multiplier, shift; every shift <= -1).
inline int32x4_t requantize_mve(int32x4_t acc, int32x4_t multiplier, int32x4_t shift) {
  const int32x4_t hi2 = vqdmulhq_s32(acc, multiplier);
  int32x4_t up = vrshlq_s32(hi2, shift);
  const int32x4_t lo = vshlq_n_s32(vmulq_s32(acc, multiplier), 1);
  const mve_pred16_t exact = vcmpeqq_s32(lo, vdupq_n_s32(0));  // _n form: GCC 12 ICE
  if (exact != 0) {
    // half = 2^(k-1) = 1 << (-shift - 1); mask = 2 * half - 1.
    const int32x4_t half = vshlq_s32(vdupq_n_s32(1), vsubq_s32(vdupq_n_s32(-1), shift));
    const int32x4_t mask = vsubq_s32(vaddq_s32(half, half), vdupq_n_s32(1));
    const mve_pred16_t tie = vcmpeqq_m_s32(vandq_s32(hi2, mask), half, exact);
    up = vpselq_s32(vandq_s32(up, vdupq_n_s32(-2)), up, tie);
  }
  return up;
}

// requantize_mve's steps as inline-assembly text, for the kernels that keep their vectors in
// registers through the requantization (mat_mult_s8_mve.cc, depthwise_conv2d_s8_mve.cc).
// Operands are strings: a register ("q2") or an asm operand ("%q[mult]", "%[one]").
//   EMBER_MVE_LOW2(T, R, M)           T = (R * M) << 1: zero in the lanes whose rounding may be
//                                     a tie (lo above); the caller compares it with zero into P0.
//   EMBER_MVE_HALF_MASK(H, K, S, ONE) per lane H = 2^(k-1), K = 2^k - 1 for k = -S, ONE a general
//                                     register holding 1. S is read first (H may be S); K != H.
//   EMBER_MVE_TIE_LANES(R, T, K, H)   with R = VQDMULH(acc, m) (hi2) and P0 the lanes LOW2 found
//                                     zero: P0 &= (R & K) == H, the ties. T is scratch (may be K).
//   EMBER_MVE_SHIFT_EVEN(R, S)        R = VRSHL(R, S), then the tie lanes of P0 rounded to even.
#define EMBER_MVE_LOW2(T, R, M)  \
  "vmul.i32 " T ", " R ", " M "\n" \
  "vshl.i32 " T ", " T ", #1\n"
#define EMBER_MVE_HALF_MASK(H, K, S, ONE) \
  "vmvn " K ", " S "\n"                     \
  "vmov.i32 " H ", #1\n"                    \
  "vshl.s32 " H ", " H ", " K "\n"          \
  "vadd.i32 " K ", " H ", " H "\n"          \
  "vsub.i32 " K ", " K ", " ONE "\n"
#define EMBER_MVE_TIE_LANES(R, T, K, H) \
  "vand " T ", " R ", " K "\n"            \
  "vpst\n"                                \
  "vcmpt.i32 eq, " T ", " H "\n"
#define EMBER_MVE_SHIFT_EVEN(R, S)  \
  "vrshl.s32 " R ", " R ", " S "\n"   \
  "vpst\n"                            \
  "vbict.i32 " R ", #1\n"

/// Four accumulators whose shifts are all >= 0 (per lane). The scalar requantize_s8's
/// shift >= 0 case: a = acc * 2^shift saturated (VQSHL; a saturated lane is beyond what the
/// clamp keeps, with its sign), then VQRDMULH = floor((2 * a * m + 2^31) / 2^32) rounds
/// a * m / 2^31 half up; a tie is lo31 == 2^30, i.e. (a * m) << 1 == INT32_MIN, and half to
/// even clears the low bit. The tie test is one predicate branch, as in requantize_mve.
inline int32x4_t requantize_mve_left(int32x4_t acc, int32x4_t multiplier, int32x4_t shift) {
  const int32x4_t a = vqshlq_s32(acc, shift);
  const int32x4_t r = vqrdmulhq_s32(a, multiplier);
  const mve_pred16_t tie = vcmpeqq_s32(vshlq_n_s32(vmulq_s32(a, multiplier), 1), vdupq_n_s32(INT32_MIN));
  return tie != 0 ? vbicq_m_n_s32(r, 1, tie) : r;
}

/// Any per-lane shift in [-31, 30]: the two cases of requantize_s8 (primitives_scalar.h) at
/// once. VQRSHL by the shift rounds hi2 right (shift < 0) or shifts it left saturating
/// (shift >= 0); VRSHL of lo31 by shift - 31 adds the rounded fraction (it is 0 for shift < 0:
/// a rounding shift of a value below 2^31 by 32 or more). The tie test reads the bits of P
/// below 2^N, N = 31 - shift, shifted to the top: from lo31 (shift >= 0) or, when lo31 is 0,
/// from hi2. Saturation only moves values the final clamp moves anyway.
inline int32x4_t requantize_mve_any(int32x4_t acc, int32x4_t multiplier, int32x4_t shift) {
  const int32x4_t hi2 = vqdmulhq_s32(acc, multiplier);
  const int32x4_t lo31 = vandq_s32(vmulq_s32(acc, multiplier), vdupq_n_s32(INT32_MAX));
  const int32x4_t r = vqaddq_s32(vqrshlq_s32(hi2, shift), vrshlq_s32(lo31, vsubq_s32(shift, vdupq_n_s32(31))));
  const mve_pred16_t left = vcmpgeq_s32(shift, vdupq_n_s32(0));
  const int32x4_t probe = vpselq_s32(vshlq_s32(lo31, vaddq_s32(shift, vdupq_n_s32(1))),
                                     vshlq_s32(hi2, vaddq_s32(shift, vdupq_n_s32(32))), left);
  const mve_pred16_t tie = vcmpeqq_s32(probe, vdupq_n_s32(INT32_MIN)) &
                           (left | vcmpeqq_s32(lo31, vdupq_n_s32(0)));
  return vpselq_s32(vandq_s32(r, vdupq_n_s32(-2)), r, tie);
}

/// + zero point (saturating: requantize_mve_any may return INT32_MAX), clamp to
/// [act_min, act_max].
inline int32x4_t offset_clamp_mve(int32x4_t v, int32_t zp, int32_t act_min, int32_t act_max) {
  return vminq_s32(vmaxq_s32(vqaddq_n_s32(v, zp), vdupq_n_s32(act_min)), vdupq_n_s32(act_max));
}

/// One multiplier and shift for every lane (the shift >= 0 form when kLeft, chosen once per op
/// by the caller), then the zero point and the clamp: the elementwise kernels' output step.
template <bool kLeft>
inline int32x4_t requantize_clamp_mve(int32x4_t acc, int32_t multiplier, int32_t shift, int32_t zp, int32_t act_min,
                                      int32_t act_max) {
  const int32x4_t r = kLeft ? requantize_mve_left(acc, vdupq_n_s32(multiplier), vdupq_n_s32(shift))
                            : requantize_mve(acc, multiplier, shift);
  return offset_clamp_mve(r, zp, act_min, act_max);
}

}  // namespace ember::kernels::arm
