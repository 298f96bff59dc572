//===- mat_mult_s8_scalar.cc - mat_mult_s8 for Thumb-2 without SIMD -------===//
//
// 2 rows x 3 columns per step (on Cortex-M3 an assembly loop), then 2 x 2 for the remaining
// columns (C, unrolled by four depth elements without reassociation, so that GCC keeps the
// MLAs), and an odd last row 1 row x 4 columns. Each
// loaded byte feeds two or three MLAs. The loops around the blocks are mat_mult_s8_loops.h's.
// Cortex-M0/M3 and the host.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR

#include "ember/kernels/arm/fast_out_asm.h"
#include "ember/kernels/arm/mat_mult_s8_loops.h"
#include "ember/kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {
namespace {

inline uint32_t mac(uint32_t acc, int32_t x, int32_t y) { return acc + static_cast<uint32_t>(x * y); }

struct Acc2x2 {
  uint32_t a00, a01, a10, a11;
};

#if defined(__ARM_ARCH_7M__)
// Cortex-M3: the 2 x 2 block's four depth elements in assembly, 16 LDRSB (immediate offsets,
// the last with post-increment) and 16 MLA, compare, branch.
#define EMBER_MM_K2(x0a, x1a, w0a, w1a)              \
  "ldrsb %[x0], " x0a "\n\t"                          \
  "ldrsb %[x1], " x1a "\n\t"                          \
  "ldrsb %[y], " w0a "\n\t"                           \
  "mla   %[a00], %[x0], %[y], %[a00]\n\t"            \
  "mla   %[a10], %[x1], %[y], %[a10]\n\t"            \
  "ldrsb %[y], " w1a "\n\t"                           \
  "mla   %[a01], %[x0], %[y], %[a01]\n\t"            \
  "mla   %[a11], %[x1], %[y], %[a11]\n\t"
#define EMBER_MM_OFF(k) EMBER_MM_K2("[%[l0], #" #k "]", "[%[l1], #" #k "]", "[%[w0], #" #k "]", "[%[w1], #" #k "]")
inline void dot_2x2_body(const int8_t*& l0, const int8_t*& l1, const int8_t*& w0, const int8_t*& w1, int32_t n4,
                         uint32_t& a00, uint32_t& a01, uint32_t& a10, uint32_t& a11) {
  if (n4 <= 0) return;
  const int8_t* const end4 = l0 + 4 * n4;
  int32_t x0, x1, y;
  asm volatile("1:\n\t"
               EMBER_MM_OFF(1)
               EMBER_MM_OFF(2)
               EMBER_MM_OFF(3)
               EMBER_MM_K2("[%[l0]], #4", "[%[l1]], #4", "[%[w0]], #4", "[%[w1]], #4")
               "cmp   %[l0], %[end]\n\t"
               "bne   1b\n\t"
               : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [l0] "+r"(l0), [l1] "+r"(l1),
                 [w0] "+r"(w0), [w1] "+r"(w1), [x0] "=&r"(x0), [x1] "=&r"(x1), [y] "=&r"(y)
               : [end] "r"(end4)
               : "cc", "memory");
}
#undef EMBER_MM_OFF
#undef EMBER_MM_K2
#else
__attribute__((optimize("no-tree-reassoc"))) inline void dot_2x2_body(const int8_t*& l0, const int8_t*& l1,
                                                                       const int8_t*& w0, const int8_t*& w1,
                                                                       int32_t n4, uint32_t& a00, uint32_t& a01,
                                                                       uint32_t& a10, uint32_t& a11) {
  const int8_t* const end4 = l0 + 4 * n4;
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
}
#endif

// Rows l0, l1 against columns w0, w1 over d depth elements, on top of (b0, b1).
inline Acc2x2 dot_2x2(const int8_t* l0, const int8_t* l1, const int8_t* w0, const int8_t* w1, int32_t d,
                      int32_t b0, int32_t b1) {
  uint32_t a00 = static_cast<uint32_t>(b0), a01 = static_cast<uint32_t>(b1), a10 = a00, a11 = a01;
  dot_2x2_body(l0, l1, w0, w1, d >> 2, a00, a01, a10, a11);
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
// stack, compare and branch. Six accumulators, five pointers and
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

#if defined(__ARM_ARCH_7M__)
// Cortex-M3: the odd last row (all of a batch-1 linear layer) four columns at a time, summed
// and stored by one asm loop over the column groups: per group sixteen depth elements per pass
// (16 LDRSB of the row, 64 of the weights, 64 MLA, compare, branch; the depth's rest one
// element per turn), then each output in the FastOut form (primitives_scalar.h) with its
// constants formed from its multiplier and shift inside the asm, since each serves one output
// here (the C path, dot_1x4 and channel_requant, paid a call per group and the 64-bit
// requantization per output). Per output: right = -1 - shift, which must be in [1, 22]
// (else the loop stops before that group, whose outputs already stored were right, and the
// caller's C requantization takes the rest), the rounding constant 2^(right-1) + (zp << right),
// SMLAL onto it (high word h, low word lo), h >> right, and a possible tie (the dropped bits
// of h and lo all zero) fixed out of line by clearing the low bit of the value before the zero
// point, as EMBER_FAST_TIE does. The caller has checked that the clamp is the whole int8 range
// and that there is a group. Fourteen registers are in use (sums r4-r7, the row r0, weight
// columns r1 and r9-r11, r8 the RowGroups of mat_mult_s8_loops.h), more than GCC's allocator
// gives an asm statement, so they are named; GCC's prologue saves them, and its stack-usage
// figure counts that.
#define EMBER_R4_MAC(x, w0, w1, w2, w3) \
  "ldrsb r12, " x "\n"                  \
  "ldrsb lr, " w0 "\n"                  \
  "mla r4, r12, lr, r4\n"               \
  "ldrsb lr, " w1 "\n"                  \
  "mla r5, r12, lr, r5\n"               \
  "ldrsb lr, " w2 "\n"                  \
  "mla r6, r12, lr, r6\n"               \
  "ldrsb lr, " w3 "\n"                  \
  "mla r7, r12, lr, r7\n"
#define EMBER_R4_OFF(k) EMBER_R4_MAC("[r0, #" #k "]", "[r1, #" #k "]", "[r9, #" #k "]", "[r10, #" #k "]", "[r11, #" #k "]")
// Output j from the sum in register A (mat_mult_s8_loops.h's frame): SMLAL onto the rounding
// constant (high word h in r10, low word lo in r11), h >> right, and a possible tie (the
// dropped bits of h and lo all zero) out of line.
#define EMBER_R4_STORE(A, j)     \
  EMBER_ROW_OUT_CONSTANTS(j)     \
  "mov r11, #0\n"                \
  "smlal r11, r10, " A ", lr\n"  \
  "rsb lr, r9, #32\n"            \
  "lsls lr, r10, lr\n"           \
  "asr " A ", r10, r9\n"         \
  "beq 3" #j "f\n"               \
  EMBER_ROW_OUT_STORE(A, j)
#define EMBER_R4_TIE(A, j)       \
  "3" #j ":\n"                   \
  "cmp r11, #0\n"                \
  "bne 2" #j "b\n"               \
  EMBER_ROW_TIE_EVEN(A, j)
// The groups from g->out to g->out_end, the first group's weights at w0; g->out is where it
// stopped.
#define EMBER_R4_SUMS \
  "bic r3, r2, #15\n" \
  "add r3, r0, r3\n"  /* the end of the whole passes */ \
  "and r2, r2, #15\n"  /* the rest */ \
  "cmp r0, r3\n" \
  "beq 5f\n" \
  "4:\n" \
  EMBER_R4_OFF(1) EMBER_R4_OFF(2) EMBER_R4_OFF(3) EMBER_R4_OFF(4) EMBER_R4_OFF(5) EMBER_R4_OFF(6) \
  EMBER_R4_OFF(7) EMBER_R4_OFF(8) EMBER_R4_OFF(9) EMBER_R4_OFF(10) EMBER_R4_OFF(11) EMBER_R4_OFF(12) \
  EMBER_R4_OFF(13) EMBER_R4_OFF(14) EMBER_R4_OFF(15) \
  EMBER_R4_MAC("[r0], #16", "[r1], #16", "[r9], #16", "[r10], #16", "[r11], #16") \
  "cmp r0, r3\n" \
  "bne 4b\n" \
  "5:\n" \
  "cbz r2, 7f\n" \
  "6:\n" \
  EMBER_R4_MAC("[r0], #1", "[r1], #1", "[r9], #1", "[r10], #1", "[r11], #1") \
  "subs r2, #1\n" \
  "bne 6b\n"
__attribute__((noinline)) void row_groups(RowGroups* g, const int8_t* w0) {
  EMBER_ROW_GROUPS(EMBER_R4_SUMS, EMBER_R4_STORE, EMBER_R4_TIE);
}
#undef EMBER_R4_SUMS
#undef EMBER_R4_TIE
#undef EMBER_R4_STORE
#undef EMBER_R4_OFF
#undef EMBER_R4_MAC
#endif

inline uint32_t dot_1x1(const int8_t* a, const int8_t* b, int32_t d, int32_t bias) {
  uint32_t acc = static_cast<uint32_t>(bias);
  for (int32_t k = 0; k < d; ++k) acc = mac(acc, a[k], b[k]);
  return acc;
}

#if defined(__ARM_ARCH_7M__)
constexpr auto kLastRow = last_row_groups<row_groups, dot_1x4, dot_1x1>;
#else
constexpr auto kLastRow = nullptr;  // mat_mult_s8_loops.h's, with dot_1x4
#endif

// Column triples, before mat_mult_s8_loops' pairs: one column left over would take the slow
// single-column loop, so cols = 3n + 1 runs n - 1 triples and two pairs. Returns the first
// column left.
inline int32_t triple_columns(const MatMultLocals& v) {
  if (v.rows < 2) return 0;
  const int32_t cols = v.cols, d = v.d;
  const size_t ls = v.lhs_stride, os = v.out_stride;
  const int32_t triples_end = cols % 3 == 1 && cols >= 4 ? cols - 4 : cols - cols % 3;
  const bool full_range = v.oc.lo == -128 - v.oc.zp && v.oc.hi == 127 - v.oc.zp;  // act range all of int8
  int32_t c = 0;
  for (; c < triples_end; c += 3) {
    const int8_t* w0 = v.rhs + static_cast<size_t>(c) * d;
    const int8_t* l0 = v.lhs;
    int8_t* o0 = v.out + c;
    FastTable t;
    bool fast = kFastOutAsm;
    for (int32_t j = 0; j < 3; ++j) fast = fast && fast_out(v.mult[c + j], v.shift[c + j], v.oc.zp, full_range, &t.out[j]);
    if (fast) {  // the usual case (Cortex-M3): the outputs in asm
      t.zp = v.oc.zp;
      for (int32_t r = 0; r + 2 <= v.rows; r += 2, l0 += 2 * ls, o0 += 2 * os) {
        const Acc2x3 a = dot_2x3(l0, l0 + ls, w0, d, v.bias + c);
        store_fast<3>(t, a.a[0], o0);
        store_fast<3>(t, a.a[1], o0 + os);
      }
      continue;
    }
    ChannelRequant q[3];
    for (int32_t j = 0; j < 3; ++j) q[j] = channel_requant(v.mult[c + j], v.shift[c + j]);
    for (int32_t r = 0; r + 2 <= v.rows; r += 2, l0 += 2 * ls, o0 += 2 * os) {
      const Acc2x3 a = dot_2x3(l0, l0 + ls, w0, d, v.bias + c);
      for (int32_t j = 0; j < 3; ++j) {
        o0[j] = out_s8(v.oc, q[j], a.a[0][j]);
        o0[os + j] = out_s8(v.oc, q[j], a.a[1][j]);
      }
    }
  }
  return c;
}

}  // namespace

void mat_mult_s8(const MatMultS8& m) { mat_mult_s8_loops<dot_2x2, dot_1x4, dot_1x1, triple_columns, kLastRow>(m); }

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR
