//===- max_pool2d_s8.h - Optimized int8 2-D max pooling ---------*- C++ -*-===//
//
// The same op as kernels/portable/max_pool2d_s8.h, bit for bit, for the built tier. The entry
// (max_pool2d_s8.cc) clips each output pixel's window to the input (pool_window.h), so the
// tier's inner loop (max_pool2d_s8_{scalar,dsp,mve}.cc) sees only taps inside it. It writes only the output pixel's own bytes, which the row-streaming in-place rule
// of kernels/kernels.def keeps clear of every input row that pixel reads.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/portable/max_pool2d_s8.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

/// One output pixel: its clipped window (at least one tap), the channels and the bounds.
struct MaxWindowS8 {
  const int8_t* first;
  int32_t ny, nx;
  size_t row_step, col_step;
  int32_t channels;
  int32_t act_min, act_max;
};

/// out[c] = clamp(max over the window's taps of tap[c], act_min, act_max). One per tier.
void max_window_s8(const MaxWindowS8& w, int8_t* out);

/// The same for channels [c0, channels), one at a time, its maximum kept in a register: the
/// scalar tier's loop and the other tiers' leftover channels.
inline void max_window_channels_s8(const MaxWindowS8& w, int32_t c0, int8_t* out) {
  for (int32_t c = c0; c < w.channels; ++c) {
    int32_t m = -128;
    const int8_t* row = w.first + c;
    for (int32_t ky = 0; ky < w.ny; ++ky, row += w.row_step) {
      const int8_t* p = row;
      for (int32_t kx = 0; kx < w.nx; ++kx, p += w.col_step) m = *p > m ? *p : m;
    }
    out[c] = static_cast<int8_t>(m < w.act_min ? w.act_min : (m > w.act_max ? w.act_max : m));
  }
}

rt::Status check_max_pool2d_s8(const rt::OpContext& ctx);
rt::Status run_max_pool2d_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
