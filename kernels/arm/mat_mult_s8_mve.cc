//===- mat_mult_s8_mve.cc - mat_mult_s8 with Helium -----------------------===//
//
// Four rows x one column per step: per 16 depth elements, five VLDRB and four VMLADAVA
// (64 MACs in 9 instructions); the depth tail is one zero-predicated step (VCTP), whose
// inactive lanes load zeros and so add nothing. The four accumulators share the column's
// multiplier, so they requantize as one vector and leave with one scattered byte store.
// Leftover rows go one row x four columns (the row loaded once, per-lane multipliers).
// Cortex-M55/M85.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include "kernels/arm/mat_mult_s8.h"
#include "kernels/arm/primitives_mve.h"

namespace ember::kernels::arm {

namespace {

void rows_x4(const MatMultS8& m, const int8_t* l0, int8_t* out) {
  const int32_t d = m.depth, ls = m.lhs_stride;
  const int8_t* l1 = l0 + ls;
  const int8_t* l2 = l1 + ls;
  const int8_t* l3 = l2 + ls;
  const int32_t blocks = d >> 4, tail = d & 15;
  const mve_pred16_t tail_p = vctp8q(static_cast<uint32_t>(tail));
  const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<uint32_t>(m.out_stride));
  for (int32_t c = 0; c < m.cols; ++c) {
    const int8_t* w = m.rhs + static_cast<size_t>(c) * d;
    const int8_t *p0 = l0, *p1 = l1, *p2 = l2, *p3 = l3;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < blocks; ++i) {
      const int8x16_t wv = vldrbq_s8(w);
      a0 = vmladavaq_s8(a0, vldrbq_s8(p0), wv);
      a1 = vmladavaq_s8(a1, vldrbq_s8(p1), wv);
      a2 = vmladavaq_s8(a2, vldrbq_s8(p2), wv);
      a3 = vmladavaq_s8(a3, vldrbq_s8(p3), wv);
      w += 16, p0 += 16, p1 += 16, p2 += 16, p3 += 16;
    }
    if (tail) {
      const int8x16_t wv = vldrbq_z_s8(w, tail_p);
      a0 = vmladavaq_s8(a0, vldrbq_z_s8(p0, tail_p), wv);
      a1 = vmladavaq_s8(a1, vldrbq_z_s8(p1, tail_p), wv);
      a2 = vmladavaq_s8(a2, vldrbq_z_s8(p2, tail_p), wv);
      a3 = vmladavaq_s8(a3, vldrbq_z_s8(p3, tail_p), wv);
    }
    const int32_t b = m.bias[c], shift = m.shift[c];
    int32x4_t acc = vdupq_n_s32(a0);
    acc = vsetq_lane_s32(a1, acc, 1);
    acc = vsetq_lane_s32(a2, acc, 2);
    acc = vsetq_lane_s32(a3, acc, 3);
    acc = vaddq_n_s32(acc, b);
    const int32x4_t rounded = shift < 0 ? requantize_mve(acc, m.multiplier[c], shift)
                                        : requantize_mve_any(acc, vdupq_n_s32(m.multiplier[c]), vdupq_n_s32(shift));
    vstrbq_scatter_offset_s32(out + c, offsets, offset_clamp_mve(rounded, m.output_zp, m.act_min, m.act_max));
  }
}

// One row against four columns at a time (per-lane requantization), then single columns.
void row_x4(const MatMultS8& m, const int8_t* l0, int8_t* out) {
  const int32_t d = m.depth;
  const int32_t blocks = d >> 4, tail = d & 15;
  const mve_pred16_t tail_p = vctp8q(static_cast<uint32_t>(tail));
  int32_t c = 0;
  for (; c + 4 <= m.cols; c += 4) {
    const int8_t* w0 = m.rhs + static_cast<size_t>(c) * d;
    const int8_t* w1 = w0 + d;
    const int8_t* w2 = w1 + d;
    const int8_t* w3 = w2 + d;
    const int8_t* p = l0;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < blocks; ++i) {
      const int8x16_t x = vldrbq_s8(p);
      a0 = vmladavaq_s8(a0, x, vldrbq_s8(w0));
      a1 = vmladavaq_s8(a1, x, vldrbq_s8(w1));
      a2 = vmladavaq_s8(a2, x, vldrbq_s8(w2));
      a3 = vmladavaq_s8(a3, x, vldrbq_s8(w3));
      p += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16;
    }
    if (tail) {
      const int8x16_t x = vldrbq_z_s8(p, tail_p);
      a0 = vmladavaq_s8(a0, x, vldrbq_z_s8(w0, tail_p));
      a1 = vmladavaq_s8(a1, x, vldrbq_z_s8(w1, tail_p));
      a2 = vmladavaq_s8(a2, x, vldrbq_z_s8(w2, tail_p));
      a3 = vmladavaq_s8(a3, x, vldrbq_z_s8(w3, tail_p));
    }
    int32x4_t acc = vdupq_n_s32(a0);
    acc = vsetq_lane_s32(a1, acc, 1);
    acc = vsetq_lane_s32(a2, acc, 2);
    acc = vsetq_lane_s32(a3, acc, 3);
    acc = vaddq_s32(acc, vldrwq_s32(m.bias + c));
    const int32x4_t shift = vldrwq_s32(m.shift + c), mult = vldrwq_s32(m.multiplier + c);
    const int32x4_t rounded = vmaxvq_s32(INT32_MIN, shift) < 0 ? requantize_mve(acc, mult, shift)
                                                               : requantize_mve_any(acc, mult, shift);
    vstrbq_s32(out + c, offset_clamp_mve(rounded, m.output_zp, m.act_min, m.act_max));
  }
  for (; c < m.cols; ++c) {
    const int8_t* w = m.rhs + static_cast<size_t>(c) * d;
    const int8_t* p = l0;
    int32_t a = 0;
    for (int32_t i = 0; i < blocks; ++i, p += 16, w += 16) a = vmladavaq_s8(a, vldrbq_s8(p), vldrbq_s8(w));
    if (tail) a = vmladavaq_s8(a, vldrbq_z_s8(p, tail_p), vldrbq_z_s8(w, tail_p));
    a = static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(m.bias[c]));
    out[c] = requantize_s8(a, m.multiplier[c], m.shift[c], m.output_zp, m.act_min, m.act_max);
  }
}

}  // namespace

void mat_mult_s8(const MatMultS8& m) {
  int32_t r = 0;
  for (; r + 4 <= m.rows; r += 4)
    rows_x4(m, m.lhs + static_cast<size_t>(r) * m.lhs_stride, m.out + static_cast<size_t>(r) * m.out_stride);
  for (; r < m.rows; ++r)
    row_x4(m, m.lhs + static_cast<size_t>(r) * m.lhs_stride, m.out + static_cast<size_t>(r) * m.out_stride);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
