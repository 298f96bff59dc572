//===- mat_mult_s8_dsp.cc - mat_mult_s8 with the DSP extension ------------===//
//
// 2 rows x 2 columns per step (an odd last row: 1 row x 4 columns), eight depth elements per
// loop pass: per four depth elements one
// LDR and two SXTB16 (the odd bytes with the ROR #8 operand) per operand word, then eight
// SMLADs for 16 MACs. Both operands are split into the same (even, odd) lane pairs, so neither
// the weights nor the activations need re-ordering. The loops around the blocks are
// mat_mult_s8_loops.h's. Cortex-M4/M7/M33.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_DSP

#include "kernels/arm/mat_mult_s8_loops.h"
#include "kernels/arm/primitives_dsp.h"

namespace ember::kernels::arm {

namespace {

inline int32_t wrap_mac(int32_t acc, int32_t x, int32_t y) {
  return static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(x * y));
}

struct Acc2x2 {
  int32_t a00, a01, a10, a11;
};

// Four depth elements of the 2x2 block: 4 LDR, 8 SXTB16, 8 SMLAD.
#define EMBER_MM_STEP_2X2                      \
  "ldr    %[x0], [%[l0]], #4\n\t"             \
  "ldr    %[x1], [%[l1]], #4\n\t"             \
  "ldr    %[y], [%[w0]], #4\n\t"              \
  "sxtb16 %[x0e], %[x0]\n\t"                  \
  "sxtb16 %[x0], %[x0], ror #8\n\t"           \
  "sxtb16 %[x1e], %[x1]\n\t"                  \
  "sxtb16 %[x1], %[x1], ror #8\n\t"           \
  "sxtb16 %[ye], %[y]\n\t"                    \
  "sxtb16 %[y], %[y], ror #8\n\t"             \
  "smlad  %[a00], %[x0e], %[ye], %[a00]\n\t"  \
  "smlad  %[a00], %[x0], %[y], %[a00]\n\t"    \
  "smlad  %[a10], %[x1e], %[ye], %[a10]\n\t"  \
  "smlad  %[a10], %[x1], %[y], %[a10]\n\t"    \
  "ldr    %[y], [%[w1]], #4\n\t"              \
  "sxtb16 %[ye], %[y]\n\t"                    \
  "sxtb16 %[y], %[y], ror #8\n\t"             \
  "smlad  %[a01], %[x0e], %[ye], %[a01]\n\t"  \
  "smlad  %[a01], %[x0], %[y], %[a01]\n\t"    \
  "smlad  %[a11], %[x1e], %[ye], %[a11]\n\t"  \
  "smlad  %[a11], %[x1], %[y], %[a11]\n\t"

// Rows l0, l1 against columns w0, w1 over d depth elements, on top of (b0, b1).
// The loop over eight depth elements is assembly: it needs 15 values (four accumulators,
// four pointers, six split halves and the end), one more than the 14 registers, and GCC 12
// hoists all eight loads and then spills about a dozen times per pass. Here the end is read
// from the stack once per pass: 43 instructions per 32 MACs. Always inline: as a template
// argument of mat_mult_s8_loops GCC would inline it later, with worse registers around it
// (kws on the M4: 15,600 instructions more than always inline).
__attribute__((always_inline)) inline Acc2x2 dot_2x2(const int8_t* l0, const int8_t* l1, const int8_t* w0,
                                                     const int8_t* w1, int32_t d, int32_t b0, int32_t b1) {
  int32_t a00 = b0, a01 = b1, a10 = b0, a11 = b1;
  const int32_t n8 = d >> 3;
  if (n8 > 0) {
    const int8_t* const end8 = l0 + 8 * n8;
    int32_t x0, x1, x0e, x1e, y, ye;
    asm volatile(
        "1:\n\t"
        EMBER_MM_STEP_2X2
        EMBER_MM_STEP_2X2
        "ldr    %[y], %[end]\n\t"
        "cmp    %[l0], %[y]\n\t"
        "bne    1b\n\t"
        : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [l0] "+r"(l0), [l1] "+r"(l1),
          [w0] "+r"(w0), [w1] "+r"(w1), [x0] "=&r"(x0), [x1] "=&r"(x1), [x0e] "=&r"(x0e), [x1e] "=&r"(x1e),
          [y] "=&r"(y), [ye] "=&r"(ye)
        : [end] "m"(end8)
        : "cc", "memory");
  }
  if (d & 4) {
    const Pairs x0 = split_s8(read_u32(l0)), x1 = split_s8(read_u32(l1));
    const Pairs y0 = split_s8(read_u32(w0)), y1 = split_s8(read_u32(w1));
    a00 = dot4(x0, y0, a00);
    a10 = dot4(x1, y0, a10);
    a01 = dot4(x0, y1, a01);
    a11 = dot4(x1, y1, a11);
    l0 += 4, l1 += 4, w0 += 4, w1 += 4;
  }
  for (int32_t k = 0; k < (d & 3); ++k) {
    const int32_t x0 = l0[k], x1 = l1[k], y0 = w0[k], y1 = w1[k];
    a00 = wrap_mac(a00, x0, y0);
    a01 = wrap_mac(a01, x0, y1);
    a10 = wrap_mac(a10, x1, y0);
    a11 = wrap_mac(a11, x1, y1);
  }
  return Acc2x2{a00, a01, a10, a11};
}

#undef EMBER_MM_STEP_2X2

// Four depth elements of one row against four columns: 5 LDR, 10 SXTB16, 8 SMLAD.
#define EMBER_MM_COL(w, a)                  \
  "ldr    %[y], [%[" w "]], #4\n\t"         \
  "sxtb16 %[ye], %[y]\n\t"                  \
  "sxtb16 %[y], %[y], ror #8\n\t"           \
  "smlad  %[" a "], %[xe], %[ye], %[" a "]\n\t" \
  "smlad  %[" a "], %[x], %[y], %[" a "]\n\t"
#define EMBER_MM_STEP_1X4          \
  "ldr    %[x], [%[l0]], #4\n\t"  \
  "sxtb16 %[xe], %[x]\n\t"        \
  "sxtb16 %[x], %[x], ror #8\n\t" \
  EMBER_MM_COL("w0", "a0")         \
  EMBER_MM_COL("w1", "a1")         \
  EMBER_MM_COL("w2", "a2")         \
  EMBER_MM_COL("w3", "a3")

struct Acc1x4 {
  int32_t a0, a1, a2, a3;
};

// One row against four columns (w0 and the next three, d bytes apart), on top of their
// biases: the row of a batch-1 linear layer, and the odd last row of a matrix. The row's split
// halves serve four columns: 49 instructions per 32 MACs in the assembly loop.
inline Acc1x4 dot_1x4(const int8_t* l0, const int8_t* w0, int32_t d, const int32_t* b) {
  int32_t a0 = b[0], a1 = b[1], a2 = b[2], a3 = b[3];
  const int8_t* w1 = w0 + d;
  const int8_t* w2 = w1 + d;
  const int8_t* w3 = w2 + d;
  const int32_t n8 = d >> 3;
  if (n8 > 0) {
    const int8_t* const end8 = l0 + 8 * n8;
    int32_t x, xe, y, ye;
    asm volatile(
        "1:\n\t"
        EMBER_MM_STEP_1X4
        EMBER_MM_STEP_1X4
        "ldr    %[y], %[end]\n\t"
        "cmp    %[l0], %[y]\n\t"
        "bne    1b\n\t"
        : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [l0] "+r"(l0), [w0] "+r"(w0),
          [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [x] "=&r"(x), [xe] "=&r"(xe), [y] "=&r"(y),
          [ye] "=&r"(ye)
        : [end] "m"(end8)
        : "cc", "memory");
  }
  for (int32_t k = 0; k < (d & 7); ++k) {
    const int32_t x = l0[k];
    a0 = wrap_mac(a0, x, w0[k]);
    a1 = wrap_mac(a1, x, w1[k]);
    a2 = wrap_mac(a2, x, w2[k]);
    a3 = wrap_mac(a3, x, w3[k]);
  }
  return Acc1x4{a0, a1, a2, a3};
}

#undef EMBER_MM_STEP_1X4
#undef EMBER_MM_COL

// One row (or column) against one column (or row).
inline int32_t dot_1x1(const int8_t* a, const int8_t* b, int32_t d, int32_t acc) {
  int32_t k = 0;
  for (; k + 4 <= d; k += 4) acc = dot4(split_s8(read_u32(a + k)), split_s8(read_u32(b + k)), acc);
  for (; k < d; ++k) acc = wrap_mac(acc, a[k], b[k]);
  return acc;
}

}  // namespace

void mat_mult_s8(const MatMultS8& m) { mat_mult_s8_loops<dot_2x2, dot_1x4, dot_1x1>(m); }

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_DSP
