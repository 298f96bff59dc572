//===- depthwise_conv2d_s8_mve.cc - Depthwise convolution with Helium -----===//
//
// Sixteen channels per vector. MVE has no lane-wise vector-by-vector multiply-accumulate, so
// each tap is VMULLB/VMULLT.S8 (exact int16 products of the even and odd channels) widened
// into four int32 accumulators (VMOVLB/VMOVLT + VADD), fewer instructions than four-channel
// VLDRB.S32 loads. Full groups take the taps two at a time (tap_pair): the two taps' int16
// products are added in int16 and widened once.
// That is exact only for weights in [-127, 127], which this tier's check requires (a filter
// holding -128 is refused with BadQuantization; the compiler gives such an op the portable
// kernel). A tail group, and an odd last tap, take one tap at a time.
//
// The loop order is channel group (outer), pixel, tap (inner): the accumulators stay in
// registers across the taps, and the group's bias, multipliers and shifts are reordered once
// into the accumulators' lane order (acc0 holds channels 0, 4, 8, 12; acc1 2, 6, 10, 14;
// acc2 1, 5, 9, 13; acc3 3, 7, 11, 15). Saturating narrows (VQMOVNB/VQMOVNT) put the bytes
// back in channel order and clamp to [-128, 127]; the activation clamp is then two int8 ops
// per 16 outputs. Interior pixels take every tap without bounds checks (an unrolled 3x3 for
// dilation 1); border pixels use the same taps with 16 bytes of input_zp in place of the
// taps outside the input, which the folded bias (kernels/arm/fold.h) expects. A channel tail
// is one zero-predicated group. Two special cases: small padded maps run every pixel through
// the interior kernel on a zero-point-padded strip (group_strip), and 8-channel layers pack
// two pixels per vector (group_packed). Cortex-M55/M85.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include <stddef.h>
#include <string.h>

#include "ember/kernels/arm/depthwise_conv2d_s8.h"
#include "ember/kernels/arm/primitives_mve.h"

namespace ember::kernels::arm {
namespace {

// Which requantization a group needs: the shift >= 0 and shift <= -1 forms are each about
// half the cost of the any-shift one.
enum class Shifts { Right, Left, Mixed };

// One group's per-channel constants in accumulator lane order (slot 4 * q + j is lane j of
// accumulator q).
struct Group {
  int32_t bias[16], mult[16], shift[16];
  Shifts mode;
};

// Accumulator q's lanes hold channels kLaneChannel[q] + 4 j (j = 0..3); with packed lanes (two
// pixels of 8 channels) lane l is channel l % 8.
constexpr uint32_t kLaneChannels[2][4][4] = {
    {{0, 4, 8, 12}, {2, 6, 10, 14}, {1, 5, 9, 13}, {3, 7, 11, 15}},
    {{0, 4, 0, 4}, {2, 6, 2, 6}, {1, 5, 1, 5}, {3, 7, 3, 7}},
};

// The group's constants gathered into lane order (VLDRW gathers; scalar loops cost several
// times as much, which counts where groups have few pixels, as in sww). Lanes past count load
// nothing (zero-predicated).
void prepare(const DepthwiseS8& d, int32_t c0, int32_t count, Group* g, bool packed = false) {
  const int32_t* const bias = d.bias + c0;
  const int32_t* const mult = d.multiplier + c0;
  const int32_t* const shift = d.shift + c0;
  const uint32x4_t n = vdupq_n_u32(static_cast<uint32_t>(count));
  const uint32_t(&lanes)[4][4] = kLaneChannels[packed ? 1 : 0];
  // Two passes, so that no vector lives across the loop (it would add to the frame).
  int32x4_t lo = vdupq_n_s32(INT32_MAX), hi = vdupq_n_s32(INT32_MIN);
  for (int32_t q = 0; q < 4; ++q) {
    const uint32x4_t ch = vld1q_u32(lanes[q]);
    const mve_pred16_t p = vcmphiq_u32(n, ch);  // ch < count
    const int32x4_t s = vldrwq_gather_shifted_offset_z_s32(shift, ch, p);
    lo = vminq_m_s32(lo, lo, s, p);
    hi = vmaxq_m_s32(hi, hi, s, p);
  }
  const bool any_left = vmaxvq_s32(INT32_MIN, hi) >= 0, any_right = vminvq_s32(INT32_MAX, lo) < 0;
  g->mode = any_left && any_right ? Shifts::Mixed : (any_left ? Shifts::Left : Shifts::Right);
  // Inactive lanes: multiplier 0 gives 0 in every form; a shift in the form's range.
  const int32x4_t idle = vdupq_n_s32(g->mode == Shifts::Right ? -1 : 0);
  for (int32_t q = 0; q < 4; ++q) {
    const uint32x4_t ch = vld1q_u32(lanes[q]);
    const mve_pred16_t p = vcmphiq_u32(n, ch);
    vstrwq_s32(g->bias + 4 * q, vldrwq_gather_shifted_offset_z_s32(bias, ch, p));
    vstrwq_s32(g->mult + 4 * q, vldrwq_gather_shifted_offset_z_s32(mult, ch, p));
    vstrwq_s32(g->shift + 4 * q, vpselq_s32(vldrwq_gather_shifted_offset_z_s32(shift, ch, p), idle, p));
  }
}

struct Acc {
  int32x4_t a0, a1, a2, a3;
};

inline void widen_add(Acc& a, int16x8_t even, int16x8_t odd) {
  a.a0 = vaddq_s32(a.a0, vmovlbq_s16(even));
  a.a1 = vaddq_s32(a.a1, vmovltq_s16(even));
  a.a2 = vaddq_s32(a.a2, vmovlbq_s16(odd));
  a.a3 = vaddq_s32(a.a3, vmovltq_s16(odd));
}

// The empty asm pins the four sums in Q registers after every tap. Without it GCC 12 hoists
// later taps' loads, or defers the additions, past the eight Q registers and spills.
inline void pin(Acc& a) { __asm__ volatile("" : "+w"(a.a0), "+w"(a.a1), "+w"(a.a2), "+w"(a.a3)::"memory"); }

inline void tap(Acc& a, int8x16_t x, int8x16_t w) {
  widen_add(a, vmullbq_int_s8(x, w), vmulltq_int_s8(x, w));
  pin(a);
}

// Full groups load unpredicated (a predicated load costs a VPST and predicate moves).
template <bool kTail>
inline int8x16_t load16(const int8_t* p, mve_pred16_t pred) {
  return kTail ? vldrbq_z_s8(p, pred) : vldrbq_s8(p);
}

// Two taps (inputs x0, x1, weights w0, w1) whose int16 products are summed in int16 and
// widened once, instead of widening each tap's. Exact because the weights are in
// [-127, 127] (check_depthwise_conv2d_s8 refuses a filter holding -128 on this tier) and every
// input byte, padding (input_zp) included, is in [-128, 127]: |x * w| <= 128 * 127 = 16,256,
// so the sum of two is at most 32,512 in magnitude, inside int16. (A weight of -128 would
// allow 128 * 128 * 2 = 32,768.) The inputs are raw bytes, never x - input_zp (up to 255 in
// magnitude, 64,770 for two taps): the folded bias carries the zero point.
// In assembly: the four sums, the two int16 sums and two loaded vectors fill the eight Q
// registers, so x1's even-lane product goes where x1 was (VMULL.S8 may write a source; only
// .S32 may not) and x1 is loaded again for the odd lanes. GCC 12, given the intrinsics,
// computes x1's product first and spills it.
// X0, W0, X1, W1 are the four vectors' address operands ("[%[x0]]", "[%[w], #16]", ...); STEP,
// if not empty, runs after each input is read the last time (taps_row_packed's ADD of the tap
// stride, with X0 and X1 the same running pointer).
#define EMBER_DW_PAIR_STEP(X0, W0, X1, W1, STEP)        \
  "vldrb.8 %q[t0], " X0 "\n\t"                         \
  STEP                                                  \
  "vldrb.8 %q[t1], " W0 "\n\t"                         \
  "vmullb.s8 %q[e], %q[t0], %q[t1]\n\t"                \
  "vmullt.s8 %q[o], %q[t0], %q[t1]\n\t"                \
  "vldrb.8 %q[t0], " X1 "\n\t"                         \
  "vldrb.8 %q[t1], " W1 "\n\t"                         \
  "vmullb.s8 %q[t0], %q[t0], %q[t1]\n\t"               \
  "vadd.i16 %q[e], %q[e], %q[t0]\n\t"                  \
  "vldrb.8 %q[t0], " X1 "\n\t"                         \
  STEP                                                  \
  "vmullt.s8 %q[t0], %q[t0], %q[t1]\n\t"               \
  "vadd.i16 %q[o], %q[o], %q[t0]\n\t"                  \
  EMBER_DW_WIDEN
#define EMBER_DW_PAIR(X0, W0, X1, W1) EMBER_DW_PAIR_STEP(X0, W0, X1, W1, "")
// One tap alone: its int16 products widened into the sums.
#define EMBER_DW_SINGLE(X, W)                           \
  "vldrb.8 %q[t0], " X "\n\t"                          \
  "vldrb.8 %q[t1], " W "\n\t"                          \
  "vmullb.s8 %q[e], %q[t0], %q[t1]\n\t"                \
  "vmullt.s8 %q[o], %q[t0], %q[t1]\n\t"                \
  EMBER_DW_WIDEN
#define EMBER_DW_WIDEN                                  \
  "vmovlb.s16 %q[t0], %q[e]\n\t"                       \
  "vmovlt.s16 %q[t1], %q[e]\n\t"                       \
  "vadd.i32 %q[a0], %q[a0], %q[t0]\n\t"                \
  "vadd.i32 %q[a1], %q[a1], %q[t1]\n\t"                \
  "vmovlb.s16 %q[t0], %q[o]\n\t"                       \
  "vmovlt.s16 %q[t1], %q[o]\n\t"                       \
  "vadd.i32 %q[a2], %q[a2], %q[t0]\n\t"                \
  "vadd.i32 %q[a3], %q[a3], %q[t1]\n\t"
#define EMBER_DW_PAIR_OUT                                                                                  \
  [a0] "+w"(a.a0), [a1] "+w"(a.a1), [a2] "+w"(a.a2), [a3] "+w"(a.a3), [e] "=&w"(e), [o] "=&w"(o), \
      [t0] "=&w"(t0), [t1] "=&w"(t1)

template <bool kTail>
inline void tap_pair(Acc& a, const int8_t* x0, const int8_t* w0, const int8_t* x1, const int8_t* w1,
                     mve_pred16_t p) {
  if (kTail) {  // GCC's inline asm cannot name the predicate register: one tap at a time
    tap(a, load16<kTail>(x0, p), load16<kTail>(w0, p));
    tap(a, load16<kTail>(x1, p), load16<kTail>(w1, p));
    return;
  }
  int16x8_t e, o;
  int8x16_t t0, t1;
  __asm__ volatile(EMBER_DW_PAIR("[%[x0]]", "[%[w0]]", "[%[x1]]", "[%[w1]]")
                   : EMBER_DW_PAIR_OUT
                   : [x0] "r"(x0), [w0] "r"(w0), [x1] "r"(x1), [w1] "r"(w1)
                   : "memory");
}

// A full group's 3x3 window, dilation 1, from kPixel-byte pixels (16: the strip; 8: two 8-channel
// pixels per vector, group_packed) with the weights in a table 16 bytes apart: every load is at
// an immediate offset from one of three row pointers or the table, so the window costs no
// address arithmetic (which run-time strides would need per tap).
// Four pairs and one tap, as interior's 3x3. The table is addressed from its middle: VLDRB
// offsets reach +-127.
#define EMBER_DW_3X3(X1, X2)                                                                  \
  EMBER_DW_PAIR("[%[x0]]", "[%[w], #-64]", "[%[x0], #" X1 "]", "[%[w], #-48]")                \
  EMBER_DW_PAIR("[%[x0], #" X2 "]", "[%[w], #-32]", "[%[x1]]", "[%[w], #-16]")                \
  EMBER_DW_PAIR("[%[x1], #" X1 "]", "[%[w]]", "[%[x1], #" X2 "]", "[%[w], #16]")              \
  EMBER_DW_PAIR("[%[x2]]", "[%[w], #32]", "[%[x2], #" X1 "]", "[%[w], #48]")                  \
  EMBER_DW_SINGLE("[%[x2], #" X2 "]", "[%[w], #64]")
template <int kPixel>
__attribute__((always_inline)) inline void taps_3x3_packed(Acc& a, const int8_t* x0, size_t rs, const int8_t* w) {
  static_assert(kPixel == 16 || kPixel == 8, "strip (or a 16-channel input) or packed pixels");
  const int8_t* x1 = x0 + rs;
  const int8_t* x2 = x1 + rs;
  int16x8_t e, o;
  int8x16_t t0, t1;
#define EMBER_DW_3X3_OPERANDS \
  : EMBER_DW_PAIR_OUT : [x0] "r"(x0), [x1] "r"(x1), [x2] "r"(x2), [w] "r"(w + 64) : "memory"
  if constexpr (kPixel == 16)
    __asm__ volatile(EMBER_DW_3X3("16", "32") EMBER_DW_3X3_OPERANDS);
  else
    __asm__ volatile(EMBER_DW_3X3("8", "16") EMBER_DW_3X3_OPERANDS);
#undef EMBER_DW_3X3_OPERANDS
}
#undef EMBER_DW_3X3
// A full group's window of one row (filter_h 1: sww's 1-D windows, after column_as_row) of
// `taps` >= 1 taps, xs bytes apart in the input, the weights in a 16-byte-stride table: the taps
// in pairs in a low-overhead loop (LE), the weights by post-increment, the input by one ADD per
// tap, then an odd last tap alone.
__attribute__((always_inline)) inline void taps_row_packed(Acc& a, const int8_t* x, size_t xs, const int8_t* w,
                                                           int32_t taps) {
  int16x8_t e, o;
  int8x16_t t0, t1;
  const int32_t pairs = taps >> 1;
  if (pairs > 0) {
    __asm__ volatile(
        "dls lr, %[pairs]\n\t"
        "1:\n\t"
        EMBER_DW_PAIR_STEP("[%[x]]", "[%[w]], #16", "[%[x]]", "[%[w]], #16", "add %[x], %[x], %[xs]\n\t")
        "le lr, 1b\n\t"
        : EMBER_DW_PAIR_OUT, [x] "+r"(x), [w] "+r"(w)
        : [xs] "r"(xs), [pairs] "r"(pairs)
        : "lr", "memory");
  }
  if (taps & 1) {
    __asm__ volatile(EMBER_DW_SINGLE("[%[x]]", "[%[w]]")
                     : EMBER_DW_PAIR_OUT
                     : [x] "r"(x), [w] "r"(w)
                     : "memory");
  }
}
#undef EMBER_DW_PAIR_OUT
#undef EMBER_DW_WIDEN
#undef EMBER_DW_SINGLE
#undef EMBER_DW_PAIR
#undef EMBER_DW_PAIR_STEP

// A window's taps paired in the order they come (across row ends too): `held` is a tap waiting
// for the next one, taken alone by end_taps if none comes. Forced inline, so the pointers stay
// in registers.
template <bool kTail>
__attribute__((always_inline)) inline void add_tap(Acc& a, const int8_t*& held, const int8_t*& held_w,
                                                   const int8_t* x, const int8_t* w, mve_pred16_t p) {
  if (held == nullptr) {
    held = x, held_w = w;
    return;
  }
  tap_pair<kTail>(a, held, held_w, x, w, p);
  held = nullptr;
}
template <bool kTail>
__attribute__((always_inline)) inline void end_taps(Acc& a, const int8_t* held, const int8_t* held_w,
                                                    mve_pred16_t p) {
  if (held != nullptr) tap(a, load16<kTail>(held, p), load16<kTail>(held_w, p));
}

struct Ctx {
  const DepthwiseS8* d;
  const Group* g;
  int32_t c0;          // first channel of the group
  size_t row;          // input row stride in bytes
  mve_pred16_t pred;   // active channels (tail group)
  int8x16_t zp;        // input_zp in every lane
  const int8_t* zp_bytes;  // 16 bytes of input_zp (border taps outside the input)
  int8x16_t act_min, act_max;
  const int8_t* w;     // the group's first tap weights (interior), taps ws bytes apart
  int32_t ws;
};

inline int32x4_t rescale(Shifts mode, int32x4_t acc, const int32_t* mult, const int32_t* shift) {
  const int32x4_t m = vldrwq_s32(mult), s = vldrwq_s32(shift);
  if (mode == Shifts::Right) return requantize_mve(acc, m, s);
  if (mode == Shifts::Left) return requantize_mve_left(acc, m, s);
  return requantize_mve_any(acc, m, s);
}

// Accumulator q's products with its multipliers (Group.mult + 16 q bytes, in TM): the doubled
// low words, whose zero lanes may round a tie (requantize_mve), go to VPR.P0 and then FLAG;
// the accumulator becomes VQDMULH(acc, m).
#define EMBER_DW_PRODUCT(A, OFF, FLAG)                                                             \
  "vldrw.32 %q[tm], [%[g], #" OFF "]\n"                                                            \
  EMBER_MVE_LOW2("%q[tl]", "%q[" A "]", "%q[tm]")                                                  \
  "vcmp.i32 eq, %q[tl], zr\n"                                                                      \
  "vmrs %[" FLAG "], p0\n"                                                                         \
  "vqdmulh.s32 %q[" A "], %q[" A "], %q[tm]\n"
// Accumulator q's rounding shift (Group.shift + 16 q bytes, OFF) where FLAG marks lanes that
// may be ties: half = 2^(k-1) and the dropped bits' mask per lane; a lane whose dropped bits
// are exactly half rounds to even (low bit cleared).
#define EMBER_DW_TIE(A, OFF, FLAG)                                                                 \
  "vldrw.32 %q[tm], [%[g], #" OFF "]\n"                                                            \
  EMBER_MVE_HALF_MASK("%q[tm]", "%q[tl]", "%q[tm]", "%[one]")                                      \
  "vmsr p0, %[" FLAG "]\n"                                                                         \
  EMBER_MVE_TIE_LANES("%q[" A "]", "%q[tl]", "%q[tl]", "%q[tm]")                                   \
  "vldrw.32 %q[tm], [%[g], #" OFF "]\n"                                                            \
  EMBER_MVE_SHIFT_EVEN("%q[" A "]", "%q[tm]")

// finish for a full group whose shifts are all <= -1 (Shifts::Right), in assembly: the C form
// keeps both the sums and the products past the eight Q registers and spills, and tests each
// vector for ties on its own. Here the four vectors' tie candidates are tested with one branch;
// the rare pixel with one takes the fix-up in subsection 1.
__attribute__((always_inline)) inline void finish_right(const Ctx& k, Acc a, int8_t* out) {
  static_assert(offsetof(Group, mult) == 64 && offsetof(Group, shift) == 128, "Group layout");
  static_assert(offsetof(Ctx, act_max) == offsetof(Ctx, act_min) + 16, "Ctx layout");
  int32x4_t tm, tl;
  int32_t f0, f1, f2, f3, one;
  __asm__ volatile(
      EMBER_DW_PRODUCT("a0", "64", "f0")
      EMBER_DW_PRODUCT("a1", "80", "f1")
      EMBER_DW_PRODUCT("a2", "96", "f2")
      EMBER_DW_PRODUCT("a3", "112", "f3")
      "orr %[one], %[f0], %[f1]\n"
      "orr %[one], %[one], %[f2]\n"
      "orr %[one], %[one], %[f3]\n"
      "lsls %[one], %[one], #16\n"
      "bne 4f\n"
      "vldrw.32 %q[tm], [%[g], #128]\n"
      "vrshl.s32 %q[a0], %q[a0], %q[tm]\n"
      "vldrw.32 %q[tm], [%[g], #144]\n"
      "vrshl.s32 %q[a1], %q[a1], %q[tm]\n"
      "vldrw.32 %q[tm], [%[g], #160]\n"
      "vrshl.s32 %q[a2], %q[a2], %q[tm]\n"
      "vldrw.32 %q[tm], [%[g], #176]\n"
      "vrshl.s32 %q[a3], %q[a3], %q[tm]\n"
      "3:\n"
      // + output_zp, then saturating narrows back to channel order (as finish).
      "vqadd.s32 %q[a0], %q[a0], %[zp]\n"
      "vqadd.s32 %q[a1], %q[a1], %[zp]\n"
      "vqadd.s32 %q[a2], %q[a2], %[zp]\n"
      "vqadd.s32 %q[a3], %q[a3], %[zp]\n"
      "vqmovnb.s32 %q[a0], %q[a0]\n"
      "vqmovnt.s32 %q[a0], %q[a1]\n"
      "vqmovnb.s32 %q[a2], %q[a2]\n"
      "vqmovnt.s32 %q[a2], %q[a3]\n"
      "vqmovnb.s16 %q[a0], %q[a0]\n"
      "vqmovnt.s16 %q[a0], %q[a2]\n"
      "vldrb.8 %q[tm], [%[act]]\n"
      "vldrb.8 %q[tl], [%[act], #16]\n"
      "vmax.s8 %q[a0], %q[a0], %q[tm]\n"
      "vmin.s8 %q[a0], %q[a0], %q[tl]\n"
      "vstrb.8 %q[a0], [%[out]]\n"
      ".subsection 1\n"
      "4:\n"
      "movs %[one], #1\n"
      EMBER_DW_TIE("a0", "128", "f0")
      EMBER_DW_TIE("a1", "144", "f1")
      EMBER_DW_TIE("a2", "160", "f2")
      EMBER_DW_TIE("a3", "176", "f3")
      "b 3b\n"
      ".subsection 0\n"
      : [a0] "+w"(a.a0), [a1] "+w"(a.a1), [a2] "+w"(a.a2), [a3] "+w"(a.a3), [tm] "=&w"(tm), [tl] "=&w"(tl),
        [f0] "=&r"(f0), [f1] "=&r"(f1), [f2] "=&r"(f2), [f3] "=&r"(f3), [one] "=&r"(one)
      : [g] "r"(k.g), [zp] "r"(k.d->quant.output_zp), [act] "r"(&k.act_min), [out] "r"(out)
      : "memory");
}
#undef EMBER_DW_TIE
#undef EMBER_DW_PRODUCT

template <bool kTail>
__attribute__((always_inline)) inline void finish(const Ctx& k, const Acc& a, int8_t* out) {
  const Group& g = *k.g;
  if (!kTail && g.mode == Shifts::Right) {
    finish_right(k, a, out);
    return;
  }
  const int32_t zp = k.d->quant.output_zp;
  const int32x4_t r0 = vqaddq_n_s32(rescale(g.mode, a.a0, g.mult + 0, g.shift + 0), zp);
  const int32x4_t r1 = vqaddq_n_s32(rescale(g.mode, a.a1, g.mult + 4, g.shift + 4), zp);
  const int32x4_t r2 = vqaddq_n_s32(rescale(g.mode, a.a2, g.mult + 8, g.shift + 8), zp);
  const int32x4_t r3 = vqaddq_n_s32(rescale(g.mode, a.a3, g.mult + 12, g.shift + 12), zp);
  const int16x8_t even = vqmovntq_s32(vqmovnbq_s32(vuninitializedq_s16(), r0), r1);  // channels 0, 2, ..
  const int16x8_t odd = vqmovntq_s32(vqmovnbq_s32(vuninitializedq_s16(), r2), r3);   // channels 1, 3, ..
  int8x16_t bytes = vqmovntq_s16(vqmovnbq_s16(vuninitializedq_s8(), even), odd);
  bytes = vminq_s8(vmaxq_s8(bytes, k.act_min), k.act_max);
  if (kTail) vstrbq_p_s8(out, bytes, k.pred);
  else vstrbq_s8(out, bytes);
}

inline Acc start(const Group& g) {
  return Acc{vldrwq_s32(g.bias), vldrwq_s32(g.bias + 4), vldrwq_s32(g.bias + 8), vldrwq_s32(g.bias + 12)};
}

// interior for a full group's 3x3 window (dilation 1) with shifts <= -1, the weights in a
// 16-byte-stride table (group_strip's, group_packed's): taps_3x3_packed and finish_right,
// nothing else per pixel.
template <int kPixel>
__attribute__((noinline)) void interior_3x3_packed(const Ctx& k, const int8_t* table, const int8_t* x, size_t step,
                                                   int8_t* out, int32_t count, size_t rs, size_t out_step) {
  for (int32_t i = 0; i < count; ++i, x += step, out += out_step) {
    Acc a = start(*k.g);
    taps_3x3_packed<kPixel>(a, x, rs, table);
    finish_right(k, a, out);
  }
}

// interior for a full group's one-row window with shifts <= -1, the weights in group's table:
// taps_row_packed and finish_right, nothing else per pixel.
__attribute__((noinline)) void interior_row_packed(const Ctx& k, const int8_t* table, const int8_t* x, size_t step,
                                                   int8_t* out, int32_t count, size_t xs, size_t out_step) {
  const int32_t taps = k.d->shape.filter_w;
  for (int32_t i = 0; i < count; ++i, x += step, out += out_step) {
    Acc a = start(*k.g);
    taps_row_packed(a, x, xs, table, taps);
    finish_right(k, a, out);
  }
}

// A run of `count` pixels whose taps are all inside the input; x points at the first
// window's first tap, channel c0, and advances by `step` bytes per pixel. Not inlined: one
// copy per tail flag keeps the code small.
template <bool kTail>
__attribute__((noinline)) void interior(const Ctx& k, const int8_t* x, size_t step, int8_t* out, int32_t count,
                                        size_t xs, size_t rs, size_t out_step) {
  const DepthwiseS8& d = *k.d;
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& geo = d.geometry;
  const int32_t cc = k.ws;  // weight stride; xs and rs are the input's pixel and row strides
  const mve_pred16_t p = k.pred;
  const bool three = s.filter_h == 3 && s.filter_w == 3 && geo.dilation_h == 1 && geo.dilation_w == 1;
  for (int32_t i = 0; i < count; ++i, x += step, out += out_step) {
    const int8_t* w = k.w;
    const int8_t* xr = x;
    Acc a = start(*k.g);
    if (three) {
      const int8_t* x1 = xr + rs;
      const int8_t* x2 = x1 + rs;
      tap_pair<kTail>(a, xr, w, xr + xs, w + cc, p);
      tap_pair<kTail>(a, xr + 2 * xs, w + 2 * cc, x1, w + 3 * cc, p);
      tap_pair<kTail>(a, x1 + xs, w + 4 * cc, x1 + 2 * xs, w + 5 * cc, p);
      tap_pair<kTail>(a, x2, w + 6 * cc, x2 + xs, w + 7 * cc, p);
      tap(a, load16<kTail>(x2 + 2 * xs, p), load16<kTail>(w + 8 * cc, p));
    } else if (s.filter_w == 1) {  // a column (sww's 1-D windows): pairs down the column
      const size_t step_y = static_cast<size_t>(geo.dilation_h) * rs;
      int32_t ky = 0;
      for (; ky + 1 < s.filter_h; ky += 2, xr += 2 * step_y, w += 2 * cc) tap_pair<kTail>(a, xr, w, xr + step_y, w + cc, p);
      if (ky < s.filter_h) tap(a, load16<kTail>(xr, p), load16<kTail>(w, p));
    } else {
      const size_t step_y = static_cast<size_t>(geo.dilation_h) * rs;
      const size_t step_x = static_cast<size_t>(geo.dilation_w) * xs;
      const int8_t *held = nullptr, *held_w = nullptr;
      for (int32_t ky = 0; ky < s.filter_h; ++ky, xr += step_y) {
        const int8_t* xt = xr;
        for (int32_t kx = 0; kx < s.filter_w; ++kx, xt += step_x, w += cc)
          add_tap<kTail>(a, held, held_w, xt, w, p);
      }
      end_taps<kTail>(a, held, held_w, p);
    }
    finish<kTail>(k, a, out);
  }
}

// Some tap outside the input: it reads the 16 input_zp bytes instead.
template <bool kTail>
__attribute__((noinline)) void border(const Ctx& k, int32_t n, int32_t y, int32_t x, int8_t* out) {
  const DepthwiseS8& d = *k.d;
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& geo = d.geometry;
  const int32_t cc = s.in_c;
  const mve_pred16_t p = k.pred;
  const int8_t* w = d.filter + k.c0;
  const int32_t iy0 = y * geo.stride_h - geo.pad_top, ix0 = x * geo.stride_w - geo.pad_left;
  Acc a = start(*k.g);
  const int8_t *held = nullptr, *held_w = nullptr;
  for (int32_t ky = 0; ky < s.filter_h; ++ky) {
    const int32_t iy = iy0 + ky * geo.dilation_h;
    const bool row_in = iy >= 0 && iy < s.in_h;
    const int8_t* line = d.input + (static_cast<size_t>(n) * s.in_h + (row_in ? iy : 0)) * k.row + k.c0;
    for (int32_t kx = 0; kx < s.filter_w; ++kx, w += cc) {
      const int32_t ix = ix0 + kx * geo.dilation_w;
      const int8_t* xt = row_in && ix >= 0 && ix < s.in_w ? line + static_cast<size_t>(ix) * cc : k.zp_bytes;
      add_tap<kTail>(a, held, held_w, xt, w, p);
    }
  }
  end_taps<kTail>(a, held, held_w, p);
  finish<kTail>(k, a, out);
}

// A border pixel's 3x3 window (dilation 1) gathered into buf, taps 16 bytes apart row by row (a
// 48-byte row): the 8 channels of output pixel (n, y, x) at byte `lane` (0 or 8) of each tap,
// input_zp bytes where a tap lies outside. Two such windows make one interior pixel of
// interior_3x3_packed<16> (group_packed's border pairs).
void gather_3x3(const Ctx& k, int32_t n, int32_t y, int32_t x, int8_t* buf, int32_t lane) {
  const DepthwiseS8& d = *k.d;
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& g = d.geometry;
  const int32_t iy0 = y * g.stride_h - g.pad_top, ix0 = x * g.stride_w - g.pad_left;
  const mve_pred16_t p = vctp8q(8);
  for (int32_t ky = 0; ky < 3; ++ky) {
    const int32_t iy = iy0 + ky;
    const bool row_in = iy >= 0 && iy < s.in_h;
    const int8_t* line = d.input + (static_cast<size_t>(n) * s.in_h + (row_in ? iy : 0)) * k.row + k.c0;
    for (int32_t kx = 0; kx < 3; ++kx) {
      const int32_t ix = ix0 + kx;
      const int8_t* src = row_in && ix >= 0 && ix < s.in_w ? line + static_cast<size_t>(ix) * s.in_c : k.zp_bytes;
      vstrbq_p_s8(buf + 48 * ky + 16 * kx + lane, vldrbq_z_s8(src, p), p);
    }
  }
}

// Taps a one-row window may have for interior_row_packed (its weight table in the strip buffer,
// which this path does not otherwise use).
constexpr int32_t kMaxRowTaps = 16;

template <bool kTail>
__attribute__((noinline)) void group(const Ctx& k, int8_t* table) {
  const DepthwiseS8& d = *k.d;
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& geo = d.geometry;
  // A full group's one-row window (sww's, after column_as_row) with shifts <= -1: its weights
  // copied 16 bytes apart for interior_row_packed.
  const bool row_packed = !kTail && s.filter_h == 1 && s.filter_w <= kMaxRowTaps && k.g->mode == Shifts::Right;
  if (row_packed)
    for (int32_t t = 0; t < s.filter_w; ++t) vstrbq_s8(table + 16 * t, vldrbq_s8(k.w + t * k.ws));
  // A 3x3 window (dilation 1) with shifts <= -1 on an input of 16 channels (vww's blocks.1.dw,
  // stride 2, too large for the strip): pixels and filter taps are 16 bytes apart, as on the
  // strip and its table, so the interior pixels read the input and the filter themselves at
  // immediate offsets (interior_3x3_packed). Not for 32 channels (blocks.3.dw): a second
  // instance of the asm saves little for its code size (docs/history.md).
  const bool input_packed = !kTail && !row_packed && s.in_c == 16 && s.filter_h == 3 && s.filter_w == 3 &&
                            geo.dilation_h == 1 && geo.dilation_w == 1 && k.g->mode == Shifts::Right;
  for (int32_t nb = 0; nb < s.batches; ++nb)
    for (int32_t yb = 0; yb < s.out_h; ++yb) {
      const int32_t n = d.rows_bottom_up ? s.batches - 1 - nb : nb, y = d.rows_bottom_up ? s.out_h - 1 - yb : yb;
      const int32_t iy0 = y * geo.stride_h - geo.pad_top;
      const bool rows_inside = iy0 >= 0 && iy0 + geo.dilation_h * (s.filter_h - 1) < s.in_h;
      int32_t x0 = 0, x1 = 0;
      if (rows_inside) interior_x(s, geo, &x0, &x1);
      int8_t* out = d.output + (static_cast<size_t>(n) * s.out_h + y) * s.out_w * s.out_c + k.c0;
      int32_t x = 0;
      for (; x < x0; ++x) border<kTail>(k, n, y, x, out + static_cast<size_t>(x) * s.out_c);
      if (x < x1) {
        const int8_t* in = d.input + (static_cast<size_t>(n) * s.in_h + iy0) * k.row + k.c0 +
                           static_cast<ptrdiff_t>(x * geo.stride_w - geo.pad_left) * s.in_c;
        const size_t step = static_cast<size_t>(geo.stride_w) * s.in_c;
        int8_t* const o = out + static_cast<size_t>(x) * s.out_c;
        if (row_packed)
          interior_row_packed(k, table, in, step, o, x1 - x, static_cast<size_t>(geo.dilation_w) * s.in_c,
                              static_cast<size_t>(s.out_c));
        else if (input_packed)
          interior_3x3_packed<16>(k, k.w, in, step, o, x1 - x, k.row, static_cast<size_t>(s.out_c));
        else
          interior<kTail>(k, in, step, o, x1 - x, static_cast<size_t>(s.in_c), k.row, static_cast<size_t>(s.out_c));
        x = x1;
      }
      for (; x < s.out_w; ++x) border<kTail>(k, n, y, x, out + static_cast<size_t>(x) * s.out_c);
    }
}

// Bytes of the padded strip (the op's scratch) that small maps take instead of the border
// path: the strip's rows twice (group_strip).
constexpr int32_t kStripBytes = static_cast<int32_t>(kDepthwiseStripBytes);
static_assert(kMaxRowTaps * 16 <= kStripBytes, "group's one-row weight table lives in the strip");
static_assert(2 * 9 * 16 + 16 <= kStripBytes, "eight_channels' table, window and two outputs fit the strip");

// The strip's width and height in pixels for `columns` output columns: every input column and
// row their windows touch in one output row, padding included.
inline void strip_size(const Conv2dShape& s, const Conv2dGeometry& g, int32_t columns, int32_t* w, int32_t* h) {
  *w = (columns - 1) * g.stride_w + (s.filter_w - 1) * g.dilation_w + 1;
  *h = (s.filter_h - 1) * g.dilation_h + 1;
}

// Whether a strip sw pixels wide and sh high, stored twice, fits kStripBytes.
inline bool strip_fits(int32_t sw, int32_t sh) { return 2 * static_cast<int64_t>(sw) * sh * 16 <= kStripBytes; }

// The most output columns whose strip fits (strip_size for a band of them), 0 if not one.
inline int32_t band_width(const Conv2dShape& s, const Conv2dGeometry& g, int32_t sh) {
  const int32_t widest = kStripBytes / (2 * 16 * sh), extent = (s.filter_w - 1) * g.dilation_w + 1;
  return widest < extent ? 0 : (widest - extent) / g.stride_w + 1;
}

// Output columns [bx0, bx1) of every row through a strip: the group's 16 channels of every
// pixel the band's windows read are copied into it, with input_zp where a window leaves the
// input, and each row of the band runs the interior kernel on the strip. A border pixel then
// costs what an interior one does. Small padded maps (kws's 25x5, vww's 6x6: about half their
// pixels touch the padding) take whole rows as one band; larger maps whose input and output
// are disjoint take bands as wide as the strip allows, for interior_3x3_packed (a band visits
// every row before the next band starts, which an op in place could not allow).
// The strip is a ring of sh rows, input row iy in slot iy mod sh, each stored twice (slots s
// and s + sh): the sh rows an output row reads are then always consecutive, starting at slot
// iy0 mod sh, and a row is copied once, when it enters the windows, not once per output row
// (a third of the copies for 3x3 stride 1). Copies are never later than without the ring, so
// in-place ops read what they did.
template <bool kTail>
__attribute__((noinline)) void group_strip(const Ctx& k, int8_t* strip, int32_t bx0, int32_t bx1) {
  const DepthwiseS8& d = *k.d;
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& geo = d.geometry;
  // A full group's 3x3 weights (dilation 1) copied 16 bytes apart, for interior_3x3_packed:
  // every tap at an immediate offset.
  int8_t table[9 * 16];
  const bool packed = !kTail && s.filter_h == 3 && s.filter_w == 3 && geo.dilation_h == 1 && geo.dilation_w == 1 &&
                      k.g->mode == Shifts::Right;
  if (packed)
    for (int32_t t = 0; t < 9; ++t) vstrbq_s8(table + 16 * t, vldrbq_s8(k.w + t * k.ws));
  const int32_t bw = bx1 - bx0;
  int32_t sw, sh;
  strip_size(s, geo, bw, &sw, &sh);
  const size_t rs = static_cast<size_t>(sw) * 16, copy = static_cast<size_t>(sh) * rs;
  // Locals: the strip's int8 stores may alias k and d, so GCC would reload them per vector.
  const int8x16_t zp = k.zp;
  const int32_t in_c = s.in_c;
  // Strip column j is input column ix0 + j; columns [0, lo) and [hi, sw) lie in the padding.
  const int32_t ix0 = bx0 * geo.stride_w - geo.pad_left;
  const int32_t lo = ix0 >= 0 ? 0 : (-ix0 < sw ? -ix0 : sw);
  const int32_t hi = s.in_w - ix0 < lo ? lo : (s.in_w - ix0 < sw ? s.in_w - ix0 : sw);
  const size_t step = static_cast<size_t>(geo.stride_w) * 16, out_step = static_cast<size_t>(s.out_c);
  // Strip columns [0, lo) and [hi, sw) lie outside the input in every row: input_zp, stored
  // once here. A row then takes the input's pixels in [lo, hi), or input_zp if it lies outside.
  for (int32_t r = 0; r < 2 * sh; ++r) {
    int8_t* dst = strip + static_cast<size_t>(r) * rs;
    for (int32_t j = 0; j < lo; ++j) vstrbq_s8(dst + 16 * j, zp);
    for (int32_t j = hi; j < sw; ++j) vstrbq_s8(dst + 16 * j, zp);
  }
  const auto fill = [&](int32_t slot, int32_t iy, const int8_t* img) {
    int8_t* dst = strip + static_cast<size_t>(slot) * rs + 16 * lo;
    if (iy < 0 || iy >= s.in_h) {
      for (int32_t j = lo; j < hi; ++j, dst += 16) vstrbq_s8(dst, zp), vstrbq_s8(dst + copy, zp);
      return;
    }
    const int8_t* src = img + static_cast<ptrdiff_t>(iy) * static_cast<ptrdiff_t>(k.row);
    int8_t* twin = dst + copy;
    for (int8_t* const end = dst + 16 * (hi - lo); dst != end; dst += 16, twin += 16, src += in_c) {
      const int8x16_t v = load16<kTail>(src, k.pred);
      vstrbq_s8(dst, v), vstrbq_s8(twin, v);
    }
  };
  const auto slot_of = [sh](int32_t iy) {
    const int32_t m = iy % sh;
    return m < 0 ? m + sh : m;
  };
  const bool up = d.rows_bottom_up;
  // Offsets, not pointers: past the last row a pointer would leave the output.
  const ptrdiff_t row_step = (up ? -1 : 1) * static_cast<ptrdiff_t>(s.out_w) * s.out_c;
  for (int32_t nb = 0; nb < s.batches; ++nb) {
    const int32_t n = up ? s.batches - 1 - nb : nb;
    // Input row iy's pixel at strip column lo is img + iy * row (formed only for rows inside).
    const int8_t* const img = d.input + static_cast<size_t>(n) * s.in_h * k.row + k.c0 +
                              (lo < hi ? static_cast<ptrdiff_t>(ix0 + lo) * in_c : 0);
    const int32_t y0 = up ? s.out_h - 1 : 0;
    int32_t iy0 = y0 * geo.stride_h - geo.pad_top;
    // The ring holds input rows [held_lo, held_hi): filled rising (top-down) or falling
    // (rows_bottom_up), each when it first enters a window, as the rows' order needs.
    int32_t held_lo = up ? iy0 + sh : iy0, held_hi = held_lo;
    ptrdiff_t out_at = static_cast<ptrdiff_t>(((static_cast<size_t>(n) * s.out_h + y0) * s.out_w + bx0) * s.out_c + k.c0);
    for (int32_t yb = 0; yb < s.out_h; ++yb, iy0 += up ? -geo.stride_h : geo.stride_h, out_at += row_step) {
      // The rows entering the ring, in the order the windows reach them.
      int32_t iy = up ? (held_lo < iy0 + sh ? held_lo : iy0 + sh) - 1 : (held_hi > iy0 ? held_hi : iy0);
      const int32_t entering = up ? iy - iy0 + 1 : iy0 + sh - iy, dir = up ? -1 : 1;
      for (int32_t i = 0; i < entering; ++i, iy += dir) fill(slot_of(iy), iy, img);
      if (up) held_lo = iy0;
      else held_hi = iy0 + sh;
      int8_t* const out = d.output + out_at;
      const int8_t* x = strip + static_cast<size_t>(slot_of(iy0)) * rs;
      if (packed) interior_3x3_packed<16>(k, table, x, step, out, bw, rs, out_step);
      else interior<kTail>(k, x, step, out, bw, 16, rs, out_step);
    }
  }
}

// Eight channels, stride 1 along x, dilation 1 along x: two neighbouring output pixels share
// one vector (lanes 0-7 pixel x, lanes 8-15 pixel x + 1). A tap's 16 input bytes at pixel
// (iy, ix) are then pixel ix's and ix + 1's channels, exactly the two windows' taps; the
// weights are each tap's 8 bytes twice (wdup) and the group constants follow lane % 8. The
// pairs wholly inside the input run the interior kernel on full vectors; the other pixels
// take the one-pixel tail path (k1, 8 active lanes).
// With the packed asm, the border pixels of a row go two per vector too (border_pairs): each
// window gathered into half of spare's (gather_3x3), the two outputs through 16 bytes after it.
void group_packed(const Ctx& kp, const Ctx& k1, int8_t* spare) {
  const DepthwiseS8& d = *kp.d;
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& geo = d.geometry;
  // kp.w is the weights' 16-byte-stride table: a 3x3 window (dilation 1) takes the packed asm.
  const bool three_right = s.filter_h == 3 && s.filter_w == 3 && geo.dilation_h == 1 && kp.g->mode == Shifts::Right;
  // Border pixels: one at a time, or with the packed asm held for a second of the same row (the
  // contract orders rows, not the pixels of one row).
  int32_t held = -1;
  const auto pair = [&](int32_t n, int32_t y, int32_t xa, int32_t xb, int8_t* out) {
    int8_t* const two = spare + 9 * 16;
    gather_3x3(k1, n, y, xa, spare, 0);
    gather_3x3(k1, n, y, xb, spare, 8);
    interior_3x3_packed<16>(kp, kp.w, spare, 0, two, 1, 48, 0);
    memcpy(out + static_cast<size_t>(xa) * 8, two, 8);
    memcpy(out + static_cast<size_t>(xb) * 8, two + 8, 8);
  };
  const auto edge = [&](int32_t n, int32_t y, int32_t x, int8_t* out) {
    if (!three_right) border<true>(k1, n, y, x, out + static_cast<size_t>(x) * 8);
    else if (held < 0) held = x;
    else pair(n, y, held, x, out), held = -1;
  };
  const auto end_row = [&](int32_t n, int32_t y, int8_t* out) {
    if (held >= 0) pair(n, y, held, held, out), held = -1;
  };
  for (int32_t nb = 0; nb < s.batches; ++nb)
    for (int32_t yb = 0; yb < s.out_h; ++yb) {  // in the op's row order (kernels/kernels.def)
      const int32_t n = d.rows_bottom_up ? s.batches - 1 - nb : nb, y = d.rows_bottom_up ? s.out_h - 1 - yb : yb;
      const int32_t iy0 = y * geo.stride_h - geo.pad_top;
      const bool rows_inside = iy0 >= 0 && iy0 + geo.dilation_h * (s.filter_h - 1) < s.in_h;
      int8_t* out = d.output + (static_cast<size_t>(n) * s.out_h + y) * s.out_w * 8;
      if (!rows_inside) {
        for (int32_t x = 0; x < s.out_w; ++x) edge(n, y, x, out);
        end_row(n, y, out);
        continue;
      }
      int32_t x0 = 0, x1 = 0;
      interior_x(s, geo, &x0, &x1);
      for (int32_t x = 0; x < x0; ++x) edge(n, y, x, out);
      const int32_t pairs = (x1 - x0) / 2;
      const int8_t* in = d.input + (static_cast<size_t>(n) * s.in_h + iy0) * kp.row +
                         static_cast<ptrdiff_t>(x0 - geo.pad_left) * 8;
      if (pairs > 0 && three_right)
        interior_3x3_packed<8>(kp, kp.w, in, 16, out + static_cast<size_t>(x0) * 8, pairs, kp.row, 16);
      else if (pairs > 0)
        interior<false>(kp, in, 16, out + static_cast<size_t>(x0) * 8, pairs, 8, kp.row, 16);
      const int32_t xp = x0 + 2 * pairs;
      if (xp < x1)
        interior<true>(k1, in + static_cast<size_t>(2 * pairs) * 8, 8, out + static_cast<size_t>(xp) * 8, x1 - xp, 8,
                       k1.row, 8);
      for (int32_t x = x1; x < s.out_w; ++x) edge(n, y, x, out);
      end_row(n, y, out);
    }
}

// An 8-channel op (group_packed), the strip buffer holding the duplicated weights; k1's group
// (the body's, unused on this path) is one of the two. Its own frame: the packed group's
// constants are not on the stack while the other paths run.
__attribute__((noinline)) void eight_channels(const Ctx& k1, Group& g, int8_t* strip) {
  const DepthwiseS8& d = *k1.d;
  const int32_t taps = d.shape.filter_h * d.shape.filter_w;
  for (int32_t t = 0; t < taps; ++t) {
    memcpy(strip + 16 * t, d.filter + 8 * t, 8);
    memcpy(strip + 16 * t + 8, d.filter + 8 * t, 8);
  }
  Group gp;
  prepare(d, 0, 8, &gp, true);
  prepare(d, 0, 8, &g);
  Ctx kp = k1, k = k1;
  kp.g = &gp, kp.w = strip, kp.ws = 16;
  k.g = &g, k.pred = vctp8q(8);
  group_packed(kp, k, strip + 16 * taps);
}

}  // namespace

// Runs once per depthwise op at load, over all its weights: lane-wise minima in a register,
// 32 bytes per turn, and one reduction at the end (a reduction per vector costs several times
// as much).
int8_t depthwise_conv2d_s8_min_weight(const int8_t* filter, size_t n) {
  int8x16_t lo = vdupq_n_s8(filter[0]);
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    lo = vminq_s8(lo, vminq_s8(vldrbq_s8(filter + i), vldrbq_s8(filter + i + 16)));
  for (; i < n; i += 16) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
    lo = vminq_m_s8(lo, lo, vldrbq_z_s8(filter + i, p), p);
  }
  return vminvq_s8(filter[0], lo);
}

void depthwise_conv2d_s8_body(const DepthwiseS8& d) {
  const Conv2dShape& s = d.shape;
  Group g;
  alignas(16) int8_t zp_bytes[16];
  memset(zp_bytes, static_cast<int8_t>(d.quant.input_zp), sizeof zp_bytes);
  Ctx k{&d, &g, 0, static_cast<size_t>(s.in_w) * s.in_c, 0xFFFF,
        vdupq_n_s8(static_cast<int8_t>(d.quant.input_zp)), zp_bytes, vdupq_n_s8(static_cast<int8_t>(d.quant.act_min)),
        vdupq_n_s8(static_cast<int8_t>(d.quant.act_max)), d.filter, s.in_c};
  const int32_t taps = s.filter_h * s.filter_w;
  int32_t sw, sh;
  strip_size(s, d.geometry, s.out_w, &sw, &sh);
  // Only maps with padding gain: without it there are no border pixels.
  int32_t x0 = 0, x1 = 0;
  interior_x(s, d.geometry, &x0, &x1);
  const bool padded = d.geometry.pad_top > 0 || x0 > 0 || x1 < s.out_w ||
                      (s.out_h - 1) * d.geometry.stride_h - d.geometry.pad_top + sh > s.in_h;
  const bool use_strip = padded && strip_fits(sw, sh);
  // Larger maps in bands (group_strip): a 3x3 window of stride and dilation 1
  // (interior_3x3_packed), input and output disjoint. (With stride 2 a band of 8 strip columns
  // holds 3 outputs, and the copies cost more than the packed window saves: vww's blocks.1.dw
  // was slower.)
  const int32_t band = band_width(s, d.geometry, sh);
  const bool banded = d.disjoint && band > 0 && s.filter_h == 3 && s.filter_w == 3 && d.geometry.stride_w == 1 &&
                      d.geometry.dilation_h == 1 && d.geometry.dilation_w == 1;
  int8_t* const strip = d.scratch;  // kStripBytes, 16-byte aligned (run_depthwise_conv2d_s8)
  if (s.in_c == 8 && d.geometry.stride_w == 1 && d.geometry.dilation_w == 1 && taps * 16 <= kStripBytes) {
    eight_channels(k, g, strip);
    return;
  }
  for (int32_t c0 = 0; c0 < s.in_c; c0 += 16) {
    const int32_t count = s.in_c - c0 < 16 ? s.in_c - c0 : 16;
    prepare(d, c0, count, &g);
    k.c0 = c0, k.w = d.filter + c0;
    k.pred = count == 16 ? 0xFFFF : vctp8q(static_cast<uint32_t>(count));
    if (use_strip) {
      count == 16 ? group_strip<false>(k, strip, 0, s.out_w) : group_strip<true>(k, strip, 0, s.out_w);
    } else if (count == 16 && banded && g.mode == Shifts::Right) {
      for (int32_t bx = 0; bx < s.out_w; bx += band) group_strip<false>(k, strip, bx, bx + band < s.out_w ? bx + band : s.out_w);
    } else {
      count == 16 ? group<false>(k, strip) : group<true>(k, strip);
    }
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
