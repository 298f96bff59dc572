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

#pragma once

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
