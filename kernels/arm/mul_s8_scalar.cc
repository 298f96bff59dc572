//===- mul_s8_scalar.cc - mul_s8 runs in plain Thumb-2 --------------------===//
//
// Also the DSP tier's kernel: the per-element work is one 16x16-bit product and a 32x32-bit
// requantization, which SIMD32 does not help. The per-op constants are hoisted, a repeated
// operand is corrected once, and the requantization is the 32-bit form of primitives_scalar.h
// (one SMULL) instead of the portable 64-bit division.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include "ember/kernels/arm/mul_s8.h"
#include "ember/kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {

void mul_s8_run(const MulParamsS8& p, const int8_t* a, int32_t a_step, const int8_t* b, int32_t b_step,
                int8_t* out, int32_t n) {
  if (n <= 0) return;  // a[0] and b[0] are read below
  const int32_t azp = p.a_zp, bzp = p.b_zp;
  const int32_t om = p.output_multiplier, os = p.output_shift, ozp = p.output_zp;
  const int32_t lo = p.act_min, hi = p.act_max;
  const int32_t a0 = a[0] - azp, b0 = b[0] - bzp;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t x = a_step != 0 ? a[i] - azp : a0;
    const int32_t y = b_step != 0 ? b[i] - bzp : b0;
    out[i] = requantize_s8(x * y, om, os, ozp, lo, hi);  // |x * y| <= 255 * 255
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
