//===- softmax_s8_scalar.cc - softmax_s8 rows in plain Thumb-2 ------------===//
//
// Also the DSP tier's kernel. Against the portable row: the sum in 32 bits (a row of at most
// 511 values in [0, 2^23] cannot pass 2^32; the largest value is tracked to know the row is
// one), and per output one division and one clamp, without the portable row's per-element
// tests for the 64-bit case.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include "ember/kernels/arm/softmax_s8.h"
#include "ember/kernels/portable/softmax_s8.h"

namespace ember::kernels::arm {

void softmax_s8_row(const int8_t* in, int32_t depth, const int32_t* table, int8_t* out) {
  constexpr int32_t kMaxNarrowDepth = 511;  // 511 * 2^23 < 2^32
  int32_t m = -128;
  for (int32_t i = 0; i < depth; ++i) m = in[i] > m ? in[i] : m;
  uint32_t sum = 0, largest = 0;
  for (int32_t i = 0; i < depth; ++i) {
    const uint32_t e = static_cast<uint32_t>(table[m - in[i]]);
    sum += e;
    largest = e > largest ? e : largest;
  }
  if (depth > kMaxNarrowDepth || largest > (1u << 23) || sum == 0) {
    kernels::softmax_s8(1, depth, in, table, out);
    return;
  }
  const uint32_t half = sum / 2;
  for (int32_t i = 0; i < depth; ++i) {
    const uint32_t e = static_cast<uint32_t>(table[m - in[i]]);
    const int32_t q = static_cast<int32_t>((e * 256u + half) / sum) - 128;  // in [-128, 128]
    out[i] = static_cast<int8_t>(q > 127 ? 127 : q);
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
