//===- mat_mult_s8_dsp.cc - mat_mult_s8 with the DSP extension ------------===//
//
// Given the packed-row scratch (MatMultS8::pack), four rows at a time: the rows are packed
// two activations to a word, so that one SMLAL does two MACs, about one instruction per MAC in
// a 4 x 2 block (below). Otherwise, and for the rows left over: 2 rows x 2 columns
// per step (an odd last row: 1 row x 4 columns), eight depth elements per loop pass: per four
// depth elements one LDR and two SXTB16 (the odd bytes with the ROR #8 operand) per operand
// word, then eight SMLADs for 16 MACs. Both operands are split
// into the same (even, odd) lane pairs, so neither the weights nor the activations need
// re-ordering. The loops around those blocks are mat_mult_s8_loops.h's. A product of depth 8,
// 16, 27, 32, 40 or 64 with enough rows instead takes 2 rows x 2 columns per step on rows split
// once per pair, with the requantization in the same loop (shallow_group, below).
// Cortex-M4/M7/M33.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_DSP

#include <stddef.h>
#include <string.h>

#include "ember/kernels/arm/mat_mult_s8_loops.h"
#include "ember/kernels/arm/primitives_dsp.h"

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
// from the stack once per pass. Always inline: as a template argument of mat_mult_s8_loops GCC
// would inline it later, with worse registers around it.
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
// halves serve four columns in the assembly loop.
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

// --- Packed rows --------------------------------------------------------------------------
//
// A word X = x0 + x1 * 2^23 of two int8 activations, times an int8 weight w, is
// x0 * w + (x1 * w) * 2^23: one SMLAL (a single-cycle instruction on these cores) adds both
// products to a 64-bit sum. Started at 2^22, over n <= kPackChunk depth elements the sum's
// low 23 bits hold 2^22 + the x0 part, which stays in [-2^22, 2^22) (each |x0 * w| <= 2^14),
// and the bits above hold the x1 part: both exact, so the block's accumulators equal the 2 x 2
// blocks' modulo 2^32. X fits a word: |x1 * 2^23| <= 2^30.

// Depth elements per 64-bit sum: 252 * 2^14 < 2^22, and a multiple of the loop's four.
constexpr int32_t kPackChunk = 252;

// Rows l0..l3 (stride bytes apart) as word pairs: pack[2k] = l0[k] + l1[k] * 2^23 and
// pack[2k + 1] = l2[k] + l3[k] * 2^23, which the block loads with one LDRD. Two depth elements
// per pass in assembly (8 LDRSB, 4 ADD with the shift, 2 STRD and the loop), shorter than
// GCC's loop; it matters where columns are few (ic's 16 and 32).
inline void pack_quad(const int8_t* l0, size_t stride, int32_t d, int32_t* pack) {
  const int8_t* l1 = l0 + stride;
  const int8_t* l2 = l1 + stride;
  const int8_t* l3 = l2 + stride;
  if (d >= 2) {
    const int32_t* const end = pack + 2 * (d & ~1);
    int32_t a, b, c, e;
#define EMBER_PK_ELEMENT                                 \
  "ldrsb  %[a], [%[l0]], #1\n\t"                          \
  "ldrsb  %[b], [%[l1]], #1\n\t"                          \
  "add    %[a], %[a], %[b], lsl #23\n\t"                  \
  "ldrsb  %[c], [%[l2]], #1\n\t"                          \
  "ldrsb  %[e], [%[l3]], #1\n\t"                          \
  "add    %[c], %[c], %[e], lsl #23\n\t"                  \
  "strd   %[a], %[c], [%[p]], #8\n\t"
    asm volatile(
        "1:\n\t"
        EMBER_PK_ELEMENT
        EMBER_PK_ELEMENT
        "cmp    %[p], %[end]\n\t"
        "bne    1b\n\t"
        : [l0] "+r"(l0), [l1] "+r"(l1), [l2] "+r"(l2), [l3] "+r"(l3), [p] "+r"(pack), [a] "=&r"(a), [b] "=&r"(b),
          [c] "=&r"(c), [e] "=&r"(e)
        : [end] "r"(end)
        : "cc", "memory");
#undef EMBER_PK_ELEMENT
  }
  if (d & 1) pack[0] = *l0 + *l1 * (1 << 23), pack[1] = *l2 + *l3 * (1 << 23);
}

// A 64-bit sum of packed products as the two words SMLAL keeps it in.
struct Packed {
  uint32_t lo, hi;
};
inline uint32_t low_part(Packed p) { return (p.lo & 0x7FFFFFu) - (1u << 22); }
inline uint32_t high_part(Packed p) { return (p.lo >> 23) | (p.hi << 9); }

// The four sums of one chunk: [row pair][column].
struct PackedSums {
  Packed s[2][2];
};

// Four depth elements: per element one LDRD of the two packed words, an LDRSB per column and
// four SMLALs (8 MACs).
#define EMBER_PK_STEP(xoff, woff)                         \
  "ldrd  %[xa], %[xb], [%[xp], #" xoff "]\n\t"            \
  "ldrsb %[w], [%[w0], #" woff "]\n\t"                    \
  "smlal %[p00l], %[p00h], %[xa], %[w]\n\t"               \
  "smlal %[p10l], %[p10h], %[xb], %[w]\n\t"               \
  "ldrsb %[w], [%[w1], #" woff "]\n\t"                    \
  "smlal %[p01l], %[p01h], %[xa], %[w]\n\t"               \
  "smlal %[p11l], %[p11h], %[xb], %[w]\n\t"
#define EMBER_PK_STEP_POST                                \
  "ldrd  %[xa], %[xb], [%[xp]], #32\n\t"                  \
  "ldrsb %[w], [%[w0]], #4\n\t"                           \
  "smlal %[p00l], %[p00h], %[xa], %[w]\n\t"               \
  "smlal %[p10l], %[p10h], %[xb], %[w]\n\t"               \
  "ldrsb %[w], [%[w1]], #4\n\t"                           \
  "smlal %[p01l], %[p01h], %[xa], %[w]\n\t"               \
  "smlal %[p11l], %[p11h], %[xb], %[w]\n\t"

// The packed rows against columns w0, w1 over n <= kPackChunk depth elements, advancing the
// pointers. The four sums in eight registers, three pointers and three loaded values take all
// 14; the loop's end is read from the stack.
__attribute__((always_inline)) inline PackedSums packed_sums(const int32_t*& xp, const int8_t*& w0,
                                                             const int8_t*& w1, int32_t n) {
  Packed p00{1u << 22, 0}, p10{1u << 22, 0}, p01{1u << 22, 0}, p11{1u << 22, 0};
  if (n >= 4) {
    const int32_t* const end = xp + 2 * (n & ~3);
    int32_t xa, xb, w;
    asm volatile(
        "1:\n\t"
        EMBER_PK_STEP("8", "1")
        EMBER_PK_STEP("16", "2")
        EMBER_PK_STEP("24", "3")
        EMBER_PK_STEP_POST
        "ldr   %[w], %[end]\n\t"
        "cmp   %[xp], %[w]\n\t"
        "bne   1b\n\t"
        : [p00l] "+r"(p00.lo), [p00h] "+r"(p00.hi), [p10l] "+r"(p10.lo), [p10h] "+r"(p10.hi),
          [p01l] "+r"(p01.lo), [p01h] "+r"(p01.hi), [p11l] "+r"(p11.lo), [p11h] "+r"(p11.hi), [xp] "+r"(xp),
          [w0] "+r"(w0), [w1] "+r"(w1), [xa] "=&r"(xa), [xb] "=&r"(xb), [w] "=&r"(w)
        : [end] "m"(end)
        : "cc", "memory");
  }
  const auto mac = [](Packed& p, int64_t x, int32_t y) {
    const uint64_t v = ((static_cast<uint64_t>(p.hi) << 32) | p.lo) + static_cast<uint64_t>(x * y);
    p.lo = static_cast<uint32_t>(v), p.hi = static_cast<uint32_t>(v >> 32);
  };
  for (int32_t k = 0; k < (n & 3); ++k, xp += 2, ++w0, ++w1) {
    mac(p00, xp[0], *w0), mac(p10, xp[1], *w0), mac(p01, xp[0], *w1), mac(p11, xp[1], *w1);
  }
  return PackedSums{{{p00, p01}, {p10, p11}}};
}

#undef EMBER_PK_STEP
#undef EMBER_PK_STEP_POST

struct Acc4x2 {
  uint32_t a[2][4];  // [column][row]
};

// The packed rows against columns w0, w1 over d depth elements, on top of (b0, b1). The first
// chunk's parts are assigned with the biases, later chunks' added: one loop adding every chunk
// into bias-initialised accumulators took more instructions.
__attribute__((always_inline)) inline Acc4x2 dot_4x2_packed(const int32_t* xp, const int8_t* w0, const int8_t* w1,
                                                            int32_t d, int32_t b0, int32_t b1) {
  Acc4x2 r;
  const uint32_t b[2] = {static_cast<uint32_t>(b0), static_cast<uint32_t>(b1)};
  PackedSums s = packed_sums(xp, w0, w1, d < kPackChunk ? d : kPackChunk);
  for (int32_t j = 0; j < 2; ++j) {
    for (int32_t p = 0; p < 2; ++p) {
      r.a[j][2 * p] = b[j] + low_part(s.s[p][j]);
      r.a[j][2 * p + 1] = b[j] + high_part(s.s[p][j]);
    }
  }
  for (int32_t k0 = kPackChunk; k0 < d; k0 += kPackChunk) {
    s = packed_sums(xp, w0, w1, d - k0 < kPackChunk ? d - k0 : kPackChunk);
    for (int32_t j = 0; j < 2; ++j) {
      for (int32_t p = 0; p < 2; ++p) {
        r.a[j][2 * p] += low_part(s.s[p][j]);
        r.a[j][2 * p + 1] += high_part(s.s[p][j]);
      }
    }
  }
  return r;
}

// A column's four outputs, stride os apart. The two branches have the same body on purpose:
// inside each GCC knows the sign of the shift, so requantize_value's test folds away; with one
// loop it tested the shift per output and computed both cases' products each time.
inline void requantize_column(const OutputClamp& oc, const ChannelRequant& q, const uint32_t (&acc)[4],
                              int8_t* out, size_t os) {
  if (q.right >= 0) {
#pragma GCC unroll 4
    for (int32_t i = 0; i < 4; ++i) out[i * os] = out_s8(oc, q, acc[i]);
  } else {
    for (int32_t i = 0; i < 4; ++i) out[i * os] = out_s8(oc, q, acc[i]);
  }
}

// A column's four outputs, stride os apart, for a FastOut column (primitives_scalar.h): per
// output SMMLA, a one-instruction tie test (the fix-up out of line), ASR, SSAT, STRB, a third
// of requantize_column's C. Its own frame: inlined, the asm's
// eleven registers did not fit beside packed_quads' values.
__attribute__((noinline)) void fast_column(const FastOut& f, int32_t zp, const uint32_t* acc, int8_t* out, size_t os) {
  int32_t a, h, r;
  // Output i: its sum from acc[i]; h keeps the high word, r the result.
#define EMBER_FC_OUT(i)                                          \
  "ldr    %[a], [%[acc], #4*" #i "]\n\t"                        \
  "smmla  %[h], %[a], %[m], %[rh]\n\t"                          \
  "asr    %[r], %[h], %[right]\n\t"                             \
  "tst    %[h], %[low]\n\t"                                     \
  "beq    3" #i "f\n"                                            \
  "2" #i ":\n\t"                                                \
  "ssat   %[r], #8, %[r]\n\t"                                   \
  "strb   %[r], [%[out]]\n\t"                                   \
  "add    %[out], %[out], %[os]\n\t"
#define EMBER_FC_TIE(i)                                          \
  "3" #i ":\n\t"                                                \
  "mul    %[h], %[a], %[m]\n\t"                                 \
  "cmp    %[h], #0\n\t"                                         \
  "bne    2" #i "b\n\t"                                         \
  "sub    %[r], %[r], %[zp]\n\t"                                \
  "bic    %[r], %[r], #1\n\t"                                   \
  "add    %[r], %[r], %[zp]\n\t"                                \
  "b      2" #i "b\n\t"
  asm volatile(
      EMBER_FC_OUT(0) EMBER_FC_OUT(1) EMBER_FC_OUT(2) EMBER_FC_OUT(3)
      ".subsection 1\n"
      EMBER_FC_TIE(0) EMBER_FC_TIE(1) EMBER_FC_TIE(2) EMBER_FC_TIE(3)
      ".previous\n\t"
      : [a] "=&r"(a), [h] "=&r"(h), [r] "=&r"(r), [out] "+r"(out)
      : [acc] "r"(acc), [m] "r"(f.m), [rh] "r"(f.rh), [right] "r"(f.right), [low] "r"(f.low), [zp] "r"(zp),
        [os] "r"(os)
      : "cc", "memory");
#undef EMBER_FC_OUT
#undef EMBER_FC_TIE
}

// Rows [0, 4 * quads) of v, packed four at a time into `pack`: column pairs by dot_4x2_packed,
// an odd last column by the 2 x 2 loops' single column.
__attribute__((noinline)) void packed_quads(const MatMultLocals& v, int32_t* pack, int32_t quads) {
  const int32_t d = v.d, cols = v.cols;
  const size_t os = v.out_stride;
  const bool full_range = v.oc.lo == -128 - v.oc.zp && v.oc.hi == 127 - v.oc.zp;  // act range all of int8
  for (int32_t q = 0; q < quads; ++q) {
    const int8_t* const l0 = v.lhs + 4 * static_cast<size_t>(q) * v.lhs_stride;
    int8_t* const o0 = v.out + 4 * static_cast<size_t>(q) * os;
    pack_quad(l0, v.lhs_stride, d, pack);
    for (int32_t c = 0; c + 2 <= cols; c += 2) {
      const int8_t* const w0 = v.rhs + static_cast<size_t>(c) * d;
      const Acc4x2 a = dot_4x2_packed(pack, w0, w0 + d, d, v.bias[c], v.bias[c + 1]);
      for (int32_t j = 0; j < 2; ++j) {
        FastOut f;
        if (fast_out(v.mult[c + j], v.shift[c + j], v.oc.zp, full_range, &f))
          fast_column(f, v.oc.zp, a.a[j], o0 + c + j, os);
        else
          requantize_column(v.oc, channel_requant(v.mult[c + j], v.shift[c + j]), a.a[j], o0 + c + j, os);
      }
    }
    if (cols & 1) {
      const int32_t c = cols - 1;
      const int8_t* const w0 = v.rhs + static_cast<size_t>(c) * d;
      const ChannelRequant qc = channel_requant(v.mult[c], v.shift[c]);
      for (int32_t i = 0; i < 4; ++i)
        o0[i * os + c] = out_s8(v.oc, qc, dot_1x1(l0 + i * v.lhs_stride, w0, d, v.bias[c]));
    }
  }
}

// --- Shallow products: depth 8 to 64, two rows x two columns, requantized in the same loop ---
//
// At depth 8 and 16 (vww's first pointwise layers) a 2 x 2 block has few products, and the
// set-up and requantization around them dominate; at depth 32 and 64 the packed 4 x 2 block's
// requantization and constants are a large part of its work. A group of up to kShallowColumns
// columns whose
// requantization takes the FastOut form (primitives_scalar.h) is instead one asm loop over the
// rows, two at a time (shallow_group). The two rows' depth bytes are split once into the
// frame (LDR, two SXTB16, STRD per four); then per pair of columns their biases, per four
// depth elements an LDRD of each split row and of each column's split weights and eight SMLAD,
// and the FastOut arithmetic, each column's constants loaded once for both rows (one row at a
// time, each weight load served fewer MACs). An odd last row runs as a pair of itself (strides 0: the
// same output written twice). The first layers' depths, 27 and 40, take it too (their im2col
// blocks are 16 rows). The group's table (mat_mult_s8_shallow_bytes: per column the folded
// bias, FastOut and the split weights) is in the product's scratch, MatMultS8::pack; building
// it takes a few dozen instructions per column, so only products of kShallowRows rows or more
// take this path.

constexpr int32_t kShallowRows = 16;

// Column j's table at words j * column_words(depth) (mat_mult_s8.h): bias, FastOut (m, rh,
// right, low), the split weights (a partial last four zero-filled).
constexpr int32_t split_words(int32_t depth) { return (depth + 3) / 4; }
constexpr int32_t column_words(int32_t depth) { return static_cast<int32_t>(mat_mult_s8_shallow_column_words(depth)); }
static_assert(sizeof(FastOut) == 16, "shallow_group's offsets");

// What shallow_group's loop keeps in memory, at fixed offsets from one register (the others
// hold the sums, the operands and the table): the two rows split, then the loop's state.
struct ShallowFrame {
  uint32_t row[2][2 * split_words(64)];  // row i's word k split: (even, odd) at [i][2k], [i][2k + 1]
  int32_t zp, lhs_stride, out_stride;  // the strides adjacent: one LDRD
  int32_t row_pairs;                   // left to do
  const int8_t* lhs;                   // the next pair's first row
  int8_t* out_row;                     // and its first output
  int8_t* out;                         // the column pair's first output
  const int32_t* table;                // the group's first column
  int32_t col_pairs, pairs_left;       // column pairs per row pair, and left in this one
};
static_assert(offsetof(ShallowFrame, out_stride) == offsetof(ShallowFrame, lhs_stride) + 4, "one LDRD");

// f.row_pairs pairs of rows (from f.lhs, f.lhs_stride apart) against the group's 2 * f.col_pairs
// columns (table from f.table), stored from f.out_row (f.out_stride apart); f.lhs and f.out_row
// end past the last pair. A depth that is not a multiple of 4 (27) reads its last bytes one by
// one (no byte past the row is read) into a word whose weights beyond are 0.
template <int kDepth>
__attribute__((noinline)) void shallow_group(ShallowFrame& f) {
  constexpr int32_t kWords = kDepth / 4, kRest = kDepth % 4;
  static_assert(kRest == 0 || kRest == 3, "a loop for the partial word's bytes");
  static_assert(split_words(kDepth) <= split_words(64), "the frame's rows");
  int32_t a00, a01, a10, a11, x0, x1, x2, x3, w0, w1, w2, w3;
  const int32_t* t;
  // Each word of the row at P, split into the frame's row R (its byte offset).
#define EMBER_SH_SPLIT(P, R)                                             \
  ".irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15\n\t"     \
  ".if \\i < %c[words]\n\t"                                              \
  "ldr    %[w0], [" P ", #4*\\i]\n\t"                                    \
  "sxtb16 %[w1], %[w0]\n\t"                                              \
  "sxtb16 %[w0], %[w0], ror #8\n\t"                                      \
  "strd   %[w1], %[w0], [%[f], #" R "+8*\\i]\n\t"                        \
  ".endif\n\t"                                                           \
  ".endr\n\t"                                                            \
  ".if %c[rest] == 3\n\t"                                                \
  "ldrh   %[w0], [" P ", #4*%c[words]]\n\t"                              \
  "ldrb   %[w1], [" P ", #4*%c[words]+2]\n\t"                            \
  "orr    %[w0], %[w0], %[w1], lsl #16\n\t"                              \
  "sxtb16 %[w1], %[w0]\n\t"                                              \
  "sxtb16 %[w0], %[w0], ror #8\n\t"                                      \
  "strd   %[w1], %[w0], [%[f], #" R "+8*%c[words]]\n\t"                  \
  ".endif\n\t"
  // Column C (0: at t, 1: at t + cb) of both rows, sums A (row 0) and B (row 1): its FastOut
  // arithmetic and stores at x2 + C and x3 + C; x0 keeps m for a tie.
#define EMBER_SH_OUT(A, B, C)                                            \
  "ldrd   %[x0], %[x1], [%[t], #%c[cb]*" C "+4]\n\t"                     \
  "ldrd   %[w0], %[w1], [%[t], #%c[cb]*" C "+12]\n\t"                    \
  "smmla  %[w2], %[" A "], %[x0], %[x1]\n\t"                             \
  "tst    %[w2], %[w1]\n\t"                                              \
  "beq    3" C "0f\n\t"                                                  \
  "asr    %[" A "], %[w2], %[w0]\n"                                      \
  "4" C "0:\n\t"                                                         \
  "ssat   %[" A "], #8, %[" A "]\n\t"                                    \
  "strb   %[" A "], [%[x2], #" C "]\n\t"                                 \
  "smmla  %[w2], %[" B "], %[x0], %[x1]\n\t"                             \
  "tst    %[w2], %[w1]\n\t"                                              \
  "beq    3" C "1f\n\t"                                                  \
  "asr    %[" B "], %[w2], %[w0]\n"                                      \
  "4" C "1:\n\t"                                                         \
  "ssat   %[" B "], #8, %[" B "]\n\t"                                    \
  "strb   %[" B "], [%[x3], #" C "]\n\t"
  // A possible tie of sum ACC (h in w2): the product's low word zero makes it one; then the
  // value before the zero point loses its low bit.
#define EMBER_SH_TIE(ACC, L)                                             \
  "3" L ":\n\t"                                                          \
  "mul    %[w3], %[" ACC "], %[x0]\n\t"                                  \
  "asr    %[" ACC "], %[w2], %[w0]\n\t"                                  \
  "cmp    %[w3], #0\n\t"                                                 \
  "bne    4" L "b\n\t"                                                   \
  "ldr    %[w3], [%[f], #%c[o_zp]]\n\t"                                  \
  "sub    %[" ACC "], %[" ACC "], %[w3]\n\t"                             \
  "bic    %[" ACC "], %[" ACC "], #1\n\t"                                \
  "add    %[" ACC "], %[" ACC "], %[w3]\n\t"                             \
  "b      4" L "b\n\t"
  asm volatile(
      "1:\n\t"
      "ldr    %[x2], [%[f], #%c[o_lhs]]\n\t"
      "ldr    %[x0], [%[f], #%c[o_strides]]\n\t"
      "add    %[x3], %[x2], %[x0]\n\t"
      EMBER_SH_SPLIT("%[x2]", "0")
      EMBER_SH_SPLIT("%[x3]", "%c[row1]")
      "ldr    %[t], [%[f], #%c[o_table]]\n\t"
      "ldr    %[x0], [%[f], #%c[o_out_row]]\n\t"
      "ldr    %[x1], [%[f], #%c[o_col_pairs]]\n\t"
      "str    %[x0], [%[f], #%c[o_out]]\n\t"
      "str    %[x1], [%[f], #%c[o_pairs_left]]\n"
      "2:\n\t"
      "ldr    %[a00], [%[t]]\n\t"
      "ldr    %[a01], [%[t], #%c[cb]]\n\t"
      "mov    %[a10], %[a00]\n\t"
      "mov    %[a11], %[a01]\n\t"
      ".irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15\n\t"
      ".if \\i < %c[split]\n\t"
      "ldrd   %[x0], %[x1], [%[f], #8*\\i]\n\t"
      "ldrd   %[x2], %[x3], [%[f], #%c[row1]+8*\\i]\n\t"
      "ldrd   %[w0], %[w1], [%[t], #20+8*\\i]\n\t"
      "ldrd   %[w2], %[w3], [%[t], #%c[cb]+20+8*\\i]\n\t"
      "smlad  %[a00], %[x0], %[w0], %[a00]\n\t"
      "smlad  %[a00], %[x1], %[w1], %[a00]\n\t"
      "smlad  %[a10], %[x2], %[w0], %[a10]\n\t"
      "smlad  %[a10], %[x3], %[w1], %[a10]\n\t"
      "smlad  %[a01], %[x0], %[w2], %[a01]\n\t"
      "smlad  %[a01], %[x1], %[w3], %[a01]\n\t"
      "smlad  %[a11], %[x2], %[w2], %[a11]\n\t"
      "smlad  %[a11], %[x3], %[w3], %[a11]\n\t"
      ".endif\n\t"
      ".endr\n\t"
      "ldr    %[x2], [%[f], #%c[o_out]]\n\t"
      "ldr    %[x3], [%[f], #%c[o_strides]+4]\n\t"
      "add    %[x3], %[x2], %[x3]\n\t"
      EMBER_SH_OUT("a00", "a10", "0")
      EMBER_SH_OUT("a01", "a11", "1")
      "add    %[x2], %[x2], #2\n\t"
      "str    %[x2], [%[f], #%c[o_out]]\n\t"
      "add    %[t], %[t], #2*%c[cb]\n\t"
      "ldr    %[x0], [%[f], #%c[o_pairs_left]]\n\t"
      "subs   %[x0], %[x0], #1\n\t"
      "str    %[x0], [%[f], #%c[o_pairs_left]]\n\t"
      "bne    2b\n\t"
      "ldrd   %[x0], %[x1], [%[f], #%c[o_strides]]\n\t"
      "ldr    %[x2], [%[f], #%c[o_lhs]]\n\t"
      "ldr    %[x3], [%[f], #%c[o_out_row]]\n\t"
      "add    %[x2], %[x2], %[x0], lsl #1\n\t"
      "add    %[x3], %[x3], %[x1], lsl #1\n\t"
      "str    %[x2], [%[f], #%c[o_lhs]]\n\t"
      "str    %[x3], [%[f], #%c[o_out_row]]\n\t"
      "ldr    %[x0], [%[f], #%c[o_row_pairs]]\n\t"
      "subs   %[x0], %[x0], #1\n\t"
      "str    %[x0], [%[f], #%c[o_row_pairs]]\n\t"
      "bne    1b\n\t"
      ".subsection 1\n"
      EMBER_SH_TIE("a00", "00") EMBER_SH_TIE("a10", "01") EMBER_SH_TIE("a01", "10") EMBER_SH_TIE("a11", "11")
      ".previous\n\t"
      : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [x0] "=&r"(x0), [x1] "=&r"(x1),
        [x2] "=&r"(x2), [x3] "=&r"(x3), [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3), [t] "=&r"(t)
      : [f] "r"(&f), [words] "i"(kWords), [rest] "i"(kRest), [split] "i"(split_words(kDepth)),
        [cb] "i"(4 * column_words(kDepth)), [row1] "i"(offsetof(ShallowFrame, row[1])),
        [o_zp] "i"(offsetof(ShallowFrame, zp)), [o_strides] "i"(offsetof(ShallowFrame, lhs_stride)),
        [o_row_pairs] "i"(offsetof(ShallowFrame, row_pairs)), [o_lhs] "i"(offsetof(ShallowFrame, lhs)),
        [o_out_row] "i"(offsetof(ShallowFrame, out_row)), [o_out] "i"(offsetof(ShallowFrame, out)),
        [o_table] "i"(offsetof(ShallowFrame, table)), [o_col_pairs] "i"(offsetof(ShallowFrame, col_pairs)),
        [o_pairs_left] "i"(offsetof(ShallowFrame, pairs_left))
      : "cc", "memory");
#undef EMBER_SH_SPLIT
#undef EMBER_SH_OUT
#undef EMBER_SH_TIE
}

// The odd last row (all of a batch-1 linear layer) four columns at a time, summed and stored by
// one asm loop over the column groups, as the Cortex-M3's row_groups (mat_mult_s8_scalar.cc)
// does: per group sixteen depth elements per pass (dot_1x4's loop body, then the end read
// from the RowGroups, compare, branch), eight more once if the depth
// holds them, the rest one element per turn, then each output in the FastOut form with its
// constants formed from its multiplier and shift inside the asm, since each serves one output
// here (the rounding constant, SMMLA onto it, the tie test, SSAT, STRB; a possible tie fixed
// out of line as EMBER_FAST_TIE does).
// A shift outside [-23, -2] stops the loop before that group (its outputs already stored were
// right) and the caller's C path takes the rest; the caller has checked that the clamp is the
// whole int8 range. Fourteen registers are in use (sums r4-r7, the row r0, weight columns r1
// and r9-r11, the row's split halves r2 and r3, a weight word's r12 and lr, r8 the RowGroups),
// so they are named; GCC's prologue saves them, and its stack-usage figure counts that.
#define EMBER_RG_COL(w, A)            \
  "ldr r12, [" w "], #4\n"            \
  "sxtb16 lr, r12\n"                  \
  "sxtb16 r12, r12, ror #8\n"         \
  "smlad " A ", r3, lr, " A "\n"      \
  "smlad " A ", r2, r12, " A "\n"
#define EMBER_RG_STEP                 \
  "ldr r2, [r0], #4\n"                \
  "sxtb16 r3, r2\n"                   \
  "sxtb16 r2, r2, ror #8\n"           \
  EMBER_RG_COL("r1", "r4") EMBER_RG_COL("r9", "r5") EMBER_RG_COL("r10", "r6") EMBER_RG_COL("r11", "r7")
#define EMBER_RG_REST(w, A)           \
  "ldrsb r12, [" w "], #1\n"          \
  "mla " A ", r3, r12, " A "\n"
// Output j from the sum in register A (mat_mult_s8_loops.h's frame): SMMLA onto the rounding
// constant (h in r10), h >> right, and a possible tie (the dropped bits of h, and the product's
// low word by MUL, all zero) out of line.
#define EMBER_RG_STORE(A, j)          \
  EMBER_ROW_OUT_CONSTANTS(j)          \
  "smmla r10, " A ", lr, r10\n"       \
  "rsb r11, r9, #32\n"                \
  "lsls r11, r10, r11\n"              \
  "beq 3" #j "f\n"                    \
  "asr " A ", r10, r9\n"              \
  EMBER_ROW_OUT_STORE(A, j)
#define EMBER_RG_TIE(A, j)            \
  "3" #j ":\n"                        \
  "mul r11, " A ", lr\n"              \
  "asr " A ", r10, r9\n"              \
  "cmp r11, #0\n"                     \
  "bne 2" #j "b\n"                    \
  EMBER_ROW_TIE_EVEN(A, j)
// The groups from g->out to g->out_end, the first group's weights at w0; g->out is where it
// stopped.
#define EMBER_RG_SUMS \
  "bic r3, r2, #15\n" \
  "add r3, r0, r3\n" \
  "str r3, [r8, #32]\n"  /* the end of the whole passes */ \
  "cmp r0, r3\n" \
  "beq 5f\n" \
  "4:\n" \
  EMBER_RG_STEP EMBER_RG_STEP EMBER_RG_STEP EMBER_RG_STEP \
  "ldr r12, [r8, #32]\n" \
  "cmp r0, r12\n" \
  "bne 4b\n" \
  "5:\n" \
  "ldr r2, [r8, #28]\n" \
  "tst r2, #8\n"  /* eight more */ \
  "beq 8f\n" \
  EMBER_RG_STEP EMBER_RG_STEP \
  "ldr r2, [r8, #28]\n" \
  "8:\n" \
  "ands r2, r2, #7\n"  /* the rest */ \
  "beq 7f\n" \
  "6:\n" \
  "ldrsb r3, [r0], #1\n" \
  EMBER_RG_REST("r1", "r4") EMBER_RG_REST("r9", "r5") EMBER_RG_REST("r10", "r6") EMBER_RG_REST("r11", "r7") \
  "subs r2, #1\n" \
  "bne 6b\n"
__attribute__((noinline)) void row_groups(RowGroups* g, const int8_t* w0) {
  EMBER_ROW_GROUPS(EMBER_RG_SUMS, EMBER_RG_STORE, EMBER_RG_TIE);
}
#undef EMBER_RG_SUMS
#undef EMBER_RG_TIE
#undef EMBER_RG_STORE
#undef EMBER_RG_REST
#undef EMBER_RG_STEP
#undef EMBER_RG_COL

// The 2 x 2 blocks (and an odd last row, row_groups) over all of m. Its own frame: the callers'
// tables are not on the stack under it (the static stack bound, ember.stack_usage).
__attribute__((noinline)) void blocks_2x2(const MatMultS8& m) {
  mat_mult_s8_loops<dot_2x2, dot_1x4, dot_1x1, no_wide_columns, last_row_groups<row_groups, dot_1x4, dot_1x1>>(m);
}

// Whether shallow_groups takes the product: a loop for its depth with the table in its scratch
// (mat_mult_s8_shallow_bytes), at least kShallowRows rows, the whole int8 range.
inline bool shallow(const MatMultS8& m) {
  return m.pack != nullptr && mat_mult_s8_shallow_depth(m.depth) && m.rows >= kShallowRows && m.act_min == -128 &&
         m.act_max == 127;
}

// Whether column c's requantization takes the FastOut form, and then its constants in *f.
inline bool fast_at(const MatMultS8& m, int32_t c, FastOut* f) {
  return fast_out(m.multiplier[c], m.shift[c], m.output_zp, true, f);
}

// The columns from c0 on through shallow_group, in groups of as many as the table holds (up to
// kShallowColumns; an even number of FastOut columns), up to the first that joins no pair (not
// FastOut, or the last of an odd number): returns it, or cols.
__attribute__((noinline)) int32_t shallow_groups(const MatMultS8& m, int32_t c0) {
  const int32_t cw = column_words(m.depth);
  const size_t fit = m.pack_bytes / (4 * static_cast<size_t>(cw));
  const int32_t most = fit < kShallowColumns ? static_cast<int32_t>(fit) : kShallowColumns;
  ShallowFrame f;
  f.zp = m.output_zp, f.table = m.pack;
  for (;;) {
    int32_t n = 0;
    FastOut k{};
    while (n < most && c0 + n < m.cols && fast_at(m, c0 + n, &k)) ++n;
    n &= ~1;
    if (n == 0) return c0;
    // The depth in a local: the table's int32 stores may alias m, and GCC reloaded it per word.
    const int32_t depth = m.depth;
    for (int32_t j = 0; j < n; ++j) {
      int32_t* const col = m.pack + j * cw;
      fast_at(m, c0 + j, &k);  // true: counted above
      col[0] = m.bias[c0 + j], col[1] = k.m, col[2] = k.rh, col[3] = k.right, col[4] = k.low;
      const int8_t* w = m.rhs + static_cast<size_t>(c0 + j) * depth;
      int32_t* split = col + 5;
      const int8_t* const whole = w + (depth & ~3);
      for (; w != whole; w += 4, split += 2) {
        const Pairs p = split_s8(read_u32(w));
        split[0] = p.even, split[1] = p.odd;
      }
      if ((depth & 3) != 0) {  // the partial last four, zero-filled
        uint32_t word = 0;
        for (int32_t b = 0; b < (depth & 3); ++b) word |= (static_cast<uint32_t>(w[b]) & 0xFFu) << (8 * b);
        const Pairs p = split_s8(word);
        split[0] = p.even, split[1] = p.odd;
      }
    }
    f.col_pairs = n / 2;
    f.lhs = m.lhs, f.out_row = m.out + c0;
    f.lhs_stride = m.lhs_stride, f.out_stride = m.out_stride, f.row_pairs = m.rows / 2;
    // Then an odd last row as a pair of itself: strides 0 (the loop left lhs and out_row at it).
    for (int32_t pass = 0; pass < 2; ++pass) {
      switch (m.depth) {
        case 8: shallow_group<8>(f); break;
        case 16: shallow_group<16>(f); break;
        case 27: shallow_group<27>(f); break;
        case 32: shallow_group<32>(f); break;
        case 40: shallow_group<40>(f); break;
        default: shallow_group<64>(f); break;
      }
      if ((m.rows & 1) == 0) break;
      f.lhs_stride = 0, f.out_stride = 0, f.row_pairs = 1;
    }
    c0 += n;
  }
}

}  // namespace

void mat_mult_s8(const MatMultS8& m) {
  if (shallow(m)) {
    // The FastOut column pairs through shallow_groups, any other column (and an odd last one)
    // in pairs through the 2 x 2 blocks. Each in its own frame, for the stack bound.
    for (int32_t c0 = shallow_groups(m, 0); c0 < m.cols; c0 = shallow_groups(m, c0)) {
      const int32_t n = m.cols - c0 < 2 ? m.cols - c0 : 2;
      MatMultS8 slice = m;
      slice.rhs += static_cast<size_t>(c0) * m.depth, slice.cols = n;
      slice.bias += c0, slice.multiplier += c0, slice.shift += c0, slice.out += c0;
      blocks_2x2(slice);
      c0 += n;
    }
    return;
  }
  const int32_t quads = m.pack != nullptr ? m.rows / 4 : 0;
  if (quads > 0) {
    const MatMultLocals v{m.lhs, m.rhs, m.rows, m.cols, m.depth, static_cast<size_t>(m.lhs_stride),
                          static_cast<size_t>(m.out_stride), m.bias, m.multiplier, m.shift, m.out,
                          output_clamp(m.output_zp, m.act_min, m.act_max)};
    packed_quads(v, m.pack, quads);
    if (m.rows == 4 * quads) return;
  }
  MatMultS8 rest = m;  // the rows left over: 2 x 2 blocks, an odd last row 1 x 4
  rest.lhs += 4 * static_cast<size_t>(quads) * m.lhs_stride;
  rest.out += 4 * static_cast<size_t>(quads) * m.out_stride;
  rest.rows -= 4 * quads;
  blocks_2x2(rest);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_DSP
