//===- max_pool2d_s8.cc - Optimized int8 max pool: checks, window clipping --===//
//
// Tier-independent. Per output pixel the window is clipped to the input (pool_window.h); the
// tier's max_window_s8 takes the rest. A window with no tap inside (only with dilation) is
// act_min, as in the portable kernel.

#include "ember/kernels/arm/max_pool2d_s8.h"

#include "ember/kernels/arm/pool_window.h"

namespace ember::kernels::arm {

rt::Status check_max_pool2d_s8(const rt::OpContext& c) { return kernels::check_max_pool2d_s8(c); }

rt::Status run_max_pool2d_s8(const rt::OpContext& c) {
  const Pool2dShape s = pool_shape_from(c.in(0), c.out(0));
  const int32_t act_min = c.ints[8], act_max = c.ints[9];
  for_each_window(s, pool_window_from(c.ints, true), c.in(0).as<const int8_t>(), c.out(0).as<int8_t>(),
                  [&](const PoolTaps& t, int8_t* out) {
                    if (t.ny == 0 || t.nx == 0) {
                      for (int32_t k = 0; k < s.channels; ++k) out[k] = static_cast<int8_t>(act_min);
                      return;
                    }
                    max_window_s8(MaxWindowS8{t.first, t.ny, t.nx, t.row_step, t.col_step, s.channels, act_min,
                                              act_max},
                                  out);
                  });
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
