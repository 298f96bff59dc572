//===- max_pool2d_s8.h - Reference int8 2-D max pooling ---------*- C++ -*-===//
//
// The portable int8 max pool. Input and output share scale and zero point, and the maximum
// commutes with the affine map, so the kernel works on the raw int8 values.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/pool_common.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// out[n, y, x, c] = clamp(max over window positions inside the input of in[n, iy, ix, c],
/// act_min, act_max), iy = y*stride_h - pad_top + ky*dilation_h (likewise ix). Padding never
/// wins; a window with no position inside the input (possible only with dilation) gives
/// act_min. Formats: input [N, H, W, C], output [N, OH, OW, C].
void max_pool2d_s8(const Pool2dShape& shape, const Pool2dWindow& window, int32_t act_min,
                   int32_t act_max, const int8_t* input, int8_t* output);

/// ints: kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w,
/// act_min, act_max.
rt::Status check_max_pool2d_s8(const rt::OpContext& ctx);
rt::Status run_max_pool2d_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels
