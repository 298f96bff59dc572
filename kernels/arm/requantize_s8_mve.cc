//===- requantize_s8_mve.cc - requantize_s8 runs with Helium --------------===//
//
// Four elements per step in int32 lanes: VLDRB.S32, VSUB of the input zero point, then the
// requantization of primitives_mve.h in its shift <= -1 or shift >= 0 form, chosen once per
// op; the tail is one predicated step. Cortex-M55/M85.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include "ember/kernels/arm/primitives_mve.h"
#include "ember/kernels/arm/requantize_s8.h"

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
// [-31, 30]) exactly when s + 31 <= 61 unsigned. A tail-predicated loop (DLSTP.32, in asm:
// GCC emits no DLSTP from the intrinsics): the tail's inactive lanes keep the maxima so far.
bool valid_requantization(const int32_t* multiplier, const int32_t* shift, int32_t n) {
  if (n <= 0) return true;
  uint32x4_t worst_m = vdupq_n_u32(0), worst_s = vdupq_n_u32(0);
  const uint32x4_t bit30 = vdupq_n_u32(1u << 30);
  __asm__(
      "dlstp.32 lr, %[n]\n"
      "1:\n"
      "vldrw.u32 q0, [%[m]], #16\n"
      "veor q0, q0, %q[bit30]\n"
      "vmax.u32 %q[wm], %q[wm], q0\n"
      "vldrw.u32 q0, [%[s]], #16\n"
      "vadd.i32 q0, q0, %[k31]\n"
      "vmax.u32 %q[ws], %q[ws], q0\n"
      "letp lr, 1b\n"
      : [wm] "+w"(worst_m), [ws] "+w"(worst_s), [m] "+r"(multiplier), [s] "+r"(shift)
      : [n] "r"(n), [bit30] "w"(bit30), [k31] "r"(31)
      : "q0", "lr", "memory");
  return vmaxvq_u32(0, worst_m) <= (1u << 30) && vmaxvq_u32(0, worst_s) <= 61u;
}

void requantize_s8_run(const RequantizeParamsS8& p, const int8_t* in, int8_t* out, int32_t n) {
  if (p.shift >= 0) run<true>(p, in, out, n);
  else run<false>(p, in, out, n);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
