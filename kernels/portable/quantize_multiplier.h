//===- quantize_multiplier.h - Real multiplier to Q31 + shift ---*- C++ -*-===//
//
// Host-side helper (compiler and tests): turns a real rescale factor such as s_in*s_w/s_out into
// the (multiplier, shift) pair consumed by multiply_by_quantized_multiplier(). Same results as
// TFLite's QuantizeMultiplier, so programs can be cross-checked against TFLite. Uses <cmath>;
// not meant for the device build.

#pragma once

#include <stdint.h>

#include <cmath>

namespace ember::kernels {

/// Writes multiplier in [2^30, 2^31) and shift such that real ~= multiplier * 2^(shift - 31).
/// real == 0 (or |real| < 2^-32, flushed) gives multiplier 0, shift 0.
/// Returns false when the result is not usable by the kernels: real negative or not finite, or
/// real >= 2^30 (shift > 30). The outputs are still written (TFLite's values) in that case.
inline bool quantize_multiplier(double real, int32_t* multiplier, int* shift) {
  *multiplier = 0;
  *shift = 0;
  if (!std::isfinite(real)) return false;
  if (real == 0.0) return true;
  const double q = std::frexp(real, shift);  // real = q * 2^shift, |q| in [0.5, 1)
  int64_t q_fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {  // q rounded up to 1.0
    q_fixed /= 2;
    ++*shift;
  }
  // Shifting right by more than 31 would lose every bit; TFLite flushes such tiny reals to 0.
  if (*shift < -31) {
    *shift = 0;
    q_fixed = 0;
  }
  *multiplier = static_cast<int32_t>(q_fixed);
  return real > 0.0 && *shift <= 30;
}

}  // namespace ember::kernels
