//===- mat_mult_s8_scalar.cc - mat_mult_s8 for Thumb-2 without SIMD -------===//
//
// 2 rows x 3 columns per step (on Cortex-M3 an assembly loop, 47 instructions per 24 MACs),
// then 2 x 2 for the remaining columns (C, unrolled by four depth elements without
// reassociation: 38 instructions per 16 MACs), and an odd last row 1 row x 4 columns. Each
// loaded byte feeds two or three MLAs. Columns are the outer loop: the columns' bias and
// requantization constants are computed once for all rows. Cortex-M0/M3 and the host.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR

#include "kernels/arm/mat_mult_s8.h"
#include "kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {
namespace {

inline uint32_t mac(uint32_t acc, int32_t x, int32_t y) { return acc + static_cast<uint32_t>(x * y); }

struct Acc2x2 {
  uint32_t a00, a01, a10, a11;
};

// Rows l0, l1 against columns w0, w1 over d depth elements, on top of (b0, b1).
__attribute__((optimize("no-tree-reassoc"))) inline Acc2x2 dot_2x2(const int8_t* l0, const int8_t* l1, const int8_t* w0, const int8_t* w1, int32_t d,
                      int32_t b0, int32_t b1) {
  uint32_t a00 = static_cast<uint32_t>(b0), a01 = static_cast<uint32_t>(b1), a10 = a00, a11 = a01;
  const int8_t* const end4 = l0 + (d & ~3);
  while (l0 != end4) {
#pragma GCC unroll 4
    for (int32_t k = 0; k < 4; ++k) {
      const int32_t x0 = l0[k], x1 = l1[k], y0 = w0[k];
      a00 = mac(a00, x0, y0);
      a10 = mac(a10, x1, y0);
      const int32_t y1 = w1[k];
      a01 = mac(a01, x0, y1);
      a11 = mac(a11, x1, y1);
    }
    l0 += 4, l1 += 4, w0 += 4, w1 += 4;
  }
  for (int32_t k = 0; k < (d & 3); ++k) {
    const int32_t x0 = l0[k], x1 = l1[k], y0 = w0[k], y1 = w1[k];
    a00 = mac(a00, x0, y0);
    a01 = mac(a01, x0, y1);
    a10 = mac(a10, x1, y0);
    a11 = mac(a11, x1, y1);
  }
  return Acc2x2{a00, a01, a10, a11};
}

struct Acc2x3 {
  uint32_t a[2][3];
};

#if defined(__ARM_ARCH_7M__)
// Cortex-M3: 2 rows x 3 columns, four depth elements per pass in assembly: 20 LDRSB (at
// immediate offsets; the last with post-increment) and 24 MLA, plus the end read from the
// stack, compare and branch: 47 instructions per 24 MACs. Six accumulators, five pointers and
// three loaded values take all 14 registers; GCC's own schedule of this loop spills.
#define EMBER_MM_K(k)                            \
  "ldrsb %[x0], [%[l0], #" #k "]\n\t"           \
  "ldrsb %[x1], [%[l1], #" #k "]\n\t"           \
  "ldrsb %[y], [%[w0], #" #k "]\n\t"            \
  "mla   %[a00], %[x0], %[y], %[a00]\n\t"       \
  "mla   %[a10], %[x1], %[y], %[a10]\n\t"       \
  "ldrsb %[y], [%[w1], #" #k "]\n\t"            \
  "mla   %[a01], %[x0], %[y], %[a01]\n\t"       \
  "mla   %[a11], %[x1], %[y], %[a11]\n\t"       \
  "ldrsb %[y], [%[w2], #" #k "]\n\t"            \
  "mla   %[a02], %[x0], %[y], %[a02]\n\t"       \
  "mla   %[a12], %[x1], %[y], %[a12]\n\t"
#define EMBER_MM_K0_POST                         \
  "ldrsb %[x0], [%[l0]], #4\n\t"                \
  "ldrsb %[x1], [%[l1]], #4\n\t"                \
  "ldrsb %[y], [%[w0]], #4\n\t"                 \
  "mla   %[a00], %[x0], %[y], %[a00]\n\t"       \
  "mla   %[a10], %[x1], %[y], %[a10]\n\t"       \
  "ldrsb %[y], [%[w1]], #4\n\t"                 \
  "mla   %[a01], %[x0], %[y], %[a01]\n\t"       \
  "mla   %[a11], %[x1], %[y], %[a11]\n\t"       \
  "ldrsb %[y], [%[w2]], #4\n\t"                 \
  "mla   %[a02], %[x0], %[y], %[a02]\n\t"       \
  "mla   %[a12], %[x1], %[y], %[a12]\n\t"

inline void dot_2x3_body(const int8_t*& l0, const int8_t*& l1, const int8_t*& w0, const int8_t*& w1,
                         const int8_t*& w2, int32_t n4, uint32_t (&a)[2][3]) {
  if (n4 <= 0) return;
  const int8_t* const end4 = l0 + 4 * n4;
  uint32_t a00 = a[0][0], a01 = a[0][1], a02 = a[0][2], a10 = a[1][0], a11 = a[1][1], a12 = a[1][2];
  int32_t x0, x1, y;
  asm volatile(
      "1:\n\t"
      EMBER_MM_K(1)
      EMBER_MM_K(2)
      EMBER_MM_K(3)
      EMBER_MM_K0_POST
      "ldr   %[y], %[end]\n\t"
      "cmp   %[l0], %[y]\n\t"
      "bne   1b\n\t"
      : [a00] "+r"(a00), [a01] "+r"(a01), [a02] "+r"(a02), [a10] "+r"(a10), [a11] "+r"(a11), [a12] "+r"(a12),
        [l0] "+r"(l0), [l1] "+r"(l1), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [x0] "=&r"(x0),
        [x1] "=&r"(x1), [y] "=&r"(y)
      : [end] "m"(end4)
      : "cc", "memory");
  a[0][0] = a00, a[0][1] = a01, a[0][2] = a02, a[1][0] = a10, a[1][1] = a11, a[1][2] = a12;
}

#undef EMBER_MM_K
#undef EMBER_MM_K0_POST
#else
// Other cores and the host: the same products in C (the host tests check this form, QEMU's
// Cortex-M3 the assembly one).
__attribute__((optimize("no-tree-reassoc"))) inline void dot_2x3_body(const int8_t*& l0, const int8_t*& l1,
                                                                       const int8_t*& w0, const int8_t*& w1,
                                                                       const int8_t*& w2, int32_t n4,
                                                                       uint32_t (&a)[2][3]) {
  for (int32_t i = 0; i < 4 * n4; ++i, ++l0, ++l1, ++w0, ++w1, ++w2) {
    const int32_t x0 = *l0, x1 = *l1, y0 = *w0, y1 = *w1, y2 = *w2;
    a[0][0] = mac(a[0][0], x0, y0), a[0][1] = mac(a[0][1], x0, y1), a[0][2] = mac(a[0][2], x0, y2);
    a[1][0] = mac(a[1][0], x1, y0), a[1][1] = mac(a[1][1], x1, y1), a[1][2] = mac(a[1][2], x1, y2);
  }
}
#endif

// Rows l0, l1 against columns w0 and the next two (d bytes apart), on top of their biases.
inline Acc2x3 dot_2x3(const int8_t* l0, const int8_t* l1, const int8_t* w0, int32_t d, const int32_t* b) {
  Acc2x3 r;
  for (int32_t j = 0; j < 3; ++j) r.a[0][j] = r.a[1][j] = static_cast<uint32_t>(b[j]);
  const int8_t* w1 = w0 + d;
  const int8_t* w2 = w1 + d;
  dot_2x3_body(l0, l1, w0, w1, w2, d >> 2, r.a);
  for (int32_t k = 0; k < (d & 3); ++k) {
    const int32_t x0 = l0[k], x1 = l1[k], y0 = w0[k], y1 = w1[k], y2 = w2[k];
    r.a[0][0] = mac(r.a[0][0], x0, y0), r.a[0][1] = mac(r.a[0][1], x0, y1), r.a[0][2] = mac(r.a[0][2], x0, y2);
    r.a[1][0] = mac(r.a[1][0], x1, y0), r.a[1][1] = mac(r.a[1][1], x1, y1), r.a[1][2] = mac(r.a[1][2], x1, y2);
  }
  return r;
}

struct Acc1x4 {
  uint32_t a0, a1, a2, a3;
};

// One row against four columns (w0 and the next three, d bytes apart), on top of their
// biases: the row of a batch-1 linear layer, and the odd last row of a matrix. Each loaded
// activation feeds four MLAs.
__attribute__((optimize("no-tree-reassoc"))) inline Acc1x4 dot_1x4(const int8_t* l0, const int8_t* w0, int32_t d,
                                                                    const int32_t* b) {
  uint32_t a0 = static_cast<uint32_t>(b[0]), a1 = static_cast<uint32_t>(b[1]);
  uint32_t a2 = static_cast<uint32_t>(b[2]), a3 = static_cast<uint32_t>(b[3]);
  const int8_t* w1 = w0 + d;
  const int8_t* w2 = w1 + d;
  const int8_t* w3 = w2 + d;
  const int8_t* const end4 = l0 + (d & ~3);
  while (l0 != end4) {
#pragma GCC unroll 4
    for (int32_t k = 0; k < 4; ++k) {
      const int32_t x = l0[k];
      a0 = mac(a0, x, w0[k]);
      a1 = mac(a1, x, w1[k]);
      a2 = mac(a2, x, w2[k]);
      a3 = mac(a3, x, w3[k]);
    }
    l0 += 4, w0 += 4, w1 += 4, w2 += 4, w3 += 4;
  }
  for (int32_t k = 0; k < (d & 3); ++k) {
    const int32_t x = l0[k];
    a0 = mac(a0, x, w0[k]);
    a1 = mac(a1, x, w1[k]);
    a2 = mac(a2, x, w2[k]);
    a3 = mac(a3, x, w3[k]);
  }
  return Acc1x4{a0, a1, a2, a3};
}

inline uint32_t dot_1x1(const int8_t* a, const int8_t* b, int32_t d, int32_t bias) {
  uint32_t acc = static_cast<uint32_t>(bias);
  for (int32_t k = 0; k < d; ++k) acc = mac(acc, a[k], b[k]);
  return acc;
}

inline int8_t out_s8(const OutputClamp& oc, const ChannelRequant& q, uint32_t acc) {
  return clamp_output(oc, requantize_value(q, static_cast<int32_t>(acc)));
}

}  // namespace

void mat_mult_s8(const MatMultS8& m) {
  // Locals, not reads through `m`: the int8 output stores may alias any memory, so the
  // compiler would reload every field after each store.
  const int8_t* const lhs = m.lhs;
  const int8_t* const rhs = m.rhs;
  const int32_t rows = m.rows, cols = m.cols, d = m.depth;
  const size_t lhs_stride = static_cast<size_t>(m.lhs_stride), out_stride = static_cast<size_t>(m.out_stride);
  const int32_t* const bias = m.bias;
  const int32_t* const mult = m.multiplier;
  const int32_t* const shift = m.shift;
  int8_t* const out = m.out;
  const OutputClamp oc = output_clamp(m.output_zp, m.act_min, m.act_max);

  // Column triples, then pairs: one column left over would take the slow single-column
  // loop, so cols = 3n + 1 runs n - 1 triples and two pairs.
  const int32_t triples_end = cols % 3 == 1 && cols >= 4 ? cols - 4 : cols - cols % 3;
  int32_t c = 0;
  for (; rows >= 2 && c < triples_end; c += 3) {
    const int8_t* w0 = rhs + static_cast<size_t>(c) * d;
    ChannelRequant q[3];
    for (int32_t j = 0; j < 3; ++j) q[j] = channel_requant(mult[c + j], shift[c + j]);
    const int8_t* l0 = lhs;
    int8_t* o0 = out + c;
    for (int32_t r = 0; r + 2 <= rows; r += 2, l0 += 2 * lhs_stride, o0 += 2 * out_stride) {
      const Acc2x3 a = dot_2x3(l0, l0 + lhs_stride, w0, d, bias + c);
      for (int32_t j = 0; j < 3; ++j) {
        o0[j] = out_s8(oc, q[j], a.a[0][j]);
        o0[out_stride + j] = out_s8(oc, q[j], a.a[1][j]);
      }
    }
  }
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
      const Acc2x2 a = dot_2x2(l0, l0 + lhs_stride, w0, w1, d, b0, b1);
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
      out[r * out_stride + c] = out_s8(oc, q, dot_1x1(l0, w0, d, bias[c]));
      out[(r + 1) * out_stride + c] = out_s8(oc, q, dot_1x1(l0 + lhs_stride, w0, d, bias[c]));
    }
  }
  if (rows & 1) {  // the last row, four columns at a time
    const int32_t r = rows - 1;
    const int8_t* l0 = lhs + r * lhs_stride;
    int8_t* o0 = out + r * out_stride;
    int32_t k = 0;
    for (; k + 4 <= cols; k += 4) {
      const Acc1x4 a = dot_1x4(l0, rhs + static_cast<size_t>(k) * d, d, bias + k);
      o0[k] = out_s8(oc, channel_requant(mult[k], shift[k]), a.a0);
      o0[k + 1] = out_s8(oc, channel_requant(mult[k + 1], shift[k + 1]), a.a1);
      o0[k + 2] = out_s8(oc, channel_requant(mult[k + 2], shift[k + 2]), a.a2);
      o0[k + 3] = out_s8(oc, channel_requant(mult[k + 3], shift[k + 3]), a.a3);
    }
    for (; k < cols; ++k)
      o0[k] = out_s8(oc, channel_requant(mult[k], shift[k]), dot_1x1(l0, rhs + static_cast<size_t>(k) * d, d, bias[k]));
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR
