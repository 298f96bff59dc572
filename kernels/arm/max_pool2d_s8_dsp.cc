//===- max_pool2d_s8_dsp.cc - max_window_s8 with SIMD32 --------------------===//
//
// Four channels per word: SSUB8 sets a GE flag for each lane where the tap is at least the
// running maximum and SEL takes those lanes from the tap, so a tap costs a load and two
// instructions for four channels. The clamp to [act_min, act_max] is the same pair of
// instructions against the packed bounds. Leftover channels go one at a time
// (max_window_channels_s8).
// Cortex-M4/M7/M33.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_DSP

#include <arm_acle.h>
#include <string.h>

#include "ember/kernels/arm/max_pool2d_s8.h"

namespace ember::kernels::arm {
namespace {

inline uint32_t load4(const int8_t* p) {  // unaligned loads are legal on v7-M and later
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/// Per byte lane, the larger of a and b (signed).
inline uint32_t max4(uint32_t a, uint32_t b) {
  __ssub8(static_cast<int8x4_t>(a), static_cast<int8x4_t>(b));  // GE where a >= b
  return static_cast<uint32_t>(__sel(static_cast<uint8x4_t>(a), static_cast<uint8x4_t>(b)));
}

/// Per byte lane, the smaller of a and b (signed).
inline uint32_t min4(uint32_t a, uint32_t b) {
  __ssub8(static_cast<int8x4_t>(a), static_cast<int8x4_t>(b));  // GE where a >= b
  return static_cast<uint32_t>(__sel(static_cast<uint8x4_t>(b), static_cast<uint8x4_t>(a)));
}

inline uint32_t splat4(int32_t v) { return (static_cast<uint32_t>(v) & 0xFFu) * 0x01010101u; }

}  // namespace

void max_window_s8(const MaxWindowS8& w, int8_t* out) {
  const uint32_t lo = splat4(w.act_min), hi = splat4(w.act_max);
  int32_t c = 0;
  for (; c + 4 <= w.channels; c += 4) {
    uint32_t m = splat4(-128);
    const int8_t* row = w.first + c;
    for (int32_t ky = 0; ky < w.ny; ++ky, row += w.row_step) {
      const int8_t* p = row;
      for (int32_t kx = 0; kx < w.nx; ++kx, p += w.col_step) m = max4(load4(p), m);
    }
    m = min4(max4(m, lo), hi);
    memcpy(out + c, &m, 4);
  }
  max_window_channels_s8(w, c, out);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_DSP
