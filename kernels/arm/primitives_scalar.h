//===- primitives_scalar.h - Shared inner primitives, plain C++ -*- C++ -*-===//
//
// Requantization and small helpers every tier's kernels use, written for Thumb-2 (and any
// host). The numerics are the portable ones (kernels/portable/requantize.h) bit for bit:
// requantize_s8 is an exact rewrite of requantize_to_s8 in 32-bit pieces.
// Plain C++: the DSP and MVE tiers include it for their tails.

#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/portable/requantize.h"

namespace ember::kernels::arm {

/// requantize_to_s8(acc, multiplier, shift, zp, lo, hi), exactly, in 32-bit pieces.
///   shift = -k <= -1: with P = acc * multiplier (|P| < 2^62), hi2 = floor(P / 2^31) (fits
///     int32) and lo31 = P mod 2^31, the value to round is P / 2^(31 + k). Round half up is
///     floor((hi2 + 2^(k-1)) / 2^k), since lo31 / 2^31 < 1 cannot carry across a multiple of
///     2^k; a tie (P mod 2^(31+k) == 2^(30+k)) is lo31 == 0 and hi2 mod 2^k == 2^(k-1). The
///     result is within 2^30 of zero.
///   shift >= 0: the value is a * multiplier / 2^31 with a = acc * 2^shift. When a fits int32,
///     P' = a * multiplier splits the same way and round half up is hi2' + (lo31' >= 2^30), a tie
///     being lo31' == 2^30. When a does not fit, |a| >= 2^31 and the value is at least 2^30 in
///     magnitude (multiplier >= 2^30, or 0 and the value 0): a saturated to INT32_MIN/MAX gives
///     a value of the same sign beyond 2^30 - 1, which the clamp below maps to the same byte.
///     This costs one SMULL and a few ALU instructions instead of 64-bit shifts by 31 - shift.
/// Half to even then clears the low bit of a tie's rounded-up value. The final clamp to
/// [act_min, act_max] makes the portable int32 saturation invisible.
inline int8_t requantize_s8(int32_t acc, int32_t multiplier, int32_t shift, int32_t zp,
                            int32_t act_min, int32_t act_max) {
  int32_t r;
  if (shift < 0) {
    const int64_t p = static_cast<int64_t>(acc) * multiplier;
    const int32_t hi2 = static_cast<int32_t>(p >> 31);
    const uint32_t lo31 = static_cast<uint32_t>(p) & 0x7FFFFFFFu;
    const int k = -shift;
    r = (hi2 >> k) + ((hi2 >> (k - 1)) & 1);
    const uint32_t rem = static_cast<uint32_t>(hi2) & ((uint32_t{1} << k) - 1u);
    if (lo31 == 0 && rem == (uint32_t{1} << (k - 1))) r &= ~int32_t{1};
  } else {
    int32_t a = static_cast<int32_t>(static_cast<uint32_t>(acc) << shift);
    if ((a >> shift) != acc) a = acc < 0 ? INT32_MIN : INT32_MAX;
    const int64_t p = static_cast<int64_t>(a) * multiplier;
    const uint32_t lo = static_cast<uint32_t>(p);
    r = static_cast<int32_t>(p >> 31) + static_cast<int32_t>((lo >> 30) & 1u);
    if ((lo & 0x7FFFFFFFu) == 0x40000000u) r &= ~int32_t{1};
  }
  const int64_t v = static_cast<int64_t>(r) + zp;
  return static_cast<int8_t>(v < act_min ? act_min : (v > act_max ? act_max : v));
}

/// multiply_by_quantized_multiplier(x, multiplier, shift) for multiplier >= 0 and shift in
/// [-31, 0] (add's input rescaling), exactly. gemmlowp's saturating rounding doubling high
/// multiply (nudge, then truncate toward zero) equals floor((x * m + 2^30) / 2^31) on both
/// signs, and cannot saturate with m >= 0; the rounding divide by 2^e rounds half away from
/// zero: floor((h + 2^(e-1)) / 2^e), less one on negative ties (h - 1 for negative h).
inline int32_t scale_input_s32(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t h = static_cast<int32_t>((static_cast<int64_t>(x) * multiplier + (int64_t{1} << 30)) >> 31);
  if (shift == 0) return h;
  const int e = -shift;
  const int32_t hf = h + (h >> 31);  // |h| <= 2^30: no overflow
  return static_cast<int32_t>((static_cast<int64_t>(hf) + (int64_t{1} << (e - 1))) >> e);
}

/// Four bytes from any address (unaligned loads are legal on v7-M and later; memcpy lets the
/// compiler emit one LDR).
inline uint32_t read_u32(const int8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/// Fills n bytes with value (im2col padding).
inline void fill_s8(int8_t* dst, int8_t value, int32_t n) {
  for (int32_t i = 0; i < n; ++i) dst[i] = value;
}

/// Copies n bytes (im2col rows; n is a channel count, usually small).
inline void copy_s8(int8_t* dst, const int8_t* src, int32_t n) { memcpy(dst, src, static_cast<size_t>(n)); }

}  // namespace ember::kernels::arm
