//===- mul_s8_mve.cc - mul_s8 runs with Helium ----------------------------===//
//
// Four elements per step in int32 lanes: VLDRB.S32 of each operand, VSUB of its zero point,
// VMUL (the product fits 17 bits), then the output requantization of primitives_mve.h in its
// shift <= -1 or shift >= 0 form, chosen once per op. A repeated operand is one corrected
// value; the tail is one predicated step. Cortex-M55/M85.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include "ember/kernels/arm/mul_s8.h"
#include "ember/kernels/arm/primitives_mve.h"

namespace ember::kernels::arm {
namespace {

template <bool kLeft>
inline int32x4_t output(const MulParamsS8& p, int32x4_t prod) {
  return requantize_clamp_mve<kLeft>(prod, p.output_multiplier, p.output_shift, p.output_zp, p.act_min, p.act_max);
}

// `p` by value: `out` is int8_t, which may alias any object, so fields read through a reference
// would be reloaded after every store (a third of the loop).
template <bool kStepA, bool kStepB, bool kLeft>
void run(const MulParamsS8 p, const int8_t* a, const int8_t* b, int8_t* out, int32_t n) {
  const int32x4_t fa = vdupq_n_s32(a[0] - p.a_zp), fb = vdupq_n_s32(b[0] - p.b_zp);
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int32x4_t x = kStepA ? vsubq_n_s32(vldrbq_s32(a + i), p.a_zp) : fa;
    const int32x4_t y = kStepB ? vsubq_n_s32(vldrbq_s32(b + i), p.b_zp) : fb;
    vstrbq_s32(out + i, output<kLeft>(p, vmulq_s32(x, y)));
  }
  if (i < n) {
    const mve_pred16_t t = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t x = kStepA ? vsubq_n_s32(vldrbq_z_s32(a + i, t), p.a_zp) : fa;
    const int32x4_t y = kStepB ? vsubq_n_s32(vldrbq_z_s32(b + i, t), p.b_zp) : fb;
    vstrbq_p_s32(out + i, output<kLeft>(p, vmulq_s32(x, y)), t);
  }
}

template <bool kLeft>
void run_steps(const MulParamsS8& p, const int8_t* a, int32_t a_step, const int8_t* b, int32_t b_step, int8_t* out,
               int32_t n) {
  if (a_step != 0 && b_step != 0) run<true, true, kLeft>(p, a, b, out, n);
  else if (a_step != 0) run<true, false, kLeft>(p, a, b, out, n);
  else if (b_step != 0) run<false, true, kLeft>(p, a, b, out, n);
  else run<false, false, kLeft>(p, a, b, out, n);
}

}  // namespace

void mul_s8_run(const MulParamsS8& p, const int8_t* a, int32_t a_step, const int8_t* b, int32_t b_step,
                int8_t* out, int32_t n) {
  if (n <= 0) return;  // a repeated operand's a[0] or b[0] is read
  if (p.output_shift >= 0) run_steps<true>(p, a, a_step, b, b_step, out, n);
  else run_steps<false>(p, a, a_step, b, b_step, out, n);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
