//===- add_s8_scalar.cc - add_s8 runs in plain Thumb-2 --------------------===//
//
// Also the DSP tier's kernel (the per-element work is 32x32-bit multiplies, which SIMD32 does
// not help). The per-op constants are hoisted, an operand that repeats is rescaled once, and
// the rescaling and requantization use the 32-bit forms of primitives_scalar.h (one SMULL each)
// instead of the portable 64-bit divisions.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include "kernels/arm/add_s8.h"
#include "kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {

void add_s8_run(const AddParamsS8& p, const int8_t* a, int32_t a_step, const int8_t* b, int32_t b_step,
                int8_t* out, int32_t n) {
  if (n <= 0) return;  // a[0] and b[0] are read below
  const int32_t ls = p.left_shift;
  const int32_t am = p.a_multiplier, as = p.a_shift, bm = p.b_multiplier, bs = p.b_shift;
  const int32_t azp = p.a_zp, bzp = p.b_zp;
  const int32_t om = p.output_multiplier, os = p.output_shift, ozp = p.output_zp;
  const int32_t lo = p.act_min, hi = p.act_max;
  const int32_t sa0 = scale_input_s32((a[0] - azp) * (1 << ls), am, as);
  const int32_t sb0 = scale_input_s32((b[0] - bzp) * (1 << ls), bm, bs);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t sa = a_step != 0 ? scale_input_s32((a[i] - azp) * (1 << ls), am, as) : sa0;
    const int32_t sb = b_step != 0 ? scale_input_s32((b[i] - bzp) * (1 << ls), bm, bs) : sb0;
    out[i] = requantize_s8(sa + sb, om, os, ozp, lo, hi);
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
