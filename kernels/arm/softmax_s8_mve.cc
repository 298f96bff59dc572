//===- softmax_s8_mve.cc - softmax_s8 rows with Helium --------------------===//
//
// The row's maximum with VMAXV over 16 bytes per step; then four values per step: VLDRB.S32,
// m - x as a table index, one VLDRW gather of the table, and the exact 64-bit sum by VADDLVA
// (with VMAXV.U32 of the values, to know the row takes the fast path). Each output is
// floor(n / sum) for n = e * 256 + sum / 2 < 2^32 by a reciprocal, r = floor((2^32 - 1) / sum)
// (one UDIV per row): q = floor(n * r / 2^32) (VMULH.U32) is floor(n / sum) or one less, since
// n * r / 2^32 = n / sum - n * (1 + (2^32 - 1) mod sum) / (sum * 2^32) and that last term is
// below 1; one compare of n - q * sum with the sum adds the 1 where it is missing. All loops
// are tail-predicated (inactive lanes load nothing and store nothing). Cortex-M55/M85.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include <arm_mve.h>

#include "ember/kernels/arm/softmax_s8.h"
#include "ember/kernels/portable/softmax_s8.h"

namespace ember::kernels::arm {

void softmax_s8_row(const int8_t* in, int32_t depth, const int32_t* table, int8_t* out) {
  int8_t m = -128;
  for (int32_t i = 0; i < depth; i += 16) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(depth - i));
    m = vmaxvq_p_s8(m, vldrbq_z_s8(in + i, p), p);
  }
  const uint32_t* values = reinterpret_cast<const uint32_t*>(table);
  const int32x4_t top = vdupq_n_s32(m);
  // The table index of four values: m - x in [0, 255] in the active lanes.
  const auto lookup = [&](int32_t i, mve_pred16_t p) {
    const uint32x4_t index = vreinterpretq_u32_s32(vsubq_s32(top, vldrbq_z_s32(in + i, p)));
    return vldrwq_gather_shifted_offset_z_u32(values, index, p);
  };
  uint64_t sum = 0;
  uint32_t largest = 0;
  for (int32_t i = 0; i < depth; i += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(depth - i));
    const uint32x4_t e = lookup(i, p);
    sum = vaddlvaq_p_u32(sum, e, p);
    largest = vmaxvq_p_u32(largest, e, p);
  }
  if (largest > (1u << 23) || sum == 0 || sum > UINT32_MAX) {
    kernels::softmax_s8(1, depth, in, table, out);
    return;
  }
  const uint32_t den = static_cast<uint32_t>(sum);
  const uint32x4_t half = vdupq_n_u32(den / 2), recip = vdupq_n_u32(UINT32_MAX / den);
  const int32x4_t high = vdupq_n_s32(127);
  for (int32_t i = 0; i < depth; i += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(depth - i));
    const uint32x4_t n = vmlaq_n_u32(half, lookup(i, p), 256u);  // e * 256 + den / 2 < 2^32
    uint32x4_t q = vmulhq_u32(n, recip);
    q = vaddq_m_n_u32(q, q, 1u, vcmpcsq_n_u32(vsubq_u32(n, vmulq_n_u32(q, den)), den));
    const int32x4_t v = vminq_s32(vsubq_n_s32(vreinterpretq_s32_u32(q), 128), high);  // q <= 256
    vstrbq_p_s32(out + i, v, p);
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
