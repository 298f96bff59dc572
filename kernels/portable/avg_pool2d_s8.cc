//===- avg_pool2d_s8.cc - Reference int8 2-D average pooling --------------===//
//
// Window sums in int32 (the check bounds a window to 2^23 positions of at most 255 each),
// divided with rounding half to even (PyTorch's quantized reference, docs/numerics.md). The
// loops start and stop at the input's edges, so a window far larger than the input costs what
// the input does.

#include "ember/kernels/portable/avg_pool2d_s8.h"

#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

void avg_pool2d_s8(const Pool2dShape& s, const Pool2dWindow& w, bool count_include_pad,
                   int32_t zp, int32_t act_min, int32_t act_max, const int8_t* input,
                   int8_t* output) {
  for (int32_t n = 0; n < s.batches; ++n) {
    for (int32_t y = 0; y < s.out_h; ++y) {
      const int32_t y0 = y * w.stride_h - w.pad_top;
      for (int32_t x = 0; x < s.out_w; ++x) {
        const int32_t x0 = x * w.stride_w - w.pad_left;
        for (int32_t c = 0; c < s.channels; ++c) {
          int32_t sum = 0, count = 0;
          for (int32_t iy = y0 < 0 ? 0 : y0; iy < y0 + w.kernel_h && iy < s.in_h; ++iy)
            for (int32_t ix = x0 < 0 ? 0 : x0; ix < x0 + w.kernel_w && ix < s.in_w; ++ix, ++count)
              sum += input[((static_cast<size_t>(n) * s.in_h + iy) * s.in_w + ix) * s.channels +
                           c] - zp;
          if (count_include_pad)
            count = padded_window_extent(y0, w.kernel_h, s.in_h, w.pad_top) *
                    padded_window_extent(x0, w.kernel_w, s.in_w, w.pad_left);
          const int32_t mean = count > 0 ? rounding_divide_half_even(sum, count) : 0;
          output[((static_cast<size_t>(n) * s.out_h + y) * s.out_w + x) * s.channels + c] =
              static_cast<int8_t>(clamp_i32(mean + zp, act_min, act_max));
        }
      }
    }
  }
}

rt::Status check_avg_pool2d_s8(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 10, 0), BadOpSignature);
  const Pool2dWindow w = pool_window_from(c.ints, false);
  EMBER_RETURN_IF_ERROR(check_pool2d(c.in(0), c.out(0), DType::Int8, w));
  // Keeps the int32 window sum (|q - zp| <= 255 per position) from overflowing.
  EMBER_KCHECK(static_cast<int64_t>(w.kernel_h) * w.kernel_w <= (int64_t{1} << 23),
               BadOpParameter);
  EMBER_KCHECK(c.ints[6] == 0 || c.ints[6] == 1, BadOpParameter);
  EMBER_KCHECK(valid_zero_point(c.ints[7]), BadQuantization);
  EMBER_KCHECK(valid_act_s8(c.ints[8], c.ints[9]), BadOpParameter);
  return Status::Ok;
}

rt::Status run_avg_pool2d_s8(const rt::OpContext& c) {
  avg_pool2d_s8(pool_shape_from(c.in(0), c.out(0)), pool_window_from(c.ints, false),
                c.ints[6] != 0, c.ints[7], c.ints[8], c.ints[9], c.in(0).as<const int8_t>(),
                c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
