//===- avg_pool2d_s8.h - Optimized int8 2-D average pooling -----*- C++ -*-===//
//
// The same op as kernels/portable/avg_pool2d_s8.h, bit for bit, for the built tier. The entry
// (avg_pool2d_s8.cc) clips each output pixel's window to the input (pool_window.h); the tier's
// avg_window_s8 (avg_pool2d_s8_{scalar,mve}.cc; the DSP tier uses the scalar one) sums the
// raw int8 taps per channel and avg_finish_s8 turns a sum into the output byte. It writes only
// the output pixel's own bytes, which the row-streaming in-place rule of kernels/kernels.def
// keeps clear of every input row that pixel reads.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/portable/avg_pool2d_s8.h"
#include "ember/kernels/portable/requantize.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

/// One output pixel: its clipped window (ny x nx taps, either may be 0), the divisor `count`
/// (the taps inside, or the padded window with count_include_pad) and the quantization.
struct AvgWindowS8 {
  const int8_t* first;
  int32_t ny, nx;
  size_t row_step, col_step;
  int32_t channels, count, zero_point, act_min, act_max;
};

/// The output byte of a channel whose taps inside sum to `raw` (raw int8 values): the sum of
/// (q - zero_point) divided by count, rounded half to even, as the portable kernel does.
inline int8_t avg_finish_s8(int32_t raw, const AvgWindowS8& w) {
  const int32_t inside = w.ny * w.nx;
  const int32_t mean = w.count > 0 ? rounding_divide_half_even(raw - inside * w.zero_point, w.count) : 0;
  return static_cast<int8_t>(clamp_i32(mean + w.zero_point, w.act_min, w.act_max));
}

/// out[c] for every channel of one output pixel. One implementation per tier.
void avg_window_s8(const AvgWindowS8& w, int8_t* out);

rt::Status check_avg_pool2d_s8(const rt::OpContext& ctx);
rt::Status run_avg_pool2d_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
