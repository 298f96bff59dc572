//===- mat_mult_s8_dsp.cc - mat_mult_s8 with the DSP extension ------------===//
//
// 2 rows x 2 columns per step, four depth elements at a time: one LDR and two SXTB16 per
// operand word, then eight SMLADs for 16 MACs. Both operands are split into the same
// (even, odd) lane pairs, so neither the weights nor the activations need re-ordering.
// Cortex-M4/M7/M33.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_DSP

#include "kernels/arm/mat_mult_s8.h"
#include "kernels/arm/primitives_dsp.h"

namespace ember::kernels::arm {

namespace {

inline int8_t requant(const MatMultS8& m, int32_t c, int32_t acc) {
  return requantize_s8(acc, m.multiplier[c], m.shift[c], m.output_zp, m.act_min, m.act_max);
}

// One row against two columns; the row's words are split once and used twice.
void row_x2(const MatMultS8& m, const int8_t* l0, int8_t* o0, int32_t c) {
  const int32_t d = m.depth;
  const int8_t* w0 = m.rhs + static_cast<size_t>(c) * d;
  const int8_t* w1 = w0 + d;
  int32_t a0 = m.bias[c], a1 = m.bias[c + 1];
  int32_t k = 0;
  for (; k + 4 <= d; k += 4) {
    const Pairs x = split_s8(read_u32(l0 + k));
    a0 = dot4(x, split_s8(read_u32(w0 + k)), a0);
    a1 = dot4(x, split_s8(read_u32(w1 + k)), a1);
  }
  for (; k < d; ++k) {
    a0 = static_cast<int32_t>(static_cast<uint32_t>(a0) + static_cast<uint32_t>(l0[k] * w0[k]));
    a1 = static_cast<int32_t>(static_cast<uint32_t>(a1) + static_cast<uint32_t>(l0[k] * w1[k]));
  }
  o0[c] = requant(m, c, a0);
  o0[c + 1] = requant(m, c + 1, a1);
}

int32_t dot(const int8_t* a, const int8_t* b, int32_t d, int32_t acc) {
  int32_t k = 0;
  for (; k + 4 <= d; k += 4) acc = dot4(split_s8(read_u32(a + k)), split_s8(read_u32(b + k)), acc);
  for (; k < d; ++k) acc = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(a[k] * b[k]));
  return acc;
}

}  // namespace

void mat_mult_s8(const MatMultS8& m) {
  const int32_t d = m.depth;
  int32_t r = 0;
  for (; r + 2 <= m.rows; r += 2) {
    const int8_t* l0 = m.lhs + static_cast<size_t>(r) * m.lhs_stride;
    const int8_t* l1 = l0 + m.lhs_stride;
    int8_t* o0 = m.out + static_cast<size_t>(r) * m.out_stride;
    int8_t* o1 = o0 + m.out_stride;
    int32_t c = 0;
    for (; c + 2 <= m.cols; c += 2) {
      const int8_t* w0 = m.rhs + static_cast<size_t>(c) * d;
      const int8_t* w1 = w0 + d;
      int32_t a00 = m.bias[c], a01 = m.bias[c + 1], a10 = a00, a11 = a01;
      int32_t k = 0;
      for (; k + 4 <= d; k += 4) {
        const Pairs x0 = split_s8(read_u32(l0 + k));
        const Pairs x1 = split_s8(read_u32(l1 + k));
        const Pairs y0 = split_s8(read_u32(w0 + k));
        const Pairs y1 = split_s8(read_u32(w1 + k));
        a00 = dot4(x0, y0, a00);
        a01 = dot4(x0, y1, a01);
        a10 = dot4(x1, y0, a10);
        a11 = dot4(x1, y1, a11);
      }
      for (; k < d; ++k) {
        const int32_t x0 = l0[k], x1 = l1[k], y0 = w0[k], y1 = w1[k];
        a00 = static_cast<int32_t>(static_cast<uint32_t>(a00) + static_cast<uint32_t>(x0 * y0));
        a01 = static_cast<int32_t>(static_cast<uint32_t>(a01) + static_cast<uint32_t>(x0 * y1));
        a10 = static_cast<int32_t>(static_cast<uint32_t>(a10) + static_cast<uint32_t>(x1 * y0));
        a11 = static_cast<int32_t>(static_cast<uint32_t>(a11) + static_cast<uint32_t>(x1 * y1));
      }
      o0[c] = requant(m, c, a00);
      o0[c + 1] = requant(m, c + 1, a01);
      o1[c] = requant(m, c, a10);
      o1[c + 1] = requant(m, c + 1, a11);
    }
    for (; c < m.cols; ++c) {
      const int8_t* w0 = m.rhs + static_cast<size_t>(c) * d;
      o0[c] = requant(m, c, dot(l0, w0, d, m.bias[c]));
      o1[c] = requant(m, c, dot(l1, w0, d, m.bias[c]));
    }
  }
  for (; r < m.rows; ++r) {
    const int8_t* l0 = m.lhs + static_cast<size_t>(r) * m.lhs_stride;
    int8_t* o0 = m.out + static_cast<size_t>(r) * m.out_stride;
    int32_t c = 0;
    for (; c + 2 <= m.cols; c += 2) row_x2(m, l0, o0, c);
    for (; c < m.cols; ++c) o0[c] = requant(m, c, dot(l0, m.rhs + static_cast<size_t>(c) * d, d, m.bias[c]));
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_DSP
