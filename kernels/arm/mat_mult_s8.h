//===- mat_mult_s8.h - The int8 matrix product under conv and linear -*- C++ -*-===//
//
// out[r, c] = requantize(bias[c] + sum_k lhs[r, k] * rhs[c, k]) for r < rows, c < cols: the
// core that pointwise convolution (rows = pixels), im2col convolution (rows = im2col rows) and
// fully connected layers (rows = batches) share, like CMSIS-NN's arm_nn_mat_mult_nt_t_s8. The
// input zero point is not applied here: `bias` is the folded bias
// bias[c] - input_zp * sum_k rhs[c, k] (fold_input_zero_point in kernels/arm/fold.h), which
// gives the same accumulator modulo 2^32 as the portable kernels. One implementation per tier
// (mat_mult_s8_{scalar,dsp,mve}.cc); exactly one is compiled.

#pragma once

#include <stdint.h>

#include "kernels/arm/tier.h"

namespace ember::kernels::arm {

struct MatMultS8 {
  const int8_t* lhs;   // row r at lhs + r * lhs_stride, depth bytes each
  int32_t rows;
  int32_t lhs_stride;
  const int8_t* rhs;   // [cols, depth], contiguous (OHWI filters and [O, K] weights are)
  int32_t cols;
  int32_t depth;
  const int32_t* bias;        // [cols], folded, never null
  const int32_t* multiplier;  // [cols]
  const int32_t* shift;       // [cols]
  int32_t output_zp, act_min, act_max;
  int8_t* out;         // row r at out + r * out_stride, cols bytes each
  int32_t out_stride;
};

/// Rows a tier's kernel takes per step; im2col convolution fills this many rows of scratch.
/// MVE: two of its three-row register blocks.
inline constexpr int32_t mat_mult_s8_block_rows(Tier tier) { return tier == Tier::Mve ? 6 : 2; }

void mat_mult_s8(const MatMultS8& m);

}  // namespace ember::kernels::arm
