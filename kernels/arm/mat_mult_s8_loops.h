//===- mat_mult_s8_loops.h - The scalar and DSP mat_mult_s8 around its blocks -*- C++ -*-===//
//
// The loops the scalar and DSP tiers run around their register blocks, written once: the
// tier's wider column blocks first (kWide, which returns the first column it left), then
// column pairs two rows at a time (kDot2x2), a last single column (kDot1x1), and an odd last
// row four columns at a time (kDot1x4), unless the tier has its own (kLastRow). Columns are
// the outer loop: a column pair's bias and requantization constants are computed once for all
// rows. The blocks are the tier's functions, passed as template arguments so that they inline
// into its one mat_mult_s8:
//   Acc2x2 dot_2x2(l0, l1, w0, w1, depth, b0, b1)       fields a00, a01, a10, a11
//   Acc1x4 dot_1x4(l0, w0, depth, const int32_t* bias)  fields a0..a3
//   Acc dot_1x1(l0, w0, depth, int32_t bias)
//   void last_row(const MatMultS8&)                     the odd last row, all of it
// with int32_t or uint32_t accumulators (both wrap modulo 2^32).

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/arm/mat_mult_s8.h"
#include "ember/kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {

// mat_mult_s8's arguments as a local copy, not reads through the MatMultS8&: the int8 output
// stores may alias any memory, so the compiler would reload every field after each store.
struct MatMultLocals {
  const int8_t* lhs;
  const int8_t* rhs;
  int32_t rows, cols, d;
  size_t lhs_stride, out_stride;
  const int32_t* bias;
  const int32_t* mult;
  const int32_t* shift;
  int8_t* out;
  OutputClamp oc;
};

// Always inline, as when each tier wrote it out: left to GCC, the scalar tier's frame grows by
// 8 bytes and its column triples take more instructions.
template <typename Acc>
__attribute__((always_inline)) inline int8_t out_s8(const OutputClamp& oc, const ChannelRequant& q, Acc acc) {
  return clamp_output(oc, requantize_value(q, static_cast<int32_t>(acc)));
}

// What the Cortex-M3's and the DSP tier's row_groups (an odd last row's four-column groups in
// one asm loop) read, at fixed offsets: the next group's constants and output, advanced by the
// asm as it stores each group, and the row.
struct RowGroups {
  const int32_t* mult;
  const int32_t* shift;
  int32_t zp;
  int8_t* out;
  const int32_t* bias;
  int8_t* out_end;       // one past the last group's outputs
  const int8_t* l0;
  int32_t d;
  const int8_t* passes_end;  // the DSP loop's: the end of the group's whole passes over l0
};
static_assert(sizeof(void*) != 4 || (offsetof(RowGroups, out) == 12 && offsetof(RowGroups, bias) == 16 &&
                                      offsetof(RowGroups, out_end) == 20 && offsetof(RowGroups, l0) == 24 &&
                                      offsetof(RowGroups, d) == 28 && offsetof(RowGroups, passes_end) == 32),
              "row_groups' offsets (the asm's, on 32-bit Arm)");

// Columns [k, cols) of the row l0 (outputs o0; k a multiple of 4): four at a time through
// kDot1x4, then one at a time, each output requantized in C.
template <auto kDot1x4, auto kDot1x1>
__attribute__((always_inline)) inline void row_in_c(const int8_t* l0, int8_t* o0, int32_t k, const int8_t* rhs,
                                                    int32_t cols, int32_t d, const int32_t* bias, const int32_t* mult,
                                                    const int32_t* shift, const OutputClamp& oc) {
  for (; k + 4 <= cols; k += 4) {
    const auto a = kDot1x4(l0, rhs + static_cast<size_t>(k) * d, d, bias + k);
    const decltype(a.a0) sums[4] = {a.a0, a.a1, a.a2, a.a3};  // a loop, not four inlined copies
    for (int32_t j = 0; j < 4; ++j) o0[k + j] = out_s8(oc, channel_requant(mult[k + j], shift[k + j]), sums[j]);
  }
  for (; k < cols; ++k)
    o0[k] = out_s8(oc, channel_requant(mult[k], shift[k]), kDot1x1(l0, rhs + static_cast<size_t>(k) * d, d, bias[k]));
}

// An odd last row through a tier's row_groups (void(RowGroups*, const int8_t* w0)) when the
// clamp is the whole int8 range, then kDot1x4 and the C requantization for the groups it
// leaves, and the last columns one at a time. Out of line (the tier's kLastRow), so that
// mat_mult_s8's column-pair loops keep their registers.
template <auto kRowGroups, auto kDot1x4, auto kDot1x1>
__attribute__((noinline)) void last_row_groups(const MatMultS8& m) {
  const int32_t d = m.depth, cols = m.cols;
  const int8_t* const rhs = m.rhs;
  const int32_t* const bias = m.bias;
  const int32_t* const mult = m.multiplier;
  const int32_t* const shift = m.shift;
  const int8_t* const l0 = m.lhs + static_cast<size_t>(m.rows - 1) * static_cast<size_t>(m.lhs_stride);
  int8_t* const o0 = m.out + static_cast<size_t>(m.rows - 1) * static_cast<size_t>(m.out_stride);
  const OutputClamp oc = output_clamp(m.output_zp, m.act_min, m.act_max);
  const int32_t groups_end = cols & ~3;
  int32_t k = 0;
  if (groups_end > 0 && m.act_min == -128 && m.act_max == 127) {
    RowGroups g{mult, shift, oc.zp, o0, bias, o0 + groups_end, l0, d, nullptr};
    kRowGroups(&g, rhs);
    k = static_cast<int32_t>(g.out - o0);
  }
  row_in_c<kDot1x4, kDot1x1>(l0, o0, k, rhs, cols, d, bias, mult, shift, oc);
}

// The frame of both tiers' row_groups asm (r8 the RowGroups, r12 the next group's first weight
// column, label 1 the group loop, 9 the stop): EMBER_ROW_GROUP_START starts the group's sums
// at its biases (r4-r7; advancing g->bias) and loads the row (r0), the depth (r2) and the four
// columns, depth bytes apart (r1, r9, r10, r11); EMBER_ROW_GROUP_OUTPUTS, after the sums,
// keeps the next group's first column (w3 + depth) and loads mult, shift, zp and out (r0-r3);
// EMBER_ROW_OUT_CONSTANTS(j) stops at label 9 unless output j's right = -1 - shift (r9) is in
// [1, 22], then loads its multiplier (lr) and forms its rounding constant 2^(right-1) +
// (zp << right) (r10; r11 scratch); EMBER_ROW_OUT_STORE(A, j) saturates and stores it;
// EMBER_ROW_TIE_EVEN(A, j) clears the low bit of a tie's value before the zero point (half to
// even, as EMBER_FAST_TIE); EMBER_ROW_GROUP_NEXT advances past the four outputs stored and
// loops until g->out_end.
#define EMBER_ROW_GROUP_START \
  "ldr r3, [r8, #16]\n"       \
  "ldm r3!, {r4-r7}\n"        \
  "str r3, [r8, #16]\n"       \
  "ldr r0, [r8, #24]\n"       \
  "ldr r2, [r8, #28]\n"       \
  "mov r1, r12\n"             \
  "add r9, r1, r2\n"          \
  "add r10, r9, r2\n"         \
  "add r11, r10, r2\n"
#define EMBER_ROW_GROUP_OUTPUTS \
  "mov r12, r11\n"              \
  "ldm r8, {r0-r3}\n"
#define EMBER_ROW_OUT_CONSTANTS(j) \
  "ldr r9, [r1, #4*" #j "]\n"      \
  "mvn r9, r9\n"                   \
  "sub r10, r9, #1\n"              \
  "cmp r10, #21\n"                 \
  "bhi 9f\n"                       \
  "ldr lr, [r0, #4*" #j "]\n"      \
  "mov r11, #1\n"                  \
  "lsl r10, r11, r10\n"            \
  "lsl r11, r2, r9\n"              \
  "add r10, r10, r11\n"
#define EMBER_ROW_OUT_STORE(A, j) \
  "2" #j ":\n"                    \
  "ssat " A ", #8, " A "\n"       \
  "strb " A ", [r3, #" #j "]\n"
#define EMBER_ROW_TIE_EVEN(A, j) \
  "sub " A ", " A ", r2\n"       \
  "bic " A ", " A ", #1\n"       \
  "add " A ", " A ", r2\n"       \
  "b 2" #j "b\n"
#define EMBER_ROW_GROUP_NEXT \
  "add r0, r0, #16\n"        \
  "add r1, r1, #16\n"        \
  "add r3, r3, #4\n"         \
  "stm r8, {r0-r3}\n"        \
  "ldr lr, [r8, #20]\n"      \
  "cmp r3, lr\n"             \
  "bne 1b\n"                 \
  "9:\n"

// The body of a tier's row_groups(RowGroups* g, const int8_t* w0): the group loop of the frame
// above around the tier's SUMS (from EMBER_ROW_GROUP_START's registers to label 7, leaving the
// four sums in r4-r7) and its output macros STORE(A, j) and TIE(A, j) (out of line).
#define EMBER_ROW_GROUPS(SUMS, STORE, TIE)                                                        \
  register uintptr_t r8 asm("r8") = reinterpret_cast<uintptr_t>(g);                              \
  register uintptr_t r12 asm("r12") = reinterpret_cast<uintptr_t>(w0);                           \
  asm volatile("1:\n" EMBER_ROW_GROUP_START SUMS "7:\n" EMBER_ROW_GROUP_OUTPUTS                  \
               STORE("r4", 0) STORE("r5", 1) STORE("r6", 2) STORE("r7", 3) EMBER_ROW_GROUP_NEXT   \
               ".subsection 1\n" TIE("r4", 0) TIE("r5", 1) TIE("r6", 2) TIE("r7", 3) ".previous\n" \
               : "+r"(r8), "+r"(r12)                                                               \
               :                                                                                   \
               : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r9", "r10", "r11", "lr", "cc", "memory")

// No wider blocks: column pairs from column 0.
inline int32_t no_wide_columns(const MatMultLocals&) { return 0; }

// Always inline: the instance is a template (a COMDAT function to GCC), which GCC would
// otherwise call from the tier's mat_mult_s8 rather than inline as a function called once.
template <auto kDot2x2, auto kDot1x4, auto kDot1x1, auto kWide = no_wide_columns, auto kLastRow = nullptr>
__attribute__((always_inline)) inline void mat_mult_s8_loops(const MatMultS8& m) {
  // Locals, not reads through `m`: see MatMultLocals.
  const int8_t* const lhs = m.lhs;
  const int8_t* const rhs = m.rhs;
  const int32_t rows = m.rows, cols = m.cols, d = m.depth;
  const size_t lhs_stride = static_cast<size_t>(m.lhs_stride), out_stride = static_cast<size_t>(m.out_stride);
  const int32_t* const bias = m.bias;
  const int32_t* const mult = m.multiplier;
  const int32_t* const shift = m.shift;
  int8_t* const out = m.out;
  const OutputClamp oc = output_clamp(m.output_zp, m.act_min, m.act_max);

  int32_t c = kWide(MatMultLocals{lhs, rhs, rows, cols, d, lhs_stride, out_stride, bias, mult, shift, out, oc});
  for (; rows >= 2 && c + 2 <= cols; c += 2) {
    const int8_t* w0 = rhs + static_cast<size_t>(c) * d;
    const int8_t* w1 = w0 + d;
    const int32_t b0 = bias[c], b1 = bias[c + 1];
    const ChannelRequant q0 = channel_requant(mult[c], shift[c]);
    const ChannelRequant q1 = channel_requant(mult[c + 1], shift[c + 1]);
    const int8_t* l0 = lhs;
    int8_t* o0 = out + c;
    int32_t r = 0;
    for (; r + 2 <= rows; r += 2, l0 += 2 * lhs_stride, o0 += 2 * out_stride) {
      const auto a = kDot2x2(l0, l0 + lhs_stride, w0, w1, d, b0, b1);
      o0[0] = out_s8(oc, q0, a.a00);
      o0[1] = out_s8(oc, q1, a.a01);
      o0[out_stride] = out_s8(oc, q0, a.a10);
      o0[out_stride + 1] = out_s8(oc, q1, a.a11);
    }
  }
  if (rows >= 2 && c < cols) {
    const int8_t* w0 = rhs + static_cast<size_t>(c) * d;
    const ChannelRequant q = channel_requant(mult[c], shift[c]);
    for (int32_t r = 0; r + 2 <= rows; r += 2) {
      const int8_t* l0 = lhs + r * lhs_stride;
      out[r * out_stride + c] = out_s8(oc, q, kDot1x1(l0, w0, d, bias[c]));
      out[(r + 1) * out_stride + c] = out_s8(oc, q, kDot1x1(l0 + lhs_stride, w0, d, bias[c]));
    }
  }
  if constexpr (kLastRow != nullptr) {
    if (rows & 1) kLastRow(m);
  } else if (rows & 1) {  // the last row, four columns at a time
    const int32_t r = rows - 1;
    row_in_c<kDot1x4, kDot1x1>(lhs + r * lhs_stride, out + r * out_stride, 0, rhs, cols, d, bias, mult, shift, oc);
  }
}

}  // namespace ember::kernels::arm
