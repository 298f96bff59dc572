//===- conv2d_f32.h - Reference float32 2-D convolutions --------*- C++ -*-===//
//
// The portable float convolutions, regular (grouped) and depthwise, for ops left in float.
// Same layouts and window rules as the int8 kernels; float32 accumulation.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/conv_common.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// out[n, y, x, o] = clamp(bias[o] + sum over (ky, kx, i) of in[n, iy, ix, g*I + i] *
/// w[o, ky, kx, i], act_min, act_max), index rules as conv2d_s8. bias may be nullptr.
/// Formats: input [N, H, W, C_in], filter [O, KH, KW, C_in/groups], output [N, OH, OW, O].
void conv2d_f32(const Conv2dShape& shape, const Conv2dGeometry& geometry, float act_min,
                float act_max, const float* input, const float* filter, const float* bias,
                float* output);

/// Depthwise: output channel o = c*M + m reads input channel c; filter [1, KH, KW, O].
void depthwise_conv2d_f32(const Conv2dShape& shape, const Conv2dGeometry& geometry,
                          float act_min, float act_max, const float* input, const float* filter,
                          const float* bias, float* output);

/// Operands: input, filter, bias (optional, [O]) -> output, all float32.
/// ints: stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w; floats: act_min,
/// act_max (act_min <= act_max, infinities allowed).
rt::Status check_conv2d_f32(const rt::OpContext& ctx);
rt::Status run_conv2d_f32(const rt::OpContext& ctx);
rt::Status check_depthwise_conv2d_f32(const rt::OpContext& ctx);
rt::Status run_depthwise_conv2d_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
