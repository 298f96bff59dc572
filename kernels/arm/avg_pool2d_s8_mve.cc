//===- avg_pool2d_s8_mve.cc - avg_window_s8 with Helium --------------------===//
//
// Sixteen channels per block, summed in two int16x8 vectors: per tap two VLDRB.S16 and two
// VADD. 256 taps of int8 fit int16 (|sum| <= 128 * 256), so the int16 sums move into int32
// every 256 taps and at the end; then one division per channel (avg_finish_s8). A channel tail
// is one predicated block. Cortex-M55/M85.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include <arm_mve.h>

#include "ember/kernels/arm/avg_pool2d_s8.h"

namespace ember::kernels::arm {
namespace {

void flush(int16x8_t* lo, int16x8_t* hi, int32_t* sums) {
  int16_t part[16];
  vst1q_s16(part, *lo);
  vst1q_s16(part + 8, *hi);
  for (int32_t k = 0; k < 16; ++k) sums[k] += part[k];
  *lo = *hi = vdupq_n_s16(0);
}

// Full blocks load unpredicated: a predicated load costs a VPST as well.
template <bool kTail>
void block(const AvgWindowS8& w, int32_t c, int8_t* out) {
  const int32_t n = w.channels - c < 16 ? w.channels - c : 16;
  const mve_pred16_t p_lo = vctp16q(static_cast<uint32_t>(n)), p_hi = vctp16q(static_cast<uint32_t>(n > 8 ? n - 8 : 0));
  int32_t sums[16] = {};
  int16x8_t lo = vdupq_n_s16(0), hi = lo;
  int32_t pending = 0;
  const int8_t* row = w.first + c;
  for (int32_t ky = 0; ky < w.ny; ++ky, row += w.row_step) {
    const int8_t* t = row;
    for (int32_t kx = 0; kx < w.nx; ++kx, t += w.col_step) {
      lo = vaddq_s16(lo, kTail ? vldrbq_z_s16(t, p_lo) : vldrbq_s16(t));
      hi = vaddq_s16(hi, kTail ? vldrbq_z_s16(t + 8, p_hi) : vldrbq_s16(t + 8));
      if (++pending == 256) flush(&lo, &hi, sums), pending = 0;
    }
  }
  flush(&lo, &hi, sums);
  for (int32_t k = 0; k < n; ++k) out[c + k] = avg_finish_s8(sums[k], w);
}

}  // namespace

void avg_window_s8(const AvgWindowS8& w, int8_t* out) {
  int32_t c = 0;
  for (; c + 16 <= w.channels; c += 16) block<false>(w, c, out);
  if (c < w.channels) block<true>(w, c, out);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
