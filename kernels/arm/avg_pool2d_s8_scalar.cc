//===- avg_pool2d_s8_scalar.cc - avg_window_s8 in plain Thumb-2 ------------===//
//
// Also the DSP tier's kernel: per tap a load and an add for each channel, its sum kept in a
// register over the clipped window (no bounds checks, no index arithmetic), then one division.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include "kernels/arm/avg_pool2d_s8.h"

namespace ember::kernels::arm {

void avg_window_s8(const AvgWindowS8& w, int8_t* out) {
  for (int32_t c = 0; c < w.channels; ++c) {
    int32_t sum = 0;
    const int8_t* row = w.first + c;
    for (int32_t ky = 0; ky < w.ny; ++ky, row += w.row_step) {
      const int8_t* p = row;
      for (int32_t kx = 0; kx < w.nx; ++kx, p += w.col_step) sum += *p;
    }
    out[c] = avg_finish_s8(sum, w);
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
