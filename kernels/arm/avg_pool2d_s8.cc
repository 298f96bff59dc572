//===- avg_pool2d_s8.cc - Optimized int8 average pool: checks, windows ----===//
//
// Tier-independent: per output pixel the clipped window and its divisor, then the tier's
// avg_window_s8.

#include "ember/kernels/arm/avg_pool2d_s8.h"

#include "ember/kernels/arm/pool_window.h"

namespace ember::kernels::arm {

rt::Status check_avg_pool2d_s8(const rt::OpContext& c) { return kernels::check_avg_pool2d_s8(c); }

rt::Status run_avg_pool2d_s8(const rt::OpContext& c) {
  const Pool2dShape s = pool_shape_from(c.in(0), c.out(0));
  const Pool2dWindow win = pool_window_from(c.ints, false);
  const bool include_pad = c.ints[6] != 0;
  for_each_window(s, win, c.in(0).as<const int8_t>(), c.out(0).as<int8_t>(), [&](const PoolTaps& t, int8_t* out) {
    const int32_t count = include_pad ? padded_window_extent(t.y0, win.kernel_h, s.in_h, win.pad_top) *
                                            padded_window_extent(t.x0, win.kernel_w, s.in_w, win.pad_left)
                                      : t.ny * t.nx;
    avg_window_s8(AvgWindowS8{t.first, t.ny, t.nx, t.row_step, t.col_step, s.channels, count, c.ints[7], c.ints[8],
                              c.ints[9]},
                  out);
  });
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
