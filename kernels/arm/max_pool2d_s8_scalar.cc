//===- max_pool2d_s8_scalar.cc - max_window_s8 in plain Thumb-2 ------------===//
//
// One channel at a time (max_window_channels_s8): per tap a load with post-increment, a
// compare and a conditional move, with no bounds checks or index arithmetic inside the
// clipped window. Cortex-M0/M3.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR

#include "ember/kernels/arm/max_pool2d_s8.h"

namespace ember::kernels::arm {

void max_window_s8(const MaxWindowS8& w, int8_t* out) { max_window_channels_s8(w, 0, out); }

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR
