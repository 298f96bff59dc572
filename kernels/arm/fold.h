//===- fold.h - The input zero point folded into the bias -------*- C++ -*-===//
//
// The optimized conv and linear kernels multiply raw int8 activations: the portable
// accumulator bias + sum (x - input_zp) * w equals folded + sum x * w modulo 2^32 with
// folded = bias - input_zp * sum w (CMSIS-NN's "kernel sums"). The compiler's pack_weights pass
// stores the folded bias as an extra constant operand; each optimized kernel's check recomputes
// it here and rejects a program whose folded bias differs, so an accepted program means the
// same on every tier. Host-callable and freestanding.

#pragma once

#include <stddef.h>
#include <stdint.h>

namespace ember::kernels::arm {

/// Folded bias of output channel o for filters with contiguous rows ([O, K]: OHWI conv filters,
/// linear weights). bias may be null (zero).
inline int32_t folded_bias_rows(const int8_t* filter, int32_t k, const int32_t* bias, int32_t input_zp,
                                int32_t o) {
  const int8_t* w = filter + static_cast<size_t>(o) * k;
  uint32_t sum = 0;
  for (int32_t i = 0; i < k; ++i) sum += static_cast<uint32_t>(static_cast<int32_t>(w[i]));
  const uint32_t b = bias != nullptr ? static_cast<uint32_t>(bias[o]) : 0u;
  return static_cast<int32_t>(b - static_cast<uint32_t>(input_zp) * sum);
}

/// Folded bias of output channel o for a depthwise filter [1, KH, KW, O] (taps = KH * KW).
inline int32_t folded_bias_depthwise(const int8_t* filter, int32_t taps, int32_t out_c,
                                     const int32_t* bias, int32_t input_zp, int32_t o) {
  uint32_t sum = 0;
  for (int32_t t = 0; t < taps; ++t)
    sum += static_cast<uint32_t>(static_cast<int32_t>(filter[static_cast<size_t>(t) * out_c + o]));
  const uint32_t b = bias != nullptr ? static_cast<uint32_t>(bias[o]) : 0u;
  return static_cast<int32_t>(b - static_cast<uint32_t>(input_zp) * sum);
}

}  // namespace ember::kernels::arm
