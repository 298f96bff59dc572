//===- depthwise_conv2d_s8.h - Optimized int8 depthwise convolution -*- C++ -*-===//
//
// The same op as kernels/portable/depthwise_conv2d_s8.h, bit for bit, for the built tier.
// Depth multiplier 1 runs the tier's kernel (depthwise_conv2d_s8_{scalar,mve}.cc; the DSP tier
// uses the scalar one: a per-channel product has no pair to feed SMLAD): interior pixels take
// every tap without bounds checks, with an unrolled 3x3 specialisation; border taps contribute
// input_zp * w, which the folded bias (kernels/arm/fold.h) expects. The MVE kernel runs 16
// channels per vector with the channel groups outermost. Depth multiplier > 1, or an op
// without the folded bias, runs the portable kernel.
// Operands: the portable ones plus input 5, the folded bias (kernels/arm/operands.h). No
// scratch.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kernels/arm/pool_window.h"
#include "kernels/arm/tier.h"
#include "kernels/portable/conv_common.h"
#include "runtime/op_context.h"

namespace ember::kernels::arm {

struct DepthwiseS8 {
  Conv2dShape shape;   // in_c == out_c
  Conv2dGeometry geometry;
  QuantS8 quant;
  const int8_t* input;
  const int8_t* filter;   // [1, KH, KW, C]
  const int32_t* bias;    // folded
  const int32_t* multiplier;
  const int32_t* shift;
  int8_t* output;
  const int32_t* raw_bias;  // the op's own bias (null: none), for windows that cross the padding
  bool rows_bottom_up = false;  // output rows last-first (each row's pixels still in order)
  bool disjoint = false;        // input and output share no byte: any order of the pixels is safe
};

/// The whole op (every batch, row, column and channel), depth multiplier 1. One
/// implementation per tier. Each channel's output rows are written in the order
/// rows_bottom_up gives; the channels may be visited in any grouping (MVE: groups of 16
/// outermost). An in-place op whose output is not a whole number of pixels away from its
/// input calls it for one output row at a time (out_h 1, batches 1, pad_top reduced by
/// y * stride_h): pad_top may then be negative, meaning the window starts below the input's
/// first row.
void depthwise_conv2d_s8_body(const DepthwiseS8& d);

/// The smallest of n >= 1 int8 weights. One implementation per tier (MVE: 16 bytes per step),
/// the same result on every tier.
int8_t depthwise_conv2d_s8_min_weight(const int8_t* filter, size_t n);

/// Whether `tier`'s kernel takes this depthwise filter of n >= 1 weights. The MVE kernel sums
/// two taps' int16 products before widening them, exact only for weights in [-127, 127]
/// (depthwise_conv2d_s8_mve.cc): it refuses a filter holding -128. Ember's quantizer never
/// makes one (symmetric weights); the compiler gives such an op the portable kernel
/// (compiler/passes/pack_weights.cc). The scalar and DSP kernels take any filter.
inline bool depthwise_conv2d_s8_takes_filter(const int8_t* filter, size_t n, Tier tier) {
  return tier != Tier::Mve || depthwise_conv2d_s8_min_weight(filter, n) != -128;
}

rt::Status check_depthwise_conv2d_s8(const rt::OpContext& ctx);
rt::Status run_depthwise_conv2d_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
