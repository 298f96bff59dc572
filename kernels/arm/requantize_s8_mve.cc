//===- requantize_s8_mve.cc - requantize_s8 runs with Helium --------------===//
//
// Four elements per step in int32 lanes: VLDRB.S32, VSUB of the input zero point, then the
// requantization of primitives_mve.h in its shift <= -1 or shift >= 0 form, chosen once per
// op; the tail is one predicated step. Cortex-M55/M85.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include "kernels/arm/primitives_mve.h"
#include "kernels/arm/requantize_s8.h"

namespace ember::kernels::arm {
namespace {

template <bool kLeft>
inline int32x4_t rescale(const RequantizeParamsS8& p, int32x4_t x) {
  return requantize_clamp_mve<kLeft>(x, p.multiplier, p.shift, p.output_zp, p.act_min, p.act_max);
}

// `p` by value: `out` is int8_t, which may alias any object, so fields read through a reference
// would be reloaded after every store.
template <bool kLeft>
void run(const RequantizeParamsS8 p, const int8_t* in, int8_t* out, int32_t n) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) vstrbq_s32(out + i, rescale<kLeft>(p, vsubq_n_s32(vldrbq_s32(in + i), p.input_zp)));
  if (i < n) {
    const mve_pred16_t t = vctp32q(static_cast<uint32_t>(n - i));
    vstrbq_p_s32(out + i, rescale<kLeft>(p, vsubq_n_s32(vldrbq_z_s32(in + i, t), p.input_zp)), t);
  }
}

}  // namespace

// Branch-free lane-wise maxima of two rewritten values, compared once at the end: a multiplier
// m is valid (0 or in [2^30, 2^31)) exactly when m ^ 2^30 <= 2^30 unsigned, a shift s (in
// [-31, 30]) exactly when s + 31 <= 61 unsigned. The tail's inactive lanes load as 0, a valid
// multiplier and shift.
bool valid_requantization(const int32_t* multiplier, const int32_t* shift, int32_t n) {
  uint32x4_t worst_m = vdupq_n_u32(0), worst_s = vdupq_n_u32(0);
  for (int32_t i = 0; i < n; i += 4) {
    const mve_pred16_t t = vctp32q(static_cast<uint32_t>(n - i));
    const uint32x4_t m = vldrwq_z_u32(reinterpret_cast<const uint32_t*>(multiplier + i), t);
    const uint32x4_t s = vldrwq_z_u32(reinterpret_cast<const uint32_t*>(shift + i), t);
    worst_m = vmaxq_u32(worst_m, veorq_u32(m, vdupq_n_u32(1u << 30)));
    worst_s = vmaxq_u32(worst_s, vaddq_n_u32(s, 31u));
  }
  return vmaxvq_u32(0, worst_m) <= (1u << 30) && vmaxvq_u32(0, worst_s) <= 61u;
}

void requantize_s8_run(const RequantizeParamsS8& p, const int8_t* in, int8_t* out, int32_t n) {
  if (p.shift >= 0) run<true>(p, in, out, n);
  else run<false>(p, in, out, n);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
