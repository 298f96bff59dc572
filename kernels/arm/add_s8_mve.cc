//===- add_s8_mve.cc - add_s8 runs with Helium ----------------------------===//
//
// Four elements per step in int32 lanes (VLDRB.S32). Per operand: VMLAS gives
// q * 2^left_shift - zp * 2^left_shift, VQRDMULH is gemmlowp's rounding doubling high multiply
// exactly (both round half up and cannot saturate with a multiplier >= 0), and the divide by
// 2^e rounding half away from zero is VRSHL after subtracting 1 from negative values
// (scale_input_s32 in primitives_scalar.h has the proof). The sum is requantized with the
// shift <= -1 or shift >= 0 form of primitives_mve.h, chosen once per op. A repeated operand
// is rescaled once; the tail is one predicated step. Cortex-M55/M85.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include "kernels/arm/add_s8.h"
#include "kernels/arm/primitives_mve.h"

namespace ember::kernels::arm {
namespace {

struct Scale {
  int32x4_t pow2;   // 2^left_shift
  int32_t offset;   // -zp * 2^left_shift
  int32_t multiplier, shift;
};

inline int32x4_t scale(const Scale& s, int32x4_t q) {
  const int32x4_t h = vqrdmulhq_n_s32(vmlasq_n_s32(q, s.pow2, s.offset), s.multiplier);
  if (s.shift == 0) return h;
  return vrshlq_n_s32(vaddq_s32(h, vshrq_n_s32(h, 31)), s.shift);
}

template <bool kLeft>
inline int32x4_t output(const AddParamsS8& p, int32x4_t sum) {
  const int32x4_t r = kLeft ? requantize_mve_left(sum, vdupq_n_s32(p.output_multiplier), vdupq_n_s32(p.output_shift))
                            : requantize_mve(sum, p.output_multiplier, p.output_shift);
  return offset_clamp_mve(r, p.output_zp, p.act_min, p.act_max);
}

template <bool kStepA, bool kStepB, bool kLeft>
void run(const AddParamsS8& p, const Scale& sa, const Scale& sb, const int8_t* a, const int8_t* b, int8_t* out,
         int32_t n) {
  // A repeated operand: its one element, rescaled once.
  const int32x4_t fa = kStepA ? vdupq_n_s32(0) : vdupq_n_s32(scale_input_s32((a[0] - p.a_zp) * (1 << p.left_shift),
                                                                          p.a_multiplier, p.a_shift));
  const int32x4_t fb = kStepB ? vdupq_n_s32(0) : vdupq_n_s32(scale_input_s32((b[0] - p.b_zp) * (1 << p.left_shift),
                                                                          p.b_multiplier, p.b_shift));
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int32x4_t va = kStepA ? scale(sa, vldrbq_s32(a + i)) : fa;
    const int32x4_t vb = kStepB ? scale(sb, vldrbq_s32(b + i)) : fb;
    vstrbq_s32(out + i, output<kLeft>(p, vaddq_s32(va, vb)));
  }
  if (i < n) {
    const mve_pred16_t t = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t va = kStepA ? scale(sa, vldrbq_z_s32(a + i, t)) : fa;
    const int32x4_t vb = kStepB ? scale(sb, vldrbq_z_s32(b + i, t)) : fb;
    vstrbq_p_s32(out + i, output<kLeft>(p, vaddq_s32(va, vb)), t);
  }
}

template <bool kLeft>
void run_steps(const AddParamsS8& p, const Scale& sa, const Scale& sb, const int8_t* a, int32_t a_step,
               const int8_t* b, int32_t b_step, int8_t* out, int32_t n) {
  if (a_step != 0 && b_step != 0) run<true, true, kLeft>(p, sa, sb, a, b, out, n);
  else if (a_step != 0) run<true, false, kLeft>(p, sa, sb, a, b, out, n);
  else if (b_step != 0) run<false, true, kLeft>(p, sa, sb, a, b, out, n);
  else run<false, false, kLeft>(p, sa, sb, a, b, out, n);
}

}  // namespace

void add_s8_run(const AddParamsS8& p, const int8_t* a, int32_t a_step, const int8_t* b, int32_t b_step,
                int8_t* out, int32_t n) {
  if (n <= 0) return;  // a repeated operand's a[0] or b[0] is read
  const int32_t pow2 = int32_t{1} << p.left_shift;
  const Scale sa{vdupq_n_s32(pow2), -p.a_zp * pow2, p.a_multiplier, p.a_shift};
  const Scale sb{vdupq_n_s32(pow2), -p.b_zp * pow2, p.b_multiplier, p.b_shift};
  if (p.output_shift >= 0) run_steps<true>(p, sa, sb, a, a_step, b, b_step, out, n);
  else run_steps<false>(p, sa, sb, a, a_step, b, b_step, out, n);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
