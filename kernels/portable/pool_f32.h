//===- pool_f32.h - Reference float32 pooling -------------------*- C++ -*-===//
//
// The portable float pools for ops left in float: 2-D average and max pooling on NHWC and 3-D
// average pooling on NCDHW (no layout change for 3-D), following PyTorch's CPU kernels.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/pool_common.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// out = sum of the window positions inside the input / divisor, divisor = number of those
/// positions, or with count_include_pad the window clipped to the padded extent
/// (padded_window_extent), as PyTorch's avg_pool2d. Formats: [N, H, W, C] in and out.
void avg_pool2d_f32(const Pool2dShape& shape, const Pool2dWindow& window, bool count_include_pad,
                    const float* input, float* output);

/// out = max over the window positions inside the input; NaN wins (PyTorch); -inf for a window
/// with no position inside. Formats: [N, H, W, C] in and out.
void max_pool2d_f32(const Pool2dShape& shape, const Pool2dWindow& window, const float* input,
                    float* output);

/// A 3-D pool on NCDHW: kernel, stride and front/top/left padding per axis (d, h, w).
struct Pool3dParams {
  int32_t kernel[3];
  int32_t stride[3];
  int32_t pad[3];
};

/// avg_pool3d over [N, C, D, H, W]: in_dims and out_dims are the two rank-5 shapes (N and C
/// equal). Divisor as avg_pool2d_f32, per axis.
void avg_pool3d_f32(const int32_t* in_dims, const int32_t* out_dims, const Pool3dParams& params,
                    bool count_include_pad, const float* input, float* output);

/// avg_pool2d_f32 ints: kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left,
/// count_include_pad. max_pool2d_f32 ints: kernel_h, kernel_w, stride_h, stride_w, pad_top,
/// pad_left, dilation_h, dilation_w. avg_pool3d_f32 ints: kernel d/h/w, stride d/h/w,
/// pad front/top/left, count_include_pad.
rt::Status check_avg_pool2d_f32(const rt::OpContext& ctx);
rt::Status run_avg_pool2d_f32(const rt::OpContext& ctx);
rt::Status check_max_pool2d_f32(const rt::OpContext& ctx);
rt::Status run_max_pool2d_f32(const rt::OpContext& ctx);
rt::Status check_avg_pool3d_f32(const rt::OpContext& ctx);
rt::Status run_avg_pool3d_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
