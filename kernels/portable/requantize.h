//===- requantize.h - Fixed-point requantization primitives -----*- C++ -*-===//
//
// The integer arithmetic every int8 kernel uses to rescale an int32 accumulator into the output
// scale. Ember rounds once: round_half_even(acc * multiplier * 2^(shift - 31)) computed exactly
// in 64 bits (requantize_to_s8). TFLite and CMSIS-NN round twice (a rounding doubling high
// multiply, then a rounding shift), which disagrees with the exact result, and so with
// PyTorch's quantized reference, on about one output in 300 when the shift is small; through a
// deep network those ones compound. Their primitives stay here for add's input rescaling, where
// 20 bits of headroom make the first rounding negligible. Inline and freestanding; the
// optimized tiers re-implement these exact functions.

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

/// x / 2^n rounded to nearest, ties to even (torch.round), for n in [1, 62].
inline int64_t rounding_shift_half_even(int64_t x, int n) {
  const int64_t half = int64_t{1} << (n - 1);
  const int64_t odd = (x >> n) & 1;  // arithmetic shift: floor(x / 2^n)
  return (x + half - 1 + odd) >> n;
}

/// acc * multiplier * 2^(shift - 31), rounded once (half to even) and saturated to int32.
/// multiplier in [2^30, 2^31) (or 0), shift in [-31, 30].
inline int32_t multiply_by_multiplier_exact(int32_t acc, int32_t multiplier, int shift) {
  const int64_t product = static_cast<int64_t>(acc) * multiplier;  // |product| < 2^62
  const int64_t v = rounding_shift_half_even(product, 31 - shift);
  return v > INT32_MAX ? INT32_MAX : (v < INT32_MIN ? INT32_MIN : static_cast<int32_t>(v));
}

/// The full per-element requantization of the numeric contract:
/// clamp(multiply_by_multiplier_exact(acc, multiplier, shift) + output_zp, act_min, act_max).
inline int8_t requantize_to_s8(int32_t acc, int32_t multiplier, int shift, int32_t output_zp,
                               int32_t act_min, int32_t act_max) {
  const int64_t v = static_cast<int64_t>(multiply_by_multiplier_exact(acc, multiplier, shift)) + output_zp;
  return static_cast<int8_t>(v < act_min ? act_min : (v > act_max ? act_max : v));
}

/// a / b rounded to nearest, ties to even (torch.round of the mean), for b > 0.
inline int32_t rounding_divide_half_even(int32_t a, int32_t b) {
  int32_t q = a / b, r = a % b;  // truncating
  if (r < 0) r += b, q -= 1;     // now a = q * b + r with 0 <= r < b
  const int32_t twice = 2 * r;
  return twice > b || (twice == b && (q & 1)) ? q + 1 : q;
}

/// Accumulates in wrapping 32-bit arithmetic: overflow is defined (modulo 2^32, as on the
/// hardware) and the result does not depend on summation order, so every tier agrees.
inline int32_t wrapping_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

}  // namespace ember::kernels
