//===- fast_out_asm.h - FastOut requantization as assembly text ------------===//
//
// The per-channel output arithmetic of the FastOut form (primitives_scalar.h) for the asm
// loops of the DSP tier and the Cortex-M3, shared by the depthwise strip's 3x3 loop
// (depthwise_conv2d_s8_strip.cc) and the listed-taps kernel's output groups
// (depthwise_conv2d_s8_scalar.cc). The asm statement that uses them names its operands:
//   [t]     a table holding four FastOut at byte offset %c[outs] and the output zero point at
//           %c[zp];
//   [out]   where channel c's byte goes ([out, #c]);
//   [x0], [x1], [w0], [w1]   scratch registers.
// EMBER_FAST_OUT(a, c) turns sum a into channel c's byte and stores it; EMBER_FAST_TIE(a, c),
// placed out of line (.subsection 1), is its fix-up for a possible tie: when the product's low
// word is zero too, the value before the zero point loses its low bit (half to even).
// store_fast (below) is the same for up to four sums in C++ loops (the listed-taps depthwise
// kernel's channel groups, the Cortex-M3 product's column triples).

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/arm/primitives_scalar.h"
#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_DSP
// h = SMMLA(a, m, rh) in x1, m kept in x0 for a tie.
#define EMBER_FAST_OUT(a, c)                                     \
  "ldrd   %[x0], %[x1], [%[t], #%c[outs]+" #c "*16]\n\t"        \
  "smmla  %[x1], %[" a "], %[x0], %[x1]\n\t"                    \
  "ldrd   %[w0], %[w1], [%[t], #%c[outs]+" #c "*16+8]\n\t"      \
  "tst    %[x1], %[w1]\n\t"                                     \
  "beq    3" #c "f\n\t"                                         \
  "asr    %[" a "], %[x1], %[w0]\n"                              \
  "2" #c ":\n\t"                                                \
  "ssat   %[" a "], #8, %[" a "]\n\t"                           \
  "strb   %[" a "], [%[out], #" #c "]\n\t"
// A tie candidate: the product's low word (MUL) decides.
#define EMBER_FAST_TIE_LOW(a)                                    \
  "mul    %[x0], %[" a "], %[x0]\n\t"                           \
  "asr    %[" a "], %[x1], %[w0]\n\t"                           \
  "cmp    %[x0], #0\n\t"
#elif defined(__ARM_ARCH_7M__)
// x1:w0 = rh:0 + a * m (SMLAL), so x1 is the high word SMMLA would give and w0 the product's
// low word, kept for a tie.
#define EMBER_FAST_OUT(a, c)                                     \
  "ldrd   %[x0], %[x1], [%[t], #%c[outs]+" #c "*16]\n\t"        \
  "mov    %[w0], #0\n\t"                                        \
  "smlal  %[w0], %[x1], %[" a "], %[x0]\n\t"                    \
  "ldrd   %[x0], %[w1], [%[t], #%c[outs]+" #c "*16+8]\n\t"      \
  "tst    %[x1], %[w1]\n\t"                                     \
  "asr    %[" a "], %[x1], %[x0]\n\t"                           \
  "beq    3" #c "f\n"                                            \
  "2" #c ":\n\t"                                                \
  "ssat   %[" a "], #8, %[" a "]\n\t"                           \
  "strb   %[" a "], [%[out], #" #c "]\n\t"
#define EMBER_FAST_TIE_LOW(a) "cmp    %[w0], #0\n\t"
#endif

#if EMBER_TIER == EMBER_TIER_DSP || defined(__ARM_ARCH_7M__)
#define EMBER_FAST_TIE(a, c)                                     \
  "3" #c ":\n\t"                                                \
  EMBER_FAST_TIE_LOW(a)                                          \
  "bne    2" #c "b\n\t"                                         \
  "ldr    %[x0], [%[t], #%c[zp]]\n\t"                           \
  "sub    %[" a "], %[" a "], %[x0]\n\t"                        \
  "bic    %[" a "], %[" a "], #1\n\t"                           \
  "add    %[" a "], %[" a "], %[x0]\n\t"                        \
  "b      2" #c "b\n\t"
#endif

namespace ember::kernels::arm {

// Up to four channels' FastOut constants and the output zero point, where the macros read them.
struct FastTable {
  FastOut out[4];
  int32_t zp;
};

#if EMBER_TIER == EMBER_TIER_DSP || defined(__ARM_ARCH_7M__)
inline constexpr bool kFastOutAsm = true;

// The sums a[0..N) of N FastOut channels (t.out[0..N)) to out[0..N), N 3 or 4: less than
// half of requantize_value's C, whose constants GCC spills in these loops.
template <int N>
__attribute__((always_inline)) inline void store_fast(const FastTable& t, const uint32_t* a, int8_t* out) {
  static_assert(N == 3 || N == 4, "three or four sums");
  uint32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = N == 4 ? a[3] : 0, x0, x1, w0, w1;
  asm volatile(
      EMBER_FAST_OUT("a0", 0) EMBER_FAST_OUT("a1", 1) EMBER_FAST_OUT("a2", 2)
      ".if %c[n] == 4\n\t"
      EMBER_FAST_OUT("a3", 3)
      ".endif\n\t"
      ".subsection 1\n"
      EMBER_FAST_TIE("a0", 0) EMBER_FAST_TIE("a1", 1) EMBER_FAST_TIE("a2", 2)
      ".if %c[n] == 4\n\t"
      EMBER_FAST_TIE("a3", 3)
      ".endif\n\t"
      ".previous\n\t"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x0] "=&r"(x0), [x1] "=&r"(x1),
        [w0] "=&r"(w0), [w1] "=&r"(w1)
      : [t] "r"(&t), [out] "r"(out), [n] "i"(N), [outs] "i"(offsetof(FastTable, out)),
        [zp] "i"(offsetof(FastTable, zp))
      : "cc", "memory");
}
#else  // no asm form: the callers' C requantization runs instead
inline constexpr bool kFastOutAsm = false;
template <int N>
inline void store_fast(const FastTable&, const uint32_t*, int8_t*) {}
#endif

}  // namespace ember::kernels::arm
