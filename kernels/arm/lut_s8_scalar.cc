//===- lut_s8_scalar.cc - lut_s8 runs in plain Thumb-2 --------------------===//
//
// Also the DSP tier's kernel. Four elements per step: one word load, each byte used as a
// signed index into the table's middle (LDRB with a register offset after SXTB), and one word
// store, instead of a byte load and store per element.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include <string.h>

#include "ember/kernels/arm/lut_s8.h"

namespace ember::kernels::arm {

void lut_s8_run(const int8_t* table, const int8_t* in, int8_t* out, int32_t n) {
  const uint8_t* mid = reinterpret_cast<const uint8_t*>(table) + 128;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t w;
    memcpy(&w, in + i, 4);  // unaligned word accesses are legal on v7-M and later
    const uint32_t r = mid[static_cast<int8_t>(w)] | uint32_t{mid[static_cast<int8_t>(w >> 8)]} << 8 |
                       uint32_t{mid[static_cast<int8_t>(w >> 16)]} << 16 |
                       uint32_t{mid[static_cast<int8_t>(w >> 24)]} << 24;
    memcpy(out + i, &r, 4);
  }
  for (; i < n; ++i) out[i] = static_cast<int8_t>(mid[in[i]]);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
