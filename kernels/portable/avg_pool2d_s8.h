//===- avg_pool2d_s8.h - Reference int8 2-D average pooling -----*- C++ -*-===//
//
// The portable int8 average pool. Input and output share scale and zero point, so the mean of
// the zero-point-corrected values needs no requantization, only a rounded division.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/pool_common.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// For each output (n, y, x, c): sum = sum of (in - zero_point) over the window positions
/// inside the input; count = kernel_h*kernel_w when count_include_pad (padding counts as real
/// 0; like PyTorch, positions past the bottom/right padding of pad_top/pad_left rows/columns,
/// which only ceil mode creates, are not counted: see padded_window_extent), else the number of
/// those positions; out = clamp(round(sum / count) +
/// zero_point, act_min, act_max). A window with count 0 (impossible after the check) gives
/// zero_point, clamped. The rounding is half to even (torch.round of the mean).
/// Formats: input [N, H, W, C], output [N, OH, OW, C]; zero_point in [-128, 127],
/// -128 <= act_min <= act_max <= 127.
void avg_pool2d_s8(const Pool2dShape& shape, const Pool2dWindow& window, bool count_include_pad,
                   int32_t zero_point, int32_t act_min, int32_t act_max, const int8_t* input,
                   int8_t* output);

/// ints: kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, count_include_pad (0/1),
/// zero_point, act_min, act_max.
rt::Status check_avg_pool2d_s8(const rt::OpContext& ctx);
rt::Status run_avg_pool2d_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels
