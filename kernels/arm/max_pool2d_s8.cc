//===- max_pool2d_s8.cc - Optimized int8 max pool: checks, window clipping --===//
//
// Tier-independent. Per output pixel the window is clipped to the input along each axis
// (first tap inside, number of taps inside); the tier's max_window_s8 takes the rest. A
// window with no tap inside (only with dilation) is act_min, as in the portable kernel.

#include "kernels/arm/max_pool2d_s8.h"

#include "kernels/portable/pool_common.h"

namespace ember::kernels::arm {
namespace {

/// Taps of a window starting at `start` that land in [0, in): the first one's index and count.
void clip(int32_t start, int32_t kernel, int32_t dilation, int32_t in, int32_t* first, int32_t* count) {
  int32_t k0 = 0;
  if (start < 0) k0 = (-start + dilation - 1) / dilation;
  int32_t k1 = kernel;  // one past the last tap inside
  if (start + (kernel - 1) * dilation >= in) k1 = start >= in ? 0 : (in - 1 - start) / dilation + 1;
  *first = start + k0 * dilation;
  *count = k1 > k0 ? k1 - k0 : 0;
}

}  // namespace

rt::Status check_max_pool2d_s8(const rt::OpContext& c) { return kernels::check_max_pool2d_s8(c); }

rt::Status run_max_pool2d_s8(const rt::OpContext& c) {
  const Pool2dShape s = pool_shape_from(c.in(0), c.out(0));
  const Pool2dWindow win = pool_window_from(c.ints, true);
  const int32_t act_min = c.ints[8], act_max = c.ints[9];
  const int8_t* in = c.in(0).as<const int8_t>();
  int8_t* out = c.out(0).as<int8_t>();
  const size_t pixel = static_cast<size_t>(s.channels), row = pixel * static_cast<size_t>(s.in_w);
  MaxWindowS8 w{nullptr, 0, 0, row * static_cast<size_t>(win.dilation_h),
                pixel * static_cast<size_t>(win.dilation_w), s.channels, act_min, act_max};
  for (int32_t n = 0; n < s.batches; ++n) {
    const int8_t* image = in + static_cast<size_t>(n) * static_cast<size_t>(s.in_h) * row;
    for (int32_t y = 0; y < s.out_h; ++y) {
      int32_t iy;
      clip(y * win.stride_h - win.pad_top, win.kernel_h, win.dilation_h, s.in_h, &iy, &w.ny);
      for (int32_t x = 0; x < s.out_w; ++x, out += pixel) {
        int32_t ix;
        clip(x * win.stride_w - win.pad_left, win.kernel_w, win.dilation_w, s.in_w, &ix, &w.nx);
        if (w.ny == 0 || w.nx == 0) {
          for (int32_t k = 0; k < s.channels; ++k) out[k] = static_cast<int8_t>(act_min);
          continue;
        }
        w.first = image + static_cast<size_t>(iy) * row + static_cast<size_t>(ix) * pixel;
        max_window_s8(w, out);
      }
    }
  }
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
