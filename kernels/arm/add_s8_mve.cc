//===- add_s8_mve.cc - add_s8 runs with Helium ----------------------------===//
//
// Four elements per step in int32 lanes (VLDRB.S32). Per operand: VMLAS gives
// q * 2^left_shift - zp * 2^left_shift, VQRDMULH is gemmlowp's rounding doubling high multiply
// exactly (both round half up and cannot saturate with a multiplier >= 0), and the divide by
// 2^e rounding half away from zero is VRSHL after subtracting 1 from negative values
// (scale_input_s32 in primitives_scalar.h has the proof). The sum is requantized with the
// shift <= -1 or shift >= 0 form of primitives_mve.h, chosen once per op. A repeated operand
// is rescaled once; the tail is one predicated step. With the rescale tables (add_s8.h) each
// operand's four values are one gather load instead. Cortex-M55/M85.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include "ember/kernels/arm/add_s8.h"
#include "ember/kernels/arm/primitives_mve.h"

namespace ember::kernels::arm {
namespace {

struct Scale {
  int32_t pow2;     // 2^left_shift
  int32_t offset;   // -zp * 2^left_shift
  int32_t multiplier, shift;
};

inline int32x4_t scale(const Scale& s, int32x4_t q) {
  const int32x4_t h = vqrdmulhq_n_s32(vmlasq_n_s32(q, vdupq_n_s32(s.pow2), s.offset), s.multiplier);
  if (s.shift == 0) return h;
  return vrshlq_n_s32(vaddq_s32(h, vshrq_n_s32(h, 31)), s.shift);
}

// The output step's constants. Everything the loop reads is a local value: `out` is int8_t, which
// may alias any object, so fields read through a reference would be reloaded after every store.
struct Output {
  int32_t multiplier, shift, zp, act_min, act_max;
};

Output output_of(const AddParamsS8& p) {
  return Output{p.output_multiplier, p.output_shift, p.output_zp, p.act_min, p.act_max};
}

template <bool kLeft>
inline int32x4_t output(const Output& o, int32x4_t sum) {
  const int32x4_t r = kLeft ? requantize_mve_left(sum, vdupq_n_s32(o.multiplier), vdupq_n_s32(o.shift))
                            : requantize_mve(sum, o.multiplier, o.shift);
  return offset_clamp_mve(r, o.zp, o.act_min, o.act_max);
}

template <bool kStepA, bool kStepB, bool kLeft>
void run(const Output o, const Scale sa, const Scale sb, const int8_t* a, const int8_t* b, int8_t* out,
         int32_t n) {
  // A repeated operand: its one element, rescaled once.
  const int32x4_t fa = kStepA ? vdupq_n_s32(0)
                               : vdupq_n_s32(scale_input_s32(a[0] * sa.pow2 + sa.offset, sa.multiplier, sa.shift));
  const int32x4_t fb = kStepB ? vdupq_n_s32(0)
                               : vdupq_n_s32(scale_input_s32(b[0] * sb.pow2 + sb.offset, sb.multiplier, sb.shift));
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int32x4_t va = kStepA ? scale(sa, vldrbq_s32(a + i)) : fa;
    const int32x4_t vb = kStepB ? scale(sb, vldrbq_s32(b + i)) : fb;
    vstrbq_s32(out + i, output<kLeft>(o, vaddq_s32(va, vb)));
  }
  if (i < n) {
    const mve_pred16_t t = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t va = kStepA ? scale(sa, vldrbq_z_s32(a + i, t)) : fa;
    const int32x4_t vb = kStepB ? scale(sb, vldrbq_z_s32(b + i, t)) : fb;
    vstrbq_p_s32(out + i, output<kLeft>(o, vaddq_s32(va, vb)), t);
  }
}

// Four table lookups per operand in one gather each, indexed by the bytes as uint8.
template <bool kLeft>
void run_tables(const Output o, const int32_t* ta, const uint8_t* a, const int32_t* tb, const uint8_t* b,
                int8_t* out, int32_t n) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int32x4_t va = vldrwq_gather_shifted_offset_s32(ta, vldrbq_u32(a + i));
    const int32x4_t vb = vldrwq_gather_shifted_offset_s32(tb, vldrbq_u32(b + i));
    vstrbq_s32(out + i, output<kLeft>(o, vaddq_s32(va, vb)));
  }
  if (i < n) {
    const mve_pred16_t t = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t va = vldrwq_gather_shifted_offset_z_s32(ta, vldrbq_z_u32(a + i, t), t);
    const int32x4_t vb = vldrwq_gather_shifted_offset_z_s32(tb, vldrbq_z_u32(b + i, t), t);
    vstrbq_p_s32(out + i, output<kLeft>(o, vaddq_s32(va, vb)), t);
  }
}

template <bool kLeft>
void run_steps(const Output& o, const Scale& sa, const Scale& sb, const int8_t* a, int32_t a_step,
               const int8_t* b, int32_t b_step, int8_t* out, int32_t n) {
  if (a_step != 0 && b_step != 0) run<true, true, kLeft>(o, sa, sb, a, b, out, n);
  else if (a_step != 0) run<true, false, kLeft>(o, sa, sb, a, b, out, n);
  else if (b_step != 0) run<false, true, kLeft>(o, sa, sb, a, b, out, n);
  else run<false, false, kLeft>(o, sa, sb, a, b, out, n);
}

}  // namespace

void add_s8_run(const AddParamsS8& p, const int8_t* a, int32_t a_step, const int8_t* b, int32_t b_step,
                int8_t* out, int32_t n) {
  if (n <= 0) return;  // a repeated operand's a[0] or b[0] is read
  const int32_t pow2 = int32_t{1} << p.left_shift;
  const Scale sa{pow2, -p.a_zp * pow2, p.a_multiplier, p.a_shift};
  const Scale sb{pow2, -p.b_zp * pow2, p.b_multiplier, p.b_shift};
  const Output o = output_of(p);
  if (p.output_shift >= 0) run_steps<true>(o, sa, sb, a, a_step, b, b_step, out, n);
  else run_steps<false>(o, sa, sb, a, a_step, b, b_step, out, n);
}

void add_s8_run_tables(const AddParamsS8& p, const int32_t* ta, const int8_t* a, const int32_t* tb, const int8_t* b,
                       int8_t* out, int32_t n) {
  const Output o = output_of(p);
  const uint8_t* ua = reinterpret_cast<const uint8_t*>(a);
  const uint8_t* ub = reinterpret_cast<const uint8_t*>(b);
  if (p.output_shift >= 0) run_tables<true>(o, ta, ua, tb, ub, out, n);
  else run_tables<false>(o, ta, ua, tb, ub, out, n);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
