//===- primitives_scalar.h - Shared inner primitives, plain C++ -*- C++ -*-===//
//
// Requantization and small helpers every tier's kernels use, written for Thumb-2 (and any
// host). The numerics are the portable ones (kernels/portable/requantize.h) bit for bit:
// requantize_s8 is an exact rewrite of requantize_to_s8 in 32-bit pieces.
// Plain C++: the DSP and MVE tiers include it for their tails.

#pragma once

#include <stdint.h>
#include <string.h>

#include "ember/kernels/portable/requantize.h"

#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
#include <arm_acle.h>
#endif

namespace ember::kernels::arm {

/// requantize_to_s8(acc, multiplier, shift, zp, lo, hi), exactly, in 32-bit pieces: one
/// SMLAL with a rounding constant, one shift, and a tie test that is one compare in the usual
/// (not a tie) case.
///   shift = -k <= -1: with P = acc * multiplier (|P| < 2^62) and n = 31 + k >= 32, round half
///     up is floor(Q / 2^n) with Q = P + 2^(n-1) (|Q| < 2^63): the high word of Q shifted right
///     by n - 32 = k - 1. SMLAL adds P to the constant (2^(n-1) is 2^31 in the low word when
///     k = 1, else 2^(k-2) in the high word). A tie (P mod 2^n == 2^(n-1)) is Q mod 2^n == 0:
///     the low word zero and the high word's low k - 1 bits zero. The result is within 2^30 of
///     zero.
///   shift >= 0: the value is a * multiplier / 2^31 with a = acc * 2^shift. With multiplier
///     in [2^30, 2^31) (the loader's valid_multiplier; 0 gives 0 on every path), |acc| >= 512
///     makes |value| >= 256, beyond every clamp bound (act_max - zp <= 255, act_min - zp >=
///     -255), so acc is first saturated to [-512, 511] (SSAT #10): 511 and -512 still give
///     |value| >= 255.5, which rounds to 256 or beyond. A shift above 21 is applied as 21:
///     then any nonzero acc gives |value| >= 2^20 either way, and |a| <= 2^30 never overflows.
///     Round half up is floor((a * multiplier + 2^30) / 2^31) (SMLAL, then the 31-bit funnel
///     shift of the two words); a tie is the low 31 bits of that sum being zero.
/// Half to even then clears the low bit of a tie's rounded-up value. The clamp is done before
/// adding zp, to [act_min - zp, act_max - zp] (no int32 overflow whatever r is), which makes the
/// portable int32 saturation invisible. requantize_s8 (below) is channel_requant, then
/// requantize_value, then clamp_output; a kernel that requantizes several accumulators of one
/// channel computes the first once.

/// acc saturated to [-512, 511]: one SSAT where the core has it (v7-M and later).
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
inline int32_t saturate_s10(int32_t acc) { return __ssat(acc, 10); }
#else
inline int32_t saturate_s10(int32_t acc) { return acc < -512 ? -512 : (acc > 511 ? 511 : acc); }
#endif

/// The per-channel half of requantize_s8, for kernels that requantize several accumulators of
/// one output channel: everything that depends on (multiplier, shift) only.
struct ChannelRequant {
  int32_t multiplier;
  int32_t right;   // shift <= -1: n - 32 = -shift - 1 in [0, 30]; shift >= 0: -1
  int32_t left;    // shift >= 0: min(shift, 21); else 0
  uint32_t low;    // shift <= -1: 2^right - 1, the high word's bits below the result
  int64_t round;   // 2^(n-1), or 2^30 for shift >= 0
};

inline ChannelRequant channel_requant(int32_t multiplier, int32_t shift) {
  ChannelRequant q;
  q.multiplier = multiplier;
  if (shift < 0) {
    q.right = -shift - 1, q.left = 0;
    q.low = (uint32_t{1} << q.right) - 1u;
    q.round = int64_t{1} << (30 - shift);
  } else {
    q.right = -1, q.left = shift < 21 ? shift : 21;
    q.low = 0;
    q.round = int64_t{1} << 30;
  }
  return q;
}

/// The rounded value before the zero point and the clamp (exact after the clamp, see above).
inline int32_t requantize_value(const ChannelRequant& q, int32_t acc) {
  int32_t r;
  if (q.right >= 0) {
    const int64_t v = q.round + static_cast<int64_t>(acc) * q.multiplier;  // one SMLAL
    const uint32_t lo = static_cast<uint32_t>(v);
    const int32_t hi = static_cast<int32_t>(static_cast<uint64_t>(v) >> 32);
    r = hi >> q.right;
    if (lo == 0 && (static_cast<uint32_t>(hi) & q.low) == 0) r &= ~int32_t{1};
  } else {
    const int32_t a = saturate_s10(acc) * (int32_t{1} << q.left);
    const int64_t v = q.round + static_cast<int64_t>(a) * q.multiplier;
    r = static_cast<int32_t>(v >> 31);
    if ((static_cast<uint32_t>(v) << 1) == 0) r &= ~int32_t{1};
  }
  return r;
}

/// The per-layer output stage: the zero point and the activation bounds less the zero point.
struct OutputClamp {
  int32_t zp, lo, hi;
};

inline OutputClamp output_clamp(int32_t zp, int32_t act_min, int32_t act_max) {
  return OutputClamp{zp, act_min - zp, act_max - zp};
}

/// Clamping before adding zp cannot overflow int32, whatever r is.
inline int8_t clamp_output(const OutputClamp& o, int32_t r) {
  r = r < o.lo ? o.lo : (r > o.hi ? o.hi : r);
  return static_cast<int8_t>(r + o.zp);
}

inline int8_t requantize_s8(int32_t acc, int32_t multiplier, int32_t shift, int32_t zp,
                            int32_t act_min, int32_t act_max) {
  return clamp_output(output_clamp(zp, act_min, act_max),
                      requantize_value(channel_requant(multiplier, shift), acc));
}

/// multiply_by_quantized_multiplier(x, multiplier, shift) for multiplier >= 0 and shift in
/// [-31, 0] (add's input rescaling), exactly. gemmlowp's saturating rounding doubling high
/// multiply (nudge, then truncate toward zero) equals floor((x * m + 2^30) / 2^31) on both
/// signs, and cannot saturate with m >= 0; the rounding divide by 2^e rounds half away from
/// zero: floor((h + 2^(e-1)) / 2^e), less one on negative ties (h - 1 for negative h).
inline int32_t scale_input_s32(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t h = static_cast<int32_t>((static_cast<int64_t>(x) * multiplier + (int64_t{1} << 30)) >> 31);
  if (shift == 0) return h;
  const int e = -shift;
  const int32_t hf = h + (h >> 31);  // |h| <= 2^30: no overflow
  // floor((hf + 2^(e-1)) / 2^e) in 32 bits: floor(hf / 2^e) plus bit e - 1 of hf (the
  // remainder reaches one half exactly when that bit is set).
  return (hf >> e) + ((hf >> (e - 1)) & 1);
}

/// Four bytes from any address (unaligned loads are legal on v7-M and later; memcpy lets the
/// compiler emit one LDR).
inline uint32_t read_u32(const int8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/// Fills n bytes with value (im2col padding).
inline void fill_s8(int8_t* dst, int8_t value, int32_t n) {
  for (int32_t i = 0; i < n; ++i) dst[i] = value;
}

/// Copies n bytes (im2col rows; n is a channel count, usually small).
inline void copy_s8(int8_t* dst, const int8_t* src, int32_t n) { memcpy(dst, src, static_cast<size_t>(n)); }

/// A channel's requantization in the form the asm loops of the DSP tier and the Cortex-M3 take
/// (depthwise_conv2d_s8_strip.cc, mat_mult_s8_dsp.cc), when its shift is in [-23, -2] and the
/// activation range is all of int8 (every zoo layer). With right = -shift - 1 >= 1,
/// requantize_s8's rounding constant 2^(31 + right) has no low word, so the high word h of
/// acc * m + constant is one SMMLA (on the M3: SMLAL onto rh:0) with rh = 2^(right - 1); rh
/// also holds zp * 2^right, which the shift turns into + zp (right <= 22 keeps h within int32:
/// |acc * m / 2^32| < 2^30). SSAT #8 is then the clamp. A tie (half to even) needs h's low
/// `right` bits zero, one TST against `low` (1 output in 2^right), and the product's low word
/// zero (MUL, out of line); it clears the low bit of the value before zp.
struct FastOut {
  int32_t m, rh, right, low;
};

/// Whether a channel (its multiplier and shift) takes the FastOut form, and then its constants
/// in *f. Straight from the two values: the loops that set a channel up per block would pay
/// more for channel_requant's 64-bit rounding constant, which the asm paths never read.
inline bool fast_out(int32_t multiplier, int32_t shift, int32_t zp, bool full_range, FastOut* f) {
  const int32_t right = -1 - shift;  // channel_requant's right for shift <= -1
  if (!full_range || right < 1 || right > 22) return false;
  *f = FastOut{multiplier, static_cast<int32_t>((uint32_t{1} << (right - 1)) + (static_cast<uint32_t>(zp) << right)),
               right, static_cast<int32_t>((uint32_t{1} << right) - 1u)};
  return true;
}

}  // namespace ember::kernels::arm
