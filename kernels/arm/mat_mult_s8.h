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
#include <string.h>

#include "ember/kernels/arm/tier.h"

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
  int32_t* pack;       // DSP tier: mat_mult_s8_pack_bytes of word-aligned scratch, or null
  size_t pack_bytes;   // its size (the shallow path's table takes as many columns as it holds)
};

/// Whether the DSP tier's shallow path (mat_mult_s8_dsp.cc) has a loop for `depth`: the
/// pointwise depths 8, 16, 32 and 64, and the first layers' 27 (3x3 RGB) and 40 (kws's 10x4).
inline constexpr bool mat_mult_s8_shallow_depth(int32_t depth) {
  return depth == 8 || depth == 16 || depth == 27 || depth == 32 || depth == 40 || depth == 64;
}

/// The DSP tier's shallow path takes its columns in groups of up to this many: each pair of
/// rows it splits serves them all. More columns share each split row further, but the table
/// is the conv's scratch and can sit at the plan's peak (kws's pointwise layers), so a
/// RAM-bound plan gets a table of 4 (mat_mult_s8_pack_bytes with `least`).
inline constexpr int32_t kShallowColumns = 8;
inline constexpr int32_t kShallowColumnsLeast = 4;

/// Words of one column in the shallow path's table: its folded bias, requantization constants
/// (4) and split weights (two words per four depth elements, a partial last four zero-filled).
inline constexpr size_t mat_mult_s8_shallow_column_words(int32_t depth) {
  return 5 + 2 * ((static_cast<size_t>(depth) + 3) / 4);
}

/// The DSP tier's table for its shallow path, `columns` columns; 0 for a depth it has no loop
/// for.
inline constexpr size_t mat_mult_s8_shallow_bytes(int32_t depth, int32_t columns) {
  return mat_mult_s8_shallow_depth(depth) ? 4 * static_cast<size_t>(columns) * mat_mult_s8_shallow_column_words(depth)
                                          : 0;
}

/// Scratch bytes of the DSP tier's product (MatMultS8::pack), the larger of two uses: the four
/// rows of `depth` it packs as word pairs, two int8 activations per word, from depth 24 (below
/// it packing and the 4 x 2 block's set-up cost more than the block saves); and its
/// shallow path's table (mat_mult_s8_shallow_bytes: kShallowColumns columns, or with `least`
/// kShallowColumnsLeast). 0 on the other tiers. Optional: without it (a null MatMultS8::pack)
/// the DSP tier runs its 2 x 2 SMLAD blocks.
inline constexpr size_t mat_mult_s8_pack_bytes(Tier tier, int32_t depth, bool least = false) {
  if (tier != Tier::Dsp) return 0;
  const size_t packed = depth >= 24 ? 8 * static_cast<size_t>(depth) : 0;
  const size_t shallow = mat_mult_s8_shallow_bytes(depth, least ? kShallowColumnsLeast : kShallowColumns);
  return packed > shallow ? packed : shallow;
}

/// Rows an im2col convolution gathers into scratch per mat_mult_s8 call: as many as its
/// scratch holds, from the least to the most of these. MVE: two to four of its three-row
/// register blocks; scalar and DSP: two to four of their two-row steps. More rows spread each
/// call's set-up and each column's requantization constants, but the scratch can sit at the
/// plan's peak (ic's), so the compiler gives RAM-bound plans the least
/// (compiler/passes/pack_weights.cc).
/// The DSP tier's shallow path wants at least 16 rows per product, so an im2col conv of depth
/// 27 or 40 (vww's, ic's and kws's first layers) gathers 16. At depth 16 (ic's stride-2
/// shortcuts) 16 rows through the shallow path cost more than 8 through the 2 x 2 blocks, so
/// other depths keep 8.
inline constexpr int32_t mat_mult_s8_block_rows(Tier tier, int32_t depth) {
  return tier == Tier::Mve ? 12 : (tier == Tier::Dsp && (depth == 27 || depth == 40) ? 16 : 8);
}
inline constexpr int32_t mat_mult_s8_min_block_rows(Tier tier) { return tier == Tier::Mve ? 6 : 4; }

void mat_mult_s8(const MatMultS8& m);

// The runs an im2col gather copies into the matrix rows (a window row, or one pixel's
// channels: usually 3 to a few hundred bytes) and the padding it fills with input_zp. On MVE a
// tail-predicated loop moves 16 bytes per turn with no call; the C library's memcpy/memset
// cost more than the copy itself at these sizes. Other tiers use the library.
#if EMBER_TIER == EMBER_TIER_MVE
inline void im2col_copy_s8(int8_t* dst, const int8_t* src, int32_t n) {
  if (n <= 0) return;
  __asm__ volatile(
      "dlstp.8 lr, %[n]\n"
      "1:\n"
      "vldrb.8 q0, [%[src]], #16\n"
      "vstrb.8 q0, [%[dst]], #16\n"
      "letp lr, 1b\n"
      : [dst] "+r"(dst), [src] "+r"(src)
      : [n] "r"(n)
      : "q0", "lr", "memory");
}
inline void im2col_fill_s8(int8_t* dst, int8_t value, int32_t n) {
  if (n <= 0) return;
  __asm__ volatile(
      "vdup.8 q0, %[v]\n"
      "dlstp.8 lr, %[n]\n"
      "1:\n"
      "vstrb.8 q0, [%[dst]], #16\n"
      "letp lr, 1b\n"
      : [dst] "+r"(dst)
      : [n] "r"(n), [v] "r"(static_cast<int32_t>(value))
      : "q0", "lr", "memory");
}
#else
inline void im2col_copy_s8(int8_t* dst, const int8_t* src, int32_t n) { memcpy(dst, src, static_cast<size_t>(n)); }
inline void im2col_fill_s8(int8_t* dst, int8_t value, int32_t n) { memset(dst, value, static_cast<size_t>(n)); }
#endif

}  // namespace ember::kernels::arm
