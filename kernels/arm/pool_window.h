//===- pool_window.h - Sliding windows clipped to the input ----*- C++ -*-===//
//
// The optimized pools (max_pool2d_s8, avg_pool2d_s8) clip each output pixel's window to the
// input once (clip_window, kernels/portable/pool_common.h), so their tier loops see only taps
// inside it: a rectangle of ny x nx pixels. The convolutions find the output columns whose
// windows need no clipping (interior_x).

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/portable/conv_common.h"
#include "ember/kernels/portable/pool_common.h"

namespace ember::kernels::arm {

/// Output column range [x0, x1) whose windows lie wholly inside the input along x (conv,
/// depthwise).
inline void interior_x(const Conv2dShape& s, const Conv2dGeometry& g, int32_t* x0, int32_t* x1) {
  const int32_t extent = g.dilation_w * (s.filter_w - 1) + 1;
  int32_t lo = (g.pad_left + g.stride_w - 1) / g.stride_w;
  int32_t hi = s.in_w + g.pad_left - extent < 0 ? 0 : (s.in_w + g.pad_left - extent) / g.stride_w + 1;
  if (hi > s.out_w) hi = s.out_w;
  if (lo > hi) lo = hi;
  *x0 = lo, *x1 = hi;
}

/// One output pixel's window: ny x nx taps inside the input (either may be 0), the first at
/// `first`, `row_step` bytes between tap rows and `col_step` between tap columns; y0, x0 where
/// the unclipped window starts.
struct PoolTaps {
  const int8_t* first;
  int32_t ny, nx;
  size_t row_step, col_step;
  int32_t y0, x0;
};

/// Calls f(taps, out) for every output pixel in order, out pointing at its channels.
template <typename F>
void for_each_window(const Pool2dShape& s, const Pool2dWindow& w, const int8_t* in, int8_t* out, F f) {
  const size_t pixel = static_cast<size_t>(s.channels), row = pixel * static_cast<size_t>(s.in_w);
  PoolTaps t{nullptr, 0, 0, row * static_cast<size_t>(w.dilation_h), pixel * static_cast<size_t>(w.dilation_w), 0, 0};
  for (int32_t n = 0; n < s.batches; ++n) {
    const int8_t* image = in + static_cast<size_t>(n) * static_cast<size_t>(s.in_h) * row;
    for (int32_t y = 0; y < s.out_h; ++y) {
      int32_t iy;
      t.y0 = y * w.stride_h - w.pad_top;
      clip_window(t.y0, w.kernel_h, w.dilation_h, s.in_h, &iy, &t.ny);
      for (int32_t x = 0; x < s.out_w; ++x, out += pixel) {
        int32_t ix;
        t.x0 = x * w.stride_w - w.pad_left;
        clip_window(t.x0, w.kernel_w, w.dilation_w, s.in_w, &ix, &t.nx);
        t.first = image + static_cast<size_t>(iy) * row + static_cast<size_t>(ix) * pixel;
        f(t, out);
      }
    }
  }
}

}  // namespace ember::kernels::arm
