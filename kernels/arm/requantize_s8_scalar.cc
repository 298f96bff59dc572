//===- requantize_s8_scalar.cc - requantize_s8 runs in plain Thumb-2 ------===//
//
// Also the DSP tier's kernel (one 32x32-bit product per element, which SIMD32 does not help):
// the constants hoisted and the 32-bit requantization of primitives_scalar.h (one SMULL)
// instead of the portable 64-bit division.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include "ember/kernels/arm/primitives_scalar.h"
#include "ember/kernels/arm/requantize_s8.h"
#include "ember/kernels/portable/op_check.h"

namespace ember::kernels::arm {

void requantize_s8_run(const RequantizeParamsS8& p, const int8_t* in, int8_t* out, int32_t n) {
  const int32_t zp = p.input_zp, m = p.multiplier, s = p.shift, ozp = p.output_zp;
  const int32_t lo = p.act_min, hi = p.act_max;
  for (int32_t i = 0; i < n; ++i) out[i] = requantize_s8(in[i] - zp, m, s, ozp, lo, hi);
}

bool valid_requantization(const int32_t* multiplier, const int32_t* shift, int32_t n) {
  return kernels::valid_requantization(multiplier, shift, n);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
