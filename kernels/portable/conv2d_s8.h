//===- conv2d_s8.h - Reference int8 2-D convolution -------------*- C++ -*-===//
//
// The portable int8 convolution: defines the numerics every optimized tier must reproduce bit
// for bit. Grouped and dilated convolution, per-output-channel requantization.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/conv_common.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// out[n, y, x, o] = clamp(mbqm(acc, multiplier[o], shift[o]) + output_zp, act_min, act_max),
/// acc = bias[o] + sum over (ky, kx, i) of (in[n, iy, ix, g*I + i] - input_zp) * w[o, ky, kx, i]
/// with iy = y*stride_h - pad_top + ky*dilation_h (likewise ix), g = o / (O / groups),
/// I = filter_c, groups = in_c / filter_c. Window positions outside the input contribute
/// nothing. The accumulator wraps modulo 2^32 (see wrapping_add); the compiler keeps it in range.
///
/// Formats: input [N, H, W, C_in], filter [O, KH, KW, C_in/groups], bias [O] int32 or nullptr,
/// multiplier [O] in [2^30, 2^31), shift [O] in [-31, 30], output [N, OH, OW, O].
/// Output rows are computed first to last, or last to first when `rows_bottom_up` (the order
/// matters only when the output overlaps the input: kernels/kernels.def).
void conv2d_s8(const Conv2dShape& shape, const Conv2dGeometry& geometry, const QuantS8& quant,
               const int8_t* input, const int8_t* filter, const int32_t* bias,
               const int32_t* multiplier, const int32_t* shift, int8_t* output,
               bool rows_bottom_up = false);

/// Operands: input, filter, bias (optional), multiplier, shift -> output.
/// ints: stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w, input_zp, output_zp,
/// act_min, act_max.
rt::Status check_conv2d_s8(const rt::OpContext& ctx);
rt::Status run_conv2d_s8(const rt::OpContext& ctx);

/// What conv2d_s8 and depthwise_conv2d_s8 (kernels/portable/depthwise_conv2d_s8.h) share: one
/// loop nest, the operand checks and the run adapter, for the filter layout of either.
void conv_any_s8(const Conv2dShape& shape, const Conv2dGeometry& geometry, const QuantS8& quant,
                 const int8_t* input, const int8_t* filter, const int32_t* bias,
                 const int32_t* multiplier, const int32_t* shift, int8_t* output, bool depthwise,
                 bool rows_bottom_up);
/// `values`: as in check_per_channel (kernels/portable/conv_common.h).
rt::Status check_conv_any_s8(const rt::OpContext& ctx, bool depthwise, bool values = true);
rt::Status run_conv_any_s8(const rt::OpContext& ctx, bool depthwise);

}  // namespace ember::kernels
