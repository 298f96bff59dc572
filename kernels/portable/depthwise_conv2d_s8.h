//===- depthwise_conv2d_s8.h - Reference int8 depthwise convolution -*- C++ -*-===//
//
// The portable int8 depthwise convolution (PyTorch conv with groups == C_in), with a depth
// multiplier, dilation and per-output-channel requantization. Numeric ground truth for the
// optimized tiers.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/conv_common.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// Output channel o = c*M + m (M = O / C_in, the depth multiplier) reads input channel c:
/// acc = bias[o] + sum over (ky, kx) of (in[n, iy, ix, c] - input_zp) * w[0, ky, kx, o],
/// out = clamp(mbqm(acc, multiplier[o], shift[o]) + output_zp, act_min, act_max).
/// Window positions outside the input contribute nothing; the accumulator wraps modulo 2^32.
///
/// Formats: input [N, H, W, C_in], filter [1, KH, KW, O], bias [O] int32 or nullptr,
/// multiplier [O] in [2^30, 2^31), shift [O] in [-31, 30], output [N, OH, OW, O].
/// shape.filter_c == shape.out_c. Output rows are computed first to last, or last to first
/// when `rows_bottom_up` (the order matters only when the output overlaps the input:
/// kernels/kernels.def).
void depthwise_conv2d_s8(const Conv2dShape& shape, const Conv2dGeometry& geometry,
                         const QuantS8& quant, const int8_t* input, const int8_t* filter,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
                         int8_t* output, bool rows_bottom_up = false);

/// Operands and ints as conv2d_s8.
rt::Status check_depthwise_conv2d_s8(const rt::OpContext& ctx);
rt::Status run_depthwise_conv2d_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels
