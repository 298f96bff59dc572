//===- depthwise_conv2d_s8_scalar.cc - Depthwise by listed taps: scalar and DSP tiers ===//
//
// The scalar and DSP tiers' kernel for what their strip path (depthwise_conv2d_s8_strip.cc)
// does not take (windows other than 3x3, dilation above 1, no room in the scratch); on the DSP
// tier only the tap loop below differs (SXTB16 and SMLABB/SMLATT on four channels at once).
// Per output row the valid filter rows are found once, per pixel the valid filter columns, so
// no tap is bounds-checked. A window's valid taps are a list of (input, filter) byte offsets;
// the channels then run four at a time through one flat loop over that list:
//   - interior windows share one list (offsets from the window's first tap), made once per op,
//     and accumulate x * w on the folded bias; a row's interior run is done channel group by
//     channel group, so the group's constants are set up once per run, and a group of FastOut
//     channels stores its outputs with the strip's asm (fast_out_asm.h);
//   - border windows list their valid taps only (offsets from the image) and accumulate
//     (x - input_zp) * w on the op's own bias: the portable accumulator itself, so the padded
//     taps cost nothing (the folded bias would need input_zp * w added back for each).
// Filters with more than kMaxListedTaps taps take a nested loop per channel.
//
// Tap loop per four channels: DSP LDRD of the two offsets, two LDR, four SXTB16, four SMLAxy,
// compare, branch (border: two SSUB16 more); Cortex-M3 LDRD, two ADD, eight LDRSB, four MLA,
// compare, branch (border: four SUB more). GCC's own code for this loop spills and recomputes
// addresses, so it is assembly on those cores and C elsewhere.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include <stddef.h>

#include "ember/kernels/arm/depthwise_conv2d_s8.h"
#include "ember/kernels/arm/fast_out_asm.h"
#include "ember/kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {
namespace {

inline uint32_t mac(uint32_t acc, int32_t x, int32_t w) { return acc + static_cast<uint32_t>(x * w); }

// The op's pointers and constants as locals of the row function: the int8 output stores may
// alias anything reachable through a pointer, so fields read through `d` would be reloaded
// after every store.
struct Layer {
  const int8_t* filter;
  const int32_t* bias;
  const int32_t* raw_bias;
  const int32_t* multiplier;
  const int32_t* shift;
  OutputClamp out;
  int32_t cn, input_zp;
};

inline int8_t requant(const Layer& l, int32_t c, uint32_t acc) {
  return clamp_output(l.out, requantize_value(channel_requant(l.multiplier[c], l.shift[c]), static_cast<int32_t>(acc)));
}

// The valid taps [k0, k1) of one axis for a window starting at input index i0: those with
// 0 <= i0 + k * dilation < size.
inline void valid_taps(int32_t i0, int32_t taps, int32_t dilation, int32_t size, int32_t* k0, int32_t* k1) {
  int32_t lo = i0 >= 0 ? 0 : (-i0 + dilation - 1) / dilation;
  int32_t hi = i0 > size - 1 ? 0 : (size - 1 - i0) / dilation + 1;
  if (hi > taps) hi = taps;
  if (lo > hi) lo = hi;
  *k0 = lo, *k1 = hi;
}

constexpr int32_t kMaxListedTaps = 16;  // 4x4, 1x16; 128 bytes of stack per list

struct Tap {
  int32_t x, w;  // byte offsets of channel 0 of the tap in the input and in the filter
};

// For the four channels j = 0..3: a[j] += sum over the taps t of
// (px[t.x + j] - zp) * pw[t.w + j]. kBorder: zp is input_zp, else 0 (and not subtracted).
// tap_loop is taps_4's loop in assembly, for the taps [t, end) with t < end; always inline,
// or GCC inlines it later, with worse registers around it.
#if EMBER_TIER == EMBER_TIER_DSP
template <bool kBorder>
__attribute__((always_inline)) inline void tap_loop(const Tap* t, const Tap* end, const int8_t* px, const int8_t* pw, int32_t zp, uint32_t& a0,
                     uint32_t& a1, uint32_t& a2, uint32_t& a3) {
  // zp in both int16 lanes; x - zp is within [-255, 255], so SSUB16 is exact.
  const uint32_t zz = (static_cast<uint32_t>(zp) & 0xFFFFu) * 0x10001u;
  uint32_t xo, wo, xe, we;
  // Bytes (c0 c1 c2 c3): SXTB16 gives (c0, c2), with ROR #8 (c1, c3); SMLABB takes the low
  // lanes, SMLATT the high ones.
  asm volatile(
      "1:\n\t"
      "ldrd   %[xo], %[wo], [%[t]], #8\n\t"
      "ldr    %[xo], [%[px], %[xo]]\n\t"
      "ldr    %[wo], [%[pw], %[wo]]\n\t"
      "sxtb16 %[xe], %[xo]\n\t"
      "sxtb16 %[xo], %[xo], ror #8\n\t"
      "sxtb16 %[we], %[wo]\n\t"
      "sxtb16 %[wo], %[wo], ror #8\n\t"
      ".if %c[border]\n\t"
      "ssub16 %[xe], %[xe], %[zz]\n\t"
      "ssub16 %[xo], %[xo], %[zz]\n\t"
      ".endif\n\t"
      "smlabb %[a0], %[xe], %[we], %[a0]\n\t"
      "smlatt %[a2], %[xe], %[we], %[a2]\n\t"
      "smlabb %[a1], %[xo], %[wo], %[a1]\n\t"
      "smlatt %[a3], %[xo], %[wo], %[a3]\n\t"
      "cmp    %[t], %[end]\n\t"
      "bne    1b\n\t"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [t] "+r"(t), [xo] "=&r"(xo), [wo] "=&r"(wo),
        [xe] "=&r"(xe), [we] "=&r"(we)
      : [end] "r"(end), [px] "r"(px), [pw] "r"(pw), [zz] "r"(zz), [border] "i"(kBorder ? 1 : 0)
      : "cc", "memory");
}
#elif defined(__ARM_ARCH_7M__)
template <bool kBorder>
__attribute__((always_inline)) inline void tap_loop(const Tap* t, const Tap* end, const int8_t* px, const int8_t* pw, int32_t zp, uint32_t& a0,
                     uint32_t& a1, uint32_t& a2, uint32_t& a3) {
  int32_t xp, wp, x, w;
#define EMBER_DW_CH(j, acc)                     \
  "ldrsb  %[x], [%[xp], #" #j "]\n\t"           \
  "ldrsb  %[w], [%[wp], #" #j "]\n\t"           \
  ".if %c[border]\n\t"                          \
  "sub    %[x], %[x], %[zp]\n\t"                \
  ".endif\n\t"                                  \
  "mla    %[" acc "], %[x], %[w], %[" acc "]\n\t"
  asm volatile(
      "1:\n\t"
      "ldrd   %[xp], %[wp], [%[t]], #8\n\t"
      "add    %[xp], %[xp], %[px]\n\t"
      "add    %[wp], %[wp], %[pw]\n\t"
      EMBER_DW_CH(0, "a0")
      EMBER_DW_CH(1, "a1")
      EMBER_DW_CH(2, "a2")
      EMBER_DW_CH(3, "a3")
      "cmp    %[t], %[end]\n\t"
      "bne    1b\n\t"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [t] "+r"(t), [xp] "=&r"(xp), [wp] "=&r"(wp),
        [x] "=&r"(x), [w] "=&r"(w)
      : [end] "r"(end), [px] "r"(px), [pw] "r"(pw), [zp] "r"(zp), [border] "i"(kBorder ? 1 : 0)
      : "cc", "memory");
#undef EMBER_DW_CH
}
#endif

#if EMBER_TIER == EMBER_TIER_DSP || defined(__ARM_ARCH_7M__)
template <bool kBorder>
inline void taps_4(const Tap* taps, int32_t count, const int8_t* px, const int8_t* pw, int32_t zp, uint32_t (&a)[4]) {
  if (count <= 0) return;
  uint32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  tap_loop<kBorder>(taps, taps + count, px, pw, zp, a0, a1, a2, a3);
  a[0] = a0, a[1] = a1, a[2] = a2, a[3] = a3;
}
#else
template <bool kBorder>
inline void taps_4(const Tap* taps, int32_t count, const int8_t* px, const int8_t* pw, int32_t zp, uint32_t (&a)[4]) {
  for (int32_t t = 0; t < count; ++t) {
    const int8_t* xp = px + taps[t].x;
    const int8_t* wp = pw + taps[t].w;
    for (int32_t j = 0; j < 4; ++j) a[j] = mac(a[j], xp[j] - (kBorder ? zp : 0), wp[j]);
  }
}
#endif


// A window's listed taps, all channels; px is where the offsets start (the window's first tap
// for an interior window, the image for a border one).
template <bool kBorder>
__attribute__((noinline)) void window(const Layer& l, const Tap* taps, int32_t count, const int8_t* px,
                                      int8_t* out_px) {
  const int32_t cn = l.cn;
  const int32_t zp = kBorder ? l.input_zp : 0;
  const int32_t* const base = kBorder ? l.raw_bias : l.bias;
  const int8_t* const filter = l.filter;
  int32_t c = 0;
  for (; c + 4 <= cn; c += 4) {
    uint32_t a[4] = {0, 0, 0, 0};
    if (base != nullptr)
      for (int32_t j = 0; j < 4; ++j) a[j] = static_cast<uint32_t>(base[c + j]);
    taps_4<kBorder>(taps, count, px + c, filter + c, zp, a);
    for (int32_t j = 0; j < 4; ++j) out_px[c + j] = requant(l, c + j, a[j]);
  }
  for (; c < cn; ++c) {
    uint32_t acc = base != nullptr ? static_cast<uint32_t>(base[c]) : 0u;
    for (int32_t t = 0; t < count; ++t) acc = mac(acc, px[taps[t].x + c] - zp, filter[taps[t].w + c]);
    out_px[c] = requant(l, c, acc);
  }
}

// A row's run of n interior windows, the first at px (its first tap), the next ones step
// input bytes and cn output bytes further. Channel groups are the outer loop, so a group's
// biases and requantization constants are set up once for the whole run.
__attribute__((noinline)) void interior_run(const Layer& l, const Tap* taps, int32_t count, const int8_t* px,
                                            int32_t step, int32_t n, int8_t* out) {
  const int32_t cn = l.cn;
  const int8_t* const filter = l.filter;
  const OutputClamp oc = l.out;
  const bool full_range = oc.lo == -128 - oc.zp && oc.hi == 127 - oc.zp;  // act range all of int8
  int32_t c = 0;
  for (; c + 4 <= cn; c += 4) {
    uint32_t b[4];
    FastTable t;
    bool fast = kFastOutAsm;
    for (int32_t j = 0; j < 4; ++j) {
      b[j] = static_cast<uint32_t>(l.bias[c + j]);
      fast = fast && fast_out(l.multiplier[c + j], l.shift[c + j], oc.zp, full_range, &t.out[j]);
    }
    const int8_t* x = px + c;
    int8_t* o = out + c;
    if (fast) {  // the usual case: the four outputs in asm
      t.zp = oc.zp;
      for (int32_t i = 0; i < n; ++i, x += step, o += cn) {
        uint32_t a[4] = {b[0], b[1], b[2], b[3]};
        taps_4<false>(taps, count, x, filter + c, 0, a);
        store_fast<4>(t, a, o);
      }
      continue;
    }
    ChannelRequant q[4];
    for (int32_t j = 0; j < 4; ++j) q[j] = channel_requant(l.multiplier[c + j], l.shift[c + j]);
    for (int32_t i = 0; i < n; ++i, x += step, o += cn) {
      uint32_t a[4] = {b[0], b[1], b[2], b[3]};
      taps_4<false>(taps, count, x, filter + c, 0, a);
      for (int32_t j = 0; j < 4; ++j) o[j] = clamp_output(oc, requantize_value(q[j], static_cast<int32_t>(a[j])));
    }
  }
  for (; c < cn; ++c) {
    const ChannelRequant q = channel_requant(l.multiplier[c], l.shift[c]);
    const int8_t* x = px + c;
    int8_t* o = out + c;
    for (int32_t i = 0; i < n; ++i, x += step, o += cn) {
      uint32_t acc = static_cast<uint32_t>(l.bias[c]);
      for (int32_t t = 0; t < count; ++t) acc = mac(acc, x[taps[t].x], filter[taps[t].w + c]);
      *o = clamp_output(oc, requantize_value(q, static_cast<int32_t>(acc)));
    }
  }
}

// Any window of a filter with more than kMaxListedTaps taps: rows x cols valid taps from input
// in_px and filter tap filt (channel 0 of each).
template <bool kBorder>
void window_nested(const Layer& l, const DepthwiseS8& d, const int8_t* in_px, const int8_t* filt, int32_t rows,
                   int32_t cols, int8_t* out_px) {
  const Conv2dGeometry& g = d.geometry;
  const int32_t cn = l.cn;
  const int32_t zp = kBorder ? l.input_zp : 0;
  const int32_t* base = kBorder ? l.raw_bias : l.bias;
  const size_t x_row = static_cast<size_t>(g.dilation_h) * d.shape.in_w * cn;
  const size_t x_col = static_cast<size_t>(g.dilation_w) * cn;
  const size_t w_row = static_cast<size_t>(d.shape.filter_w) * cn;
  for (int32_t c = 0; c < cn; ++c, ++in_px, ++filt) {
    uint32_t acc = base != nullptr ? static_cast<uint32_t>(base[c]) : 0u;
    const int8_t* xr = in_px;
    const int8_t* wr = filt;
    for (int32_t r = 0; r < rows; ++r, xr += x_row, wr += w_row) {
      const int8_t* xp = xr;
      const int8_t* wp = wr;
      for (int32_t k = 0; k < cols; ++k, xp += x_col, wp += cn) acc = mac(acc, *xp - zp, *wp);
    }
    out_px[c] = requant(l, c, acc);
  }
}

void row(const DepthwiseS8& d, const Layer& l, const Tap* interior_taps, int32_t n, int32_t y) {
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& g = d.geometry;
  const int32_t cn = s.in_c;
  const int32_t iy0 = y * g.stride_h - g.pad_top;
  int32_t ky0, ky1;
  valid_taps(iy0, s.filter_h, g.dilation_h, s.in_h, &ky0, &ky1);
  const bool rows_inside = ky0 == 0 && ky1 == s.filter_h;
  int32_t x0 = 0, x1 = 0;
  if (rows_inside) interior_x(s, g, &x0, &x1);
  const bool listed = s.filter_h * s.filter_w <= kMaxListedTaps;
  const int8_t* in_img = d.input + static_cast<size_t>(n) * s.in_h * s.in_w * cn;
  int8_t* out_row = d.output + (static_cast<size_t>(n) * s.out_h + y) * s.out_w * s.out_c;
  for (int32_t x = 0; x < s.out_w; ++x) {
    int8_t* out_px = out_row + static_cast<size_t>(x) * s.out_c;
    const int32_t ix0 = x * g.stride_w - g.pad_left;
    const bool inside = x >= x0 && x < x1;
    if (inside && listed) {
      const int8_t* in_px = in_img + (static_cast<size_t>(iy0) * s.in_w + ix0) * cn;
      if (x1 - x0 == 1) {  // a run of one window: the per-run set-up would not pay off
        window<false>(l, interior_taps, s.filter_h * s.filter_w, in_px, out_px);
        continue;
      }
      interior_run(l, interior_taps, s.filter_h * s.filter_w, in_px, g.stride_w * cn, x1 - x0, out_px);
      x = x1 - 1;  // the whole interior run [x0, x1)
      continue;
    }
    int32_t kx0 = 0, kx1 = s.filter_w;
    if (!inside) valid_taps(ix0, s.filter_w, g.dilation_w, s.in_w, &kx0, &kx1);
    if (listed) {
      Tap taps[kMaxListedTaps];
      int32_t count = 0;
      for (int32_t ky = ky0; ky < ky1; ++ky) {
        const int32_t iy = iy0 + ky * g.dilation_h;
        for (int32_t kx = kx0; kx < kx1; ++kx, ++count) {
          taps[count].x = (iy * s.in_w + ix0 + kx * g.dilation_w) * cn;
          taps[count].w = (ky * s.filter_w + kx) * cn;
        }
      }
      window<true>(l, taps, count, in_img, out_px);
      continue;
    }
    // An empty window (all taps in the padding) reads nothing; keep its pointer in the input.
    const bool empty = ky0 == ky1 || kx0 == kx1;
    const int8_t* in_px =
        empty ? in_img
              : in_img + (static_cast<size_t>(iy0 + ky0 * g.dilation_h) * s.in_w + (ix0 + kx0 * g.dilation_w)) * cn;
    const int8_t* filt = d.filter + (static_cast<size_t>(ky0) * s.filter_w + kx0) * cn;
    if (inside) window_nested<false>(l, d, in_px, filt, ky1 - ky0, kx1 - kx0, out_px);
    else window_nested<true>(l, d, in_px, filt, ky1 - ky0, kx1 - kx0, out_px);
  }
}

}  // namespace

int8_t depthwise_conv2d_s8_min_weight(const int8_t* filter, size_t n) {
  int8_t lo = filter[0];
  for (size_t i = 1; i < n; ++i) lo = filter[i] < lo ? filter[i] : lo;
  return lo;
}

void depthwise_conv2d_s8_taps(const DepthwiseS8& d) {
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& g = d.geometry;
  const int32_t cn = s.in_c;
  const Layer l{d.filter, d.bias, d.raw_bias, d.multiplier, d.shift,
                output_clamp(d.quant.output_zp, d.quant.act_min, d.quant.act_max), cn, d.quant.input_zp};
  // The interior windows' taps, offsets from the window's first tap.
  Tap interior[kMaxListedTaps];
  if (s.filter_h * s.filter_w <= kMaxListedTaps) {
    int32_t t = 0;
    for (int32_t ky = 0; ky < s.filter_h; ++ky)
      for (int32_t kx = 0; kx < s.filter_w; ++kx, ++t) {
        interior[t].x = (ky * g.dilation_h * s.in_w + kx * g.dilation_w) * cn;
        interior[t].w = (ky * s.filter_w + kx) * cn;
      }
  }
  for (int32_t nb = 0; nb < s.batches; ++nb)
    for (int32_t yb = 0; yb < s.out_h; ++yb)
      row(d, l, interior, d.rows_bottom_up ? s.batches - 1 - nb : nb, d.rows_bottom_up ? s.out_h - 1 - yb : yb);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
