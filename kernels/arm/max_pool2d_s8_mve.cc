//===- max_pool2d_s8_mve.cc - max_window_s8 with Helium --------------------===//
//
// Sixteen channels per vector: per tap one VLDRB and one VMAX. The clamp is a VMAX and a VMIN
// against the bounds, and a channel tail is one predicated (VCTP) block whose inactive lanes
// are neither loaded nor stored. Cortex-M55/M85.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include <arm_mve.h>

#include "ember/kernels/arm/max_pool2d_s8.h"

namespace ember::kernels::arm {

namespace {

// Full blocks load unpredicated: a predicated load costs a VPST as well.
template <bool kTail>
void block(const MaxWindowS8& w, int32_t c, mve_pred16_t p, int8_t* out) {
  int8x16_t m = vdupq_n_s8(-128);
  const int8_t* row = w.first + c;
  for (int32_t ky = 0; ky < w.ny; ++ky, row += w.row_step) {
    const int8_t* t = row;
    for (int32_t kx = 0; kx < w.nx; ++kx, t += w.col_step) m = vmaxq_s8(m, kTail ? vldrbq_z_s8(t, p) : vldrbq_s8(t));
  }
  m = vminq_s8(vmaxq_s8(m, vdupq_n_s8(static_cast<int8_t>(w.act_min))), vdupq_n_s8(static_cast<int8_t>(w.act_max)));
  if (kTail) vstrbq_p_s8(out + c, m, p);
  else vstrbq_s8(out + c, m);
}

}  // namespace

void max_window_s8(const MaxWindowS8& w, int8_t* out) {
  int32_t c = 0;
  for (; c + 16 <= w.channels; c += 16) block<false>(w, c, 0, out);
  if (c < w.channels) block<true>(w, c, vctp8q(static_cast<uint32_t>(w.channels - c)), out);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
