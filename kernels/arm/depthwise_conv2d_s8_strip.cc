//===- depthwise_conv2d_s8_strip.cc - Depthwise, scalar and DSP tiers: four channels on a strip ===//
//
// Each product of a depthwise window belongs to its own channel, so there is no pair for SMLAD:
// the products go one per instruction (DSP: SMLABB/SMLATT on unpacked pairs; Cortex-M3: MLA),
// four channels at once. What this kernel removes is the work around them:
//   - a strip holds the window's rows of one group of four channels: a ring of filter_h rows
//     (input row iy in slot iy mod filter_h, each row copied once per group), a band of input
//     columns wide, padded with input_zp where the window leaves the input: a padded tap adds
//     input_zp * w, which the folded bias expects, so every window is an interior one. A pixel
//     is two words on the DSP tier, (c0, c2) and (c1, c3) unpacked by SXTB16, and the four bytes
//     as they are on the scalar tier;
//   - the group's weights (in the same form) sit in a table after its four biases, so a 3x3
//     window's taps are at immediate offsets from three row pointers and the table; when the
//     four channels requantize in the common form (FastOut, primitives_scalar.h), one asm loop
//     per output row does each pixel's taps, requantization and stores (mac_requant_3x3: DSP,
//     and Cortex-M3 by MLA and SMLAL);
//   - any other group (a tail of fewer than four channels, another requantization form) sums
//     kChunk pixels in C (mac_any), then requantizes each channel's sums with its constants in
//     registers (DSP: requantize_fast) or in C (requantize_any).
// Cores without the asm loop (Cortex-M0, the host) take the listed taps: the strip in C was
// slower there.
// The strip is the op's scratch (depthwise_conv2d_s8_scratch_bytes). Windows other than 3x3
// (stride 1 or 2, dilation 1), one output pixel, no scratch (or one off a word boundary), or a
// scratch too small for one output (for an output that may overwrite its input: for the whole
// row) run the listed-taps kernel of depthwise_conv2d_s8_scalar.cc.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include <stddef.h>
#include <string.h>

#include "ember/kernels/arm/depthwise_conv2d_s8.h"
#include "ember/kernels/arm/fast_out_asm.h"
#if EMBER_TIER == EMBER_TIER_DSP
#include "ember/kernels/arm/primitives_dsp.h"
#else
#include "ember/kernels/arm/primitives_scalar.h"
#endif

namespace ember::kernels::arm {
namespace {

constexpr int32_t kTaps = 9;    // the 3x3 window (depthwise_strip)
constexpr int32_t kChunk = 8;    // pixels whose sums mac_any stores before requantizing

// A strip pixel (and a tap's weights): DSP two words, (c0, c2) and (c1, c3) as int16 pairs;
// scalar the four bytes c0..c3 as they are.
#if EMBER_TIER == EMBER_TIER_DSP
constexpr int32_t kPixelWords = 2;
inline void put_pixel(uint32_t* p, uint32_t v) {
  p[0] = static_cast<uint32_t>(__sxtb16(static_cast<int32_t>(v))), p[1] = static_cast<uint32_t>(sxtb16_odd(v));
}
inline uint32_t zp_word(int32_t zp) { return (static_cast<uint32_t>(zp) & 0xFFFFu) * 0x10001u; }
#else
constexpr int32_t kPixelWords = 1;
inline void put_pixel(uint32_t* p, uint32_t v) { p[0] = v; }
inline uint32_t zp_word(int32_t zp) { return (static_cast<uint32_t>(zp) & 0xFFu) * 0x01010101u; }
#endif
// Whether this core has the fused asm loop (mac_requant_3x3).
#if EMBER_TIER == EMBER_TIER_DSP || defined(__ARM_ARCH_7M__)
constexpr bool kFusedLoop = true;
#else
constexpr bool kFusedLoop = false;
#endif

// One group's biases, weights and output constants; the asm reads them at immediate offsets.
struct GroupTable {
  int32_t bias[4];                      // the folded biases of c0..c3
  uint32_t tap[kTaps][kPixelWords];     // as a strip pixel
  FastOut out[4];                       // when every channel is fast
  int32_t zp;                           // output zero point
  int32_t cn;                           // bytes between output pixels
  int8_t* out_end;                      // mac_requant_3x3: one pixel past the row's last output
};
static_assert(!kFusedLoop ||
                  (offsetof(GroupTable, tap) == 16 && offsetof(GroupTable, cn) + 4 == offsetof(GroupTable, out_end)),
              "mac_requant_3x3's offsets");

// The group's four bytes at p; channels past the op's last (gc < 4) are 0.
inline uint32_t load_group(const int8_t* p, int32_t gc) {
  uint32_t v = 0;
  if (gc == 4) {
    memcpy(&v, p, 4);  // LDR; unaligned when C is not a multiple of 4, which v7-M allows
  } else {
    for (int32_t k = 0; k < gc; ++k) v |= (static_cast<uint32_t>(p[k]) & 0xFFu) << (8 * k);
  }
  return v;
}

// Output columns per band: the whole row if its ring fits the scratch, else (only for an
// output that overwrites no input: a band visits every row before the next band begins) the
// widest band that fits; 0 if the strip path does not take the op.
inline int32_t band_width(const DepthwiseS8& d) {
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& g = d.geometry;
  // One output pixel (sww's last layer, or an in-place op run a row at a time) would pay the
  // group set-up and the ring for nothing.
  // Without the asm loop (Cortex-M0, the host) the strip in C takes more than the listed taps
  // (docs/history.md).
  if (!kFusedLoop || !depthwise_strip(s, g) || s.batches * s.out_h * s.out_w < 2 ||
      reinterpret_cast<uintptr_t>(d.scratch) % 4 != 0)
    return 0;
  if (depthwise_ring_bytes(s, g, s.out_w, kBuiltTier) <= d.scratch_bytes) return s.out_w;
  const int32_t widest =
      static_cast<int32_t>(d.scratch_bytes / (4u * kPixelWords * static_cast<uint32_t>(s.filter_h)));  // pixels
  if (!d.disjoint || widest < s.filter_w) return 0;
  return (widest - s.filter_w) / g.stride_w + 1;
}

// A band's strip rows: `pixels` columns, input_zp (zz) in columns [0, lo) and [hi, pixels), the
// group's bytes of the input pixels in [lo, hi) (cn bytes apart).
struct BandFill {
  int32_t lo, hi, pixels, cn, gc;
  uint32_t zz;
};

// Strip row dst's columns [lo, hi) from the input row whose pixel at strip column lo is at x;
// input_zp when x is null (a row outside the input). Columns outside [lo, hi) hold input_zp
// already (group_band stores them once per band).
__attribute__((noinline)) void fill_row(uint32_t* dst, const int8_t* x, const BandFill& f) {
  const int32_t cn = f.cn;
  uint32_t* p = dst + kPixelWords * f.lo;
  uint32_t* const e = dst + kPixelWords * f.hi;
  if (x == nullptr) {
    for (const uint32_t zz = f.zz; p != e; ++p) *p = zz;
  } else if (f.gc == 4) {
    for (; p != e; p += kPixelWords, x += cn) {
      uint32_t v;
      memcpy(&v, x, 4);
      put_pixel(p, v);
    }
  } else {
    for (; p != e; p += kPixelWords, x += cn) put_pixel(p, load_group(x, f.gc));
  }
}

#if EMBER_TIER == EMBER_TIER_DSP
// One tap: pixel words (c0, c2), (c1, c3) at [row, #8 kx], weights at [table, #16 + 8 t]; two
// LDRD and four SMLAxy.
#define EMBER_DW_TAP(row, kx, t)                                 \
  "ldrd   %[x0], %[x1], [%[" row "], #" #kx "*8]\n\t"            \
  "ldrd   %[w0], %[w1], [%[t], #16+" #t "*8]\n\t"                \
  "smlabb %[a0], %[x0], %[w0], %[a0]\n\t"                        \
  "smlatt %[a2], %[x0], %[w0], %[a2]\n\t"                        \
  "smlabb %[a1], %[x1], %[w1], %[a1]\n\t"                        \
  "smlatt %[a3], %[x1], %[w1], %[a3]\n\t"
#elif defined(__ARM_ARCH_7M__)
// Channel j of one tap: the pixel's byte at [row, #4 kx + j], the weight at
// [table, #16 + 4 t + j]; LDRSB, LDRSB, MLA.
#define EMBER_DW_CH(row, kx, t, j, a)                            \
  "ldrsb  %[x0], [%[" row "], #4*" #kx "+" #j "]\n\t"            \
  "ldrsb  %[w0], [%[t], #16+4*" #t "+" #j "]\n\t"                \
  "mla    %[" a "], %[x0], %[w0], %[" a "]\n\t"
#define EMBER_DW_TAP(row, kx, t)                                 \
  EMBER_DW_CH(row, kx, t, 0, "a0") EMBER_DW_CH(row, kx, t, 1, "a1") \
  EMBER_DW_CH(row, kx, t, 2, "a2") EMBER_DW_CH(row, kx, t, 3, "a3")
#endif

#if EMBER_TIER == EMBER_TIER_DSP || defined(__ARM_ARCH_7M__)
// 3x3 at stride kStride, four fast channels: the outputs at out, out + cn, ... up to
// t.out_end, output j's window at pixel j * kStride of the rows r0, r1, r2. Per pixel: the
// biases, nine taps (EMBER_DW_TAP), then each channel's FastOut arithmetic (EMBER_FAST_OUT,
// fast_out_asm.h), a possible tie's fix-up out of line.
template <int kStride>
__attribute__((noinline)) void mac_requant_3x3(const uint32_t* r0, const uint32_t* r1, const uint32_t* r2,
                                               const GroupTable& t, int8_t* out) {
  uint32_t a0, a1, a2, a3, x0, x1, w0, w1;
  asm volatile(
      "1:\n\t"
      "ldrd   %[a0], %[a1], [%[t]]\n\t"
      "ldrd   %[a2], %[a3], [%[t], #8]\n\t"
      EMBER_DW_TAP("r0", 0, 0) EMBER_DW_TAP("r0", 1, 1) EMBER_DW_TAP("r0", 2, 2)
      EMBER_DW_TAP("r1", 0, 3) EMBER_DW_TAP("r1", 1, 4) EMBER_DW_TAP("r1", 2, 5)
      EMBER_DW_TAP("r2", 0, 6) EMBER_DW_TAP("r2", 1, 7) EMBER_DW_TAP("r2", 2, 8)
      EMBER_FAST_OUT("a0", 0) EMBER_FAST_OUT("a1", 1) EMBER_FAST_OUT("a2", 2) EMBER_FAST_OUT("a3", 3)
      "ldrd   %[x0], %[x1], [%[t], #%c[cn]]\n\t"
      "add    %[out], %[out], %[x0]\n\t"
      "add    %[r0], %[r0], #%c[step]\n\t"
      "add    %[r1], %[r1], #%c[step]\n\t"
      "add    %[r2], %[r2], #%c[step]\n\t"
      "cmp    %[out], %[x1]\n\t"
      "bne    1b\n\t"
      ".subsection 1\n"
      EMBER_FAST_TIE("a0", 0) EMBER_FAST_TIE("a1", 1) EMBER_FAST_TIE("a2", 2) EMBER_FAST_TIE("a3", 3)
      ".previous\n\t"
      : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [x0] "=&r"(x0), [x1] "=&r"(x1),
        [w0] "=&r"(w0), [w1] "=&r"(w1), [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [out] "+r"(out)
      : [t] "r"(&t), [step] "i"(4 * kPixelWords * kStride), [outs] "i"(offsetof(GroupTable, out)),
        [zp] "i"(offsetof(GroupTable, zp)), [cn] "i"(offsetof(GroupTable, cn))
      : "cc", "memory");
}
#undef EMBER_DW_CH
#undef EMBER_DW_TAP
#endif

// The 3x3 window: acc[4 j + c] = channel c's sum of output j < n, whose window starts at
// pixel j * stride of rows[0..2].
void mac_any(const uint32_t* const* rows, int32_t stride, const GroupTable& t, int32_t n, int32_t* acc) {
  for (int32_t j = 0; j < n; ++j, acc += 4) {
    int32_t a0 = t.bias[0], a1 = t.bias[1], a2 = t.bias[2], a3 = t.bias[3];
    const uint32_t* w = t.tap[0];
    for (int32_t ky = 0; ky < 3; ++ky) {
      const uint32_t* x = rows[ky] + kPixelWords * j * stride;
      for (int32_t kx = 0; kx < 3; ++kx, x += kPixelWords, w += kPixelWords) {
#if EMBER_TIER == EMBER_TIER_DSP
        a0 = __smlabb(x[0], w[0], a0), a2 = __smlatt(x[0], w[0], a2);
        a1 = __smlabb(x[1], w[1], a1), a3 = __smlatt(x[1], w[1], a3);
#else
        const int8_t* xb = reinterpret_cast<const int8_t*>(x);
        const int8_t* wb = reinterpret_cast<const int8_t*>(w);
        const auto mac = [](int32_t acc_, int32_t p, int32_t q) {
          return static_cast<int32_t>(static_cast<uint32_t>(acc_) + static_cast<uint32_t>(p * q));
        };
        a0 = mac(a0, xb[0], wb[0]), a1 = mac(a1, xb[1], wb[1]), a2 = mac(a2, xb[2], wb[2]), a3 = mac(a3, xb[3], wb[3]);
#endif
      }
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
  }
}

#if EMBER_TIER == EMBER_TIER_DSP
// out[j * cn] for j < n from the sums acc[4 j], a fast channel (FastOut).
__attribute__((noinline)) void requantize_fast(const int32_t* acc, int32_t n, const FastOut& f, int32_t zp,
                                               int8_t* out, int32_t cn) {
  int32_t a, h, r;
  asm volatile(
      "1:\n\t"
      "ldr    %[a], [%[acc]], #16\n\t"
      "smmla  %[h], %[a], %[m], %[rh]\n\t"
      "asr    %[r], %[h], %[right]\n\t"
      "tst    %[h], %[low]\n\t"
      "beq    3f\n"
      "2:\n\t"
      "ssat   %[r], #8, %[r]\n\t"
      "strb   %[r], [%[out]]\n\t"
      "add    %[out], %[out], %[cn]\n\t"
      "subs   %[n], %[n], #1\n\t"
      "bne    1b\n\t"
      ".subsection 1\n"
      "3:\n\t"
      "mul    %[h], %[a], %[m]\n\t"
      "cmp    %[h], #0\n\t"
      "bne    2b\n\t"
      "sub    %[r], %[r], %[zp]\n\t"
      "bic    %[r], %[r], #1\n\t"
      "add    %[r], %[r], %[zp]\n\t"
      "b      2b\n\t"
      ".previous\n\t"
      : [a] "=&r"(a), [h] "=&r"(h), [r] "=&r"(r), [acc] "+r"(acc), [n] "+r"(n), [out] "+r"(out)
      : [m] "r"(f.m), [rh] "r"(f.rh), [right] "r"(f.right), [low] "r"(f.low), [zp] "r"(zp), [cn] "r"(cn)
      : "cc", "memory");
}
#endif

// Any channel: requantize_value and clamp_output per sum.
void requantize_any(const int32_t* acc, int32_t n, const ChannelRequant& cq, const OutputClamp& oc_ref, int8_t* out,
                    int32_t cn) {
  const ChannelRequant q = cq;  // copies: the int8 stores cannot make GCC reload them
  const OutputClamp oc = oc_ref;
  for (int32_t j = 0; j < n; ++j, out += cn) *out = clamp_output(oc, requantize_value(q, acc[4 * j]));
}

struct Group {
  const DepthwiseS8* d;
  GroupTable* t;
  ChannelRequant q[4];
  bool fast[4];
  bool fused;      // mac_requant_3x3 takes the group
  OutputClamp oc;
  int32_t c0, gc;  // first channel, channels in the group
  uint32_t zz;     // a strip word of input_zp
};

// Image n of the group, output columns [x0, x0 + bw), every row in the op's order. The
// window is 3x3 (depthwise_strip), so the ring is three strip rows r[0..2], the input rows
// iy0 .. iy0 + 2 of the current output row. From one output row to the next they rotate by
// the stride (up or down with rows_bottom_up) and only the rows that enter are filled.
void group_band(const Group& k, int32_t n, int32_t x0, int32_t bw, uint32_t* strip) {
  const DepthwiseS8& d = *k.d;
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& g = d.geometry;
  const int32_t cn = s.in_c;
  BandFill f;
  f.pixels = (bw - 1) * g.stride_w + s.filter_w;
  const int32_t b0 = x0 * g.stride_w - g.pad_left;  // the input column of strip column 0
  f.lo = b0 < 0 ? (-b0 < f.pixels ? -b0 : f.pixels) : 0;
  const int32_t right = s.in_w - b0 < f.pixels ? s.in_w - b0 : f.pixels;
  f.hi = right > f.lo ? right : f.lo;
  f.cn = cn, f.gc = k.gc, f.zz = k.zz;
  // Input row iy's pixel at strip column lo is at img + iy * in_row, formed only for a row
  // inside the input with such pixels (lo < hi: b0 + lo is then an input column).
  const size_t in_row = static_cast<size_t>(s.in_w) * cn;
  const int8_t* img = d.input + static_cast<size_t>(n) * s.in_h * in_row + k.c0;
  if (f.lo < f.hi) img += static_cast<size_t>(b0 + f.lo) * cn;
  const auto fill = [&](uint32_t* dst, int32_t iy) {
    fill_row(dst, iy >= 0 && iy < s.in_h && f.lo < f.hi ? img + static_cast<size_t>(iy) * in_row : nullptr, f);
  };
  uint32_t* r[3] = {strip, strip + kPixelWords * f.pixels, strip + 2 * kPixelWords * f.pixels};
  // The columns outside the input are input_zp in every row: stored once here, not per fill.
  for (uint32_t* row : r) {
    for (int32_t j = 0; j < kPixelWords * f.lo; ++j) row[j] = f.zz;
    for (int32_t j = kPixelWords * f.hi; j < kPixelWords * f.pixels; ++j) row[j] = f.zz;
  }
  const bool up = d.rows_bottom_up;
  const int32_t sh = g.stride_h, enter = sh < 3 ? sh : 3;  // rows that enter the ring per output row
  int32_t iy0 = (up ? s.out_h - 1 : 0) * sh - g.pad_top;
  for (int32_t i = 0; i < 3; ++i) fill(r[i], iy0 + i);
  // Offsets, not pointers: past the last row a pointer would leave the output.
  const ptrdiff_t out_step = (up ? -1 : 1) * static_cast<ptrdiff_t>(s.out_w) * cn;
  ptrdiff_t out_at = static_cast<ptrdiff_t>(((static_cast<size_t>(n) * s.out_h + (up ? s.out_h - 1 : 0)) * s.out_w + x0) * cn + k.c0);
  for (int32_t yb = 0;;) {
    int8_t* const out = d.output + out_at;
    const uint32_t* const rows[3] = {r[0], r[1], r[2]};
#if EMBER_TIER == EMBER_TIER_DSP || defined(__ARM_ARCH_7M__)
    if (k.fused) {
      k.t->out_end = out + static_cast<size_t>(bw) * cn;
      if (g.stride_w == 1) mac_requant_3x3<1>(rows[0], rows[1], rows[2], *k.t, out);
      else mac_requant_3x3<2>(rows[0], rows[1], rows[2], *k.t, out);
    } else
#endif
    {
      for (int32_t j = 0; j < bw; j += kChunk) {
        const int32_t m = bw - j < kChunk ? bw - j : kChunk;
        const uint32_t* at[3];
        for (int32_t ky = 0; ky < 3; ++ky) at[ky] = rows[ky] + kPixelWords * j * g.stride_w;
        int32_t acc[4 * kChunk];
        mac_any(at, g.stride_w, *k.t, m, acc);
        int8_t* o = out + static_cast<size_t>(j) * cn;
        for (int32_t c = 0; c < k.gc; ++c) {
#if EMBER_TIER == EMBER_TIER_DSP
          if (k.fast[c]) {
            requantize_fast(acc + c, m, k.t->out[c], k.oc.zp, o + c, cn);
            continue;
          }
#endif
          requantize_any(acc + c, m, k.q[c], k.oc, o + c, cn);
        }
      }
    }
    if (++yb == s.out_h) break;
    out_at += out_step;
    // The next output row's ring: `enter` rows leave at one end and are refilled at the other.
    if (up) {
      iy0 -= sh;
      for (int32_t i = 0; i < enter; ++i) {
        uint32_t* const t = r[2];
        r[2] = r[1], r[1] = r[0], r[0] = t;
      }
      for (int32_t i = 0; i < enter; ++i) fill(r[i], iy0 + i);
    } else {
      iy0 += sh;
      for (int32_t i = 0; i < enter; ++i) {
        uint32_t* const t = r[0];
        r[0] = r[1], r[1] = r[2], r[2] = t;
      }
      for (int32_t i = 3 - enter; i < 3; ++i) fill(r[i], iy0 + i);
    }
  }
}

// The group's biases, weights (as strip pixels) and output constants; channels past the op's
// last get 0 (gc < 4).
void set_group(const DepthwiseS8& d, Group& k) {
  const Conv2dShape& s = d.shape;
  GroupTable& t = *k.t;
  const bool full_range = d.quant.act_min == -128 && d.quant.act_max == 127;
  bool all_fast = k.gc == 4;
  for (int32_t c = 0; c < k.gc; ++c) {
    k.fast[c] = fast_out(d.multiplier[k.c0 + c], d.shift[k.c0 + c], d.quant.output_zp, full_range, &t.out[c]);
    all_fast = all_fast && k.fast[c];
  }
  k.fused = kFusedLoop && all_fast;  // a 3x3 window, stride 1 or 2 (band_width)
  if (!k.fused)  // group_band's C path
    for (int32_t c = 0; c < k.gc; ++c) k.q[c] = channel_requant(d.multiplier[k.c0 + c], d.shift[k.c0 + c]);
  for (int32_t c = 0; c < 4; ++c) t.bias[c] = c < k.gc ? d.bias[k.c0 + c] : 0;
  for (int32_t i = 0; i < kTaps; ++i) {
    put_pixel(t.tap[i], load_group(d.filter + static_cast<size_t>(i) * s.in_c + k.c0, k.gc));
  }
}

// The strip path (band > 0), in its own frame so the listed-taps path's does not add to it.
__attribute__((noinline)) void strip_body(const DepthwiseS8& d, int32_t band) {
  const Conv2dShape& s = d.shape;
  uint32_t* const strip = reinterpret_cast<uint32_t*>(d.scratch);
  GroupTable t;
  t.zp = d.quant.output_zp, t.cn = s.in_c;
  Group k{&d, &t, {}, {}, false, output_clamp(d.quant.output_zp, d.quant.act_min, d.quant.act_max), 0, 0, 0};
  k.zz = zp_word(d.quant.input_zp);
  for (int32_t nb = 0; nb < s.batches; ++nb) {
    const int32_t n = d.rows_bottom_up ? s.batches - 1 - nb : nb;
    for (k.c0 = 0; k.c0 < s.in_c; k.c0 += 4) {
      k.gc = s.in_c - k.c0 < 4 ? s.in_c - k.c0 : 4;
      set_group(d, k);
      for (int32_t x0 = 0; x0 < s.out_w; x0 += band)
        group_band(k, n, x0, s.out_w - x0 < band ? s.out_w - x0 : band, strip);
    }
  }
}

}  // namespace

void depthwise_conv2d_s8_body(const DepthwiseS8& d) {
  const int32_t band = band_width(d);
  if (band == 0) depthwise_conv2d_s8_taps(d);
  else strip_body(d, band);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
