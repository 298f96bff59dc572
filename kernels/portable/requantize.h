//===- requantize.h - Fixed-point requantization primitives -----*- C++ -*-===//
//
// The integer arithmetic every int8 kernel uses to rescale an int32 accumulator into the output
// scale: TFLite reference / CMSIS-NN semantics, bit for bit, so results can be checked against
// both. Inline and freestanding; the optimized tiers re-implement these exact functions.

#pragma once

#include <stdint.h>

namespace ember::kernels {

/// High 32 bits of 2*a*b, rounded to nearest (ties away from zero on the doubled product as in
/// gemmlowp). Saturates the single overflow case a == b == INT32_MIN to INT32_MAX.
inline int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  // C++ division truncates toward zero, which together with the nudge is gemmlowp's rounding.
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

/// x / 2^exponent rounded to nearest, ties away from zero. exponent in [0, 31].
inline int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  // Arithmetic right shift of a negative value: implementation-defined before C++20, arithmetic
  // on every compiler Ember supports (GCC, Clang, armclang).
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/// TFLite's MultiplyByQuantizedMultiplier: x * multiplier * 2^shift / 2^31 with the rounding
/// above. multiplier in [2^30, 2^31) (or 0), shift in [-31, 30]; shift > 0 shifts left.
/// The left shift wraps modulo 2^32 like the 32-bit hardware shift (TFLite leaves it undefined);
/// the compiler picks shifts that keep it in range.
inline int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  const int32_t shifted =
      static_cast<int32_t>(static_cast<uint32_t>(x) << static_cast<uint32_t>(left_shift));
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, multiplier),
                                right_shift);
}

/// Clamps `v` to [lo, hi].
inline int32_t clamp_i32(int32_t v, int32_t lo, int32_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/// The full per-element requantization of the numeric contract:
/// clamp(mbqm(acc, multiplier, shift) + output_zp, act_min, act_max).
inline int8_t requantize_to_s8(int32_t acc, int32_t multiplier, int shift, int32_t output_zp,
                               int32_t act_min, int32_t act_max) {
  const int32_t v = multiply_by_quantized_multiplier(acc, multiplier, shift) + output_zp;
  return static_cast<int8_t>(clamp_i32(v, act_min, act_max));
}

/// a / b rounded half away from zero, for b > 0 (TFLite's average-pool division).
inline int32_t rounding_divide_half_away(int32_t a, int32_t b) {
  return a >= 0 ? (a + b / 2) / b : (a - b / 2) / b;
}

/// Accumulates in wrapping 32-bit arithmetic: overflow is defined (modulo 2^32, as on the
/// hardware) and the result does not depend on summation order, so every tier agrees.
inline int32_t wrapping_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

}  // namespace ember::kernels
