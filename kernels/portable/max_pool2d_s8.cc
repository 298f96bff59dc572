//===- max_pool2d_s8.cc - Reference int8 2-D max pooling ------------------===//
//
// Starting from -128 is the same as skipping padded positions: no int8 value is smaller. The
// loops visit only the window's taps inside the input (clip_window), so a window far larger
// than the input costs what the input does.

#include "kernels/portable/max_pool2d_s8.h"

#include "kernels/portable/requantize.h"

namespace ember::kernels {

void max_pool2d_s8(const Pool2dShape& s, const Pool2dWindow& w, int32_t act_min, int32_t act_max,
                   const int8_t* input, int8_t* output) {
  for (int32_t n = 0; n < s.batches; ++n) {
    for (int32_t y = 0; y < s.out_h; ++y) {
      int32_t iy0, ny;
      clip_window(y * w.stride_h - w.pad_top, w.kernel_h, w.dilation_h, s.in_h, &iy0, &ny);
      for (int32_t x = 0; x < s.out_w; ++x) {
        int32_t ix0, nx;
        clip_window(x * w.stride_w - w.pad_left, w.kernel_w, w.dilation_w, s.in_w, &ix0, &nx);
        for (int32_t c = 0; c < s.channels; ++c) {
          int32_t m = -128;
          for (int32_t ky = 0; ky < ny; ++ky) {
            const int32_t iy = iy0 + ky * w.dilation_h;
            for (int32_t kx = 0; kx < nx; ++kx) {
              const int32_t ix = ix0 + kx * w.dilation_w;
              const int32_t v =
                  input[((static_cast<size_t>(n) * s.in_h + iy) * s.in_w + ix) * s.channels + c];
              if (v > m) m = v;
            }
          }
          output[((static_cast<size_t>(n) * s.out_h + y) * s.out_w + x) * s.channels + c] =
              static_cast<int8_t>(clamp_i32(m, act_min, act_max));
        }
      }
    }
  }
}

rt::Status check_max_pool2d_s8(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 10, 0), BadOpSignature);
  EMBER_RETURN_IF_ERROR(
      check_pool2d(c.in(0), c.out(0), DType::Int8, pool_window_from(c.ints, true)));
  EMBER_KCHECK(valid_act_s8(c.ints[8], c.ints[9]), BadOpParameter);
  return Status::Ok;
}

rt::Status run_max_pool2d_s8(const rt::OpContext& c) {
  max_pool2d_s8(pool_shape_from(c.in(0), c.out(0)), pool_window_from(c.ints, true), c.ints[8],
                c.ints[9], c.in(0).as<const int8_t>(), c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
