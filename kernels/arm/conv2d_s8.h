//===- conv2d_s8.h - Optimized int8 2-D convolution -------------*- C++ -*-===//
//
// The same op as kernels/portable/conv2d_s8.h (its numerics, bit for bit) for the built tier.
// Shape dispatch, as CMSIS-NN's arm_convolve_wrapper_s8:
//   pointwise  1x1 filter, no padding, groups 1: the input pixels are the matrix rows (row
//              stride = stride_w * C_in), no copy;
//   im2col     any other ungrouped conv, 1xN and Nx1 included: a block of output pixels (as
//              many as the scratch holds, mat_mult_s8_{min_,}block_rows(tier)) at a time is
//              gathered into the scratch as rows of KH*KW*C_in bytes (padding filled with
//              input_zp, which the folded bias cancels), then multiplied;
//   portable   grouped convs, or an op without the folded bias or with too little scratch.
// On the DSP tier both paths' products also take the first mat_mult_s8_pack_bytes of the
// scratch: four packed rows (from depth 24), or the shallow path's table (depths 8, 16, 27, 32,
// 40, 64).
// Operands: the portable ones, plus input 5 (folded bias, int32[O]) and output 1 (scratch,
// int8[conv2d_s8_scratch_bytes(...)]), see kernels/arm/operands.h.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/arm/mat_mult_s8.h"
#include "ember/kernels/arm/tier.h"
#include "ember/kernels/portable/conv_common.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

enum class Conv2dPath { Portable, Pointwise, Im2col };

inline Conv2dPath conv2d_s8_path(const Conv2dShape& s, const Conv2dGeometry& g) {
  if (s.filter_c != s.in_c) return Conv2dPath::Portable;  // grouped
  const bool inside = static_cast<int64_t>(s.out_h - 1) * g.stride_h < s.in_h &&
                      static_cast<int64_t>(s.out_w - 1) * g.stride_w < s.in_w;
  if (s.filter_h == 1 && s.filter_w == 1 && g.pad_top == 0 && g.pad_left == 0 && inside)
    return Conv2dPath::Pointwise;
  return Conv2dPath::Im2col;
}

/// Scratch bytes the conv takes on `tier` (0: none): for its fastest blocks, or with `least`
/// the least it runs with at full speed. Host-callable: the compiler sizes the scratch operand
/// with it for the target's tier. The DSP tier's packed rows (mat_mult_s8_pack_bytes) come
/// first, then an im2col conv's gathered rows; less than both runs without the packed rows,
/// and an im2col conv with less than mat_mult_s8_min_block_rows rows runs the portable kernel.
inline size_t conv2d_s8_scratch_bytes(const Conv2dShape& s, const Conv2dGeometry& g, Tier tier,
                                      bool least = false) {
  const Conv2dPath path = conv2d_s8_path(s, g);
  if (tier == Tier::Portable || path == Conv2dPath::Portable) return 0;
  const int32_t depth = s.filter_h * s.filter_w * s.in_c;
  const size_t pack = mat_mult_s8_pack_bytes(tier, depth, least);
  if (path == Conv2dPath::Pointwise) return pack;
  const int32_t rows = least ? mat_mult_s8_min_block_rows(tier) : mat_mult_s8_block_rows(tier, depth);
  return pack + static_cast<size_t>(rows) * depth;
}

/// The portable check, plus the added operands: the folded bias must equal the fold of the
/// op's own bias and filter (or the program is rejected).
rt::Status check_conv2d_s8(const rt::OpContext& ctx);
rt::Status run_conv2d_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
