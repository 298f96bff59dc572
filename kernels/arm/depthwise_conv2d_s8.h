//===- depthwise_conv2d_s8.h - Optimized int8 depthwise convolution -*- C++ -*-===//
//
// The same op as kernels/portable/depthwise_conv2d_s8.h, bit for bit, for the built tier.
// The tier's kernel (depthwise_conv2d_s8_{strip,scalar,mve}.cc) runs depth multiplier 1:
// interior pixels take every tap without bounds checks, with an unrolled 3x3 specialisation;
// border taps contribute input_zp * w, which the folded bias (kernels/arm/fold.h) expects. The
// scalar and DSP kernels run 4 channels per pass and the MVE one 16 per vector, the channel
// groups outermost, on a strip padded with input_zp. A depth multiplier M > 1 runs the same
// kernel one output row at a time over a copy of the row's window with each input channel
// repeated M times (depthwise_expanded_bytes). An op without the folded bias runs the
// portable kernel.
// Operands: the portable ones plus input 5, the folded bias, and output 1, the scratch
// (kernels/arm/operands.h): the expanded rows (depth multiplier > 1), then the strip of the
// kernels, sized by depthwise_conv2d_s8_scratch_bytes.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/arm/pool_window.h"
#include "ember/kernels/arm/tier.h"
#include "ember/kernels/portable/conv_common.h"
#include "ember/runtime/op_context.h"

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
  int8_t* scratch = nullptr;    // the op's scratch (output 1), null without one
  size_t scratch_bytes = 0;
};

/// The MVE kernel's strip, and the most the scalar and DSP kernels' take (their scratch).
inline constexpr size_t kDepthwiseStripBytes = 768;
/// Whether the strip path of the scalar and DSP kernels takes the op
/// (depthwise_conv2d_s8_strip.cc): a 3x3 window, dilation 1, stride 1 or 2 along x. (Other
/// windows, sww's one-row ones, ran slower through the DSP strip than through the listed taps.)
inline bool depthwise_strip(const Conv2dShape& s, const Conv2dGeometry& g) {
  return s.filter_h == 3 && s.filter_w == 3 && g.dilation_h == 1 && g.dilation_w == 1 && g.stride_w <= 2;
}

/// The strip of the scalar and DSP kernels: a ring of filter_h rows of pixels of four channels
/// (DSP: 8 bytes, unpacked to int16 pairs; scalar: the 4 bytes), as many pixels as `n` output
/// columns read.
inline size_t depthwise_ring_bytes(const Conv2dShape& s, const Conv2dGeometry& g, int32_t n, Tier tier) {
  const size_t pixel = tier == Tier::Dsp ? 8u : 4u;
  return static_cast<size_t>(s.filter_h) * static_cast<size_t>((n - 1) * g.stride_w + s.filter_w) * pixel;
}

/// Depth multiplier M = out_c / in_c > 1: the kernels run each output row as a one-row op of
/// depth multiplier 1 over out_c channels (expanded_row_op), reading a copy of the row's
/// window rows in which output channel c * M + j holds input channel c, and rows outside the
/// input are input_zp. The copy comes first in the scratch (16-byte rounded, so the strip after
/// it stays aligned). 0 for depth multiplier 1; SIZE_MAX if the size overflows (no tensor bounds
/// filter_h * in_w * out_c: a crafted program's op then runs the portable kernel). The copy is
/// about one byte per KW MACs (stride 1).
inline size_t depthwise_expanded_bytes(const Conv2dShape& s) {
  if (s.out_c == s.in_c) return 0;
  size_t n = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(s.filter_h), static_cast<size_t>(s.in_w), &n) ||
      __builtin_mul_overflow(n, static_cast<size_t>(s.out_c), &n) || n > SIZE_MAX - 15)
    return SIZE_MAX;
  return (n + 15) & ~size_t{15};
}

/// The one-row op over the expanded window rows (depth multiplier 1, filter_h rows, no
/// vertical padding or dilation).
inline void expanded_row_op(Conv2dShape& s, Conv2dGeometry& g) {
  s = Conv2dShape{1, s.filter_h, s.in_w, s.out_c, 1, s.out_w, s.out_c, s.filter_h, s.filter_w, s.out_c};
  g.pad_top = 0, g.dilation_h = 1;
}

/// Scratch bytes `tier`'s kernel takes for an op of depth multiplier 1 (output 1, planned by
/// the compiler like an activation; host-callable). MVE: the strip, kDepthwiseStripBytes. Scalar
/// (the Cortex-M3's; the Cortex-M0 and the host run the listed taps) and DSP: the ring for a
/// whole output row; if that is over kDepthwiseStripBytes,
/// kDepthwiseStripBytes (a map whose input and output are disjoint runs in bands of columns), or
/// 0 for a RAM-bound plan (`least`: its ops mostly run in place, where bands cannot); 0 when the
/// strip path does not take the op (depthwise_strip). The MVE kernel given less, or a scratch
/// not 16-byte aligned, runs the portable kernel; the others (4 bytes) their listed-taps path.
/// A depth multiplier above 1 adds depthwise_expanded_bytes in front, and the strip is the
/// one-row op's (without the expanded rows, the portable kernel runs).
inline size_t depthwise_conv2d_s8_scratch_bytes(Conv2dShape s, Conv2dGeometry g, Tier tier, bool least = false) {
  if (tier != Tier::Mve && tier != Tier::Dsp && tier != Tier::Scalar) return 0;
  const size_t expanded = depthwise_expanded_bytes(s);
  if (expanded > SIZE_MAX - kDepthwiseStripBytes) return SIZE_MAX;
  if (expanded != 0) expanded_row_op(s, g);
  if (tier == Tier::Mve) return expanded + kDepthwiseStripBytes;
  if (!depthwise_strip(s, g)) return expanded;
  const size_t row = depthwise_ring_bytes(s, g, s.out_w, tier);
  if (row <= kDepthwiseStripBytes) return expanded + row;
  return expanded + (least ? 0 : kDepthwiseStripBytes);
}

/// The whole op (every batch, row, column and channel), depth multiplier 1. One
/// implementation per tier. Each channel's output rows are written in the order
/// rows_bottom_up gives; the channels may be visited in any grouping (MVE: groups of 16
/// outermost). An in-place op whose output is not a whole number of pixels away from its
/// input calls it for one output row at a time (out_h 1, batches 1, pad_top reduced by
/// y * stride_h): pad_top may then be negative, meaning the window starts below the input's
/// first row.
void depthwise_conv2d_s8_body(const DepthwiseS8& d);

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
/// The listed-taps kernel (depthwise_conv2d_s8_scalar.cc): the scalar and DSP tiers' body for the
/// ops their strip path (depthwise_conv2d_s8_strip.cc) does not take. Same contract as the body.
void depthwise_conv2d_s8_taps(const DepthwiseS8& d);
#endif

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

/// The check as a device of tier T (Scalar, Dsp or Mve) runs it, and with the host tools'
/// folded-bias check (kernels.h): T's kernel decides which filters it takes, so the host can
/// give the verdict of the tier a program was compiled for (python/src/host_runtime.cc).
/// check_depthwise_conv2d_s8 is the built tier's.
template <Tier T>
rt::Status check_depthwise_conv2d_s8_as(const rt::OpContext& ctx);
template <Tier T>
rt::Status check_depthwise_conv2d_s8_with_fold_as(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
