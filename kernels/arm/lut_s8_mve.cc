//===- lut_s8_mve.cc - lut_s8 runs with Helium ----------------------------===//
//
// Sixteen elements per step: VLDRB, VEOR with 0x80 (in + 128 as an unsigned byte offset), one
// VLDRB gather from the table and VSTRB. The tail is one predicated step. Cortex-M55/M85.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include <arm_mve.h>

#include "ember/kernels/arm/lut_s8.h"

namespace ember::kernels::arm {

void lut_s8_run(const int8_t* table, const int8_t* in, int8_t* out, int32_t n) {
  const uint8_t* base = reinterpret_cast<const uint8_t*>(table);
  const uint8_t* src = reinterpret_cast<const uint8_t*>(in);
  uint8_t* dst = reinterpret_cast<uint8_t*>(out);
  const uint8x16_t bias = vdupq_n_u8(0x80);
  int32_t i = 0;
  for (; i + 16 <= n; i += 16)
    vstrbq_u8(dst + i, vldrbq_gather_offset_u8(base, veorq_u8(vldrbq_u8(src + i), bias)));
  if (i < n) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
    vstrbq_p_u8(dst + i, vldrbq_gather_offset_z_u8(base, veorq_u8(vldrbq_z_u8(src + i, p), bias), p), p);
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
