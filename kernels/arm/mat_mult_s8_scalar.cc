//===- mat_mult_s8_scalar.cc - mat_mult_s8 for Thumb-2 without SIMD -------===//
//
// 2 rows x 2 columns per step: each loaded byte feeds two multiply-accumulates (8 loads and
// MLAs per 4 MACs instead of 12). Cortex-M0/M3 and the host.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR

#include "kernels/arm/mat_mult_s8.h"
#include "kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {

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
      uint32_t a00 = static_cast<uint32_t>(m.bias[c]), a01 = static_cast<uint32_t>(m.bias[c + 1]);
      uint32_t a10 = a00, a11 = a01;
      for (int32_t k = 0; k < d; ++k) {
        const int32_t x0 = l0[k], x1 = l1[k], y0 = w0[k], y1 = w1[k];
        a00 += static_cast<uint32_t>(x0 * y0);
        a01 += static_cast<uint32_t>(x0 * y1);
        a10 += static_cast<uint32_t>(x1 * y0);
        a11 += static_cast<uint32_t>(x1 * y1);
      }
      o0[c] = requantize_s8(static_cast<int32_t>(a00), m.multiplier[c], m.shift[c], m.output_zp, m.act_min, m.act_max);
      o0[c + 1] = requantize_s8(static_cast<int32_t>(a01), m.multiplier[c + 1], m.shift[c + 1], m.output_zp, m.act_min, m.act_max);
      o1[c] = requantize_s8(static_cast<int32_t>(a10), m.multiplier[c], m.shift[c], m.output_zp, m.act_min, m.act_max);
      o1[c + 1] = requantize_s8(static_cast<int32_t>(a11), m.multiplier[c + 1], m.shift[c + 1], m.output_zp, m.act_min, m.act_max);
    }
    for (; c < m.cols; ++c) {
      const int8_t* w0 = m.rhs + static_cast<size_t>(c) * d;
      uint32_t a0 = static_cast<uint32_t>(m.bias[c]), a1 = a0;
      for (int32_t k = 0; k < d; ++k) {
        const int32_t y = w0[k];
        a0 += static_cast<uint32_t>(l0[k] * y);
        a1 += static_cast<uint32_t>(l1[k] * y);
      }
      o0[c] = requantize_s8(static_cast<int32_t>(a0), m.multiplier[c], m.shift[c], m.output_zp, m.act_min, m.act_max);
      o1[c] = requantize_s8(static_cast<int32_t>(a1), m.multiplier[c], m.shift[c], m.output_zp, m.act_min, m.act_max);
    }
  }
  for (; r < m.rows; ++r) {
    const int8_t* l0 = m.lhs + static_cast<size_t>(r) * m.lhs_stride;
    int8_t* o0 = m.out + static_cast<size_t>(r) * m.out_stride;
    int32_t c = 0;
    for (; c + 2 <= m.cols; c += 2) {
      const int8_t* w0 = m.rhs + static_cast<size_t>(c) * d;
      const int8_t* w1 = w0 + d;
      uint32_t a0 = static_cast<uint32_t>(m.bias[c]), a1 = static_cast<uint32_t>(m.bias[c + 1]);
      for (int32_t k = 0; k < d; ++k) {
        const int32_t x = l0[k];
        a0 += static_cast<uint32_t>(x * w0[k]);
        a1 += static_cast<uint32_t>(x * w1[k]);
      }
      o0[c] = requantize_s8(static_cast<int32_t>(a0), m.multiplier[c], m.shift[c], m.output_zp, m.act_min, m.act_max);
      o0[c + 1] = requantize_s8(static_cast<int32_t>(a1), m.multiplier[c + 1], m.shift[c + 1], m.output_zp, m.act_min, m.act_max);
    }
    for (; c < m.cols; ++c) {
      const int8_t* w0 = m.rhs + static_cast<size_t>(c) * d;
      uint32_t a0 = static_cast<uint32_t>(m.bias[c]);
      for (int32_t k = 0; k < d; ++k) a0 += static_cast<uint32_t>(l0[k] * w0[k]);
      o0[c] = requantize_s8(static_cast<int32_t>(a0), m.multiplier[c], m.shift[c], m.output_zp, m.act_min, m.act_max);
    }
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR
