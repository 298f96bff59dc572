//===- depthwise_conv2d_s8_scalar.cc - Depthwise rows in plain Thumb-2 ----===//
//
// Also the DSP tier's kernel: each product belongs to its own channel, so there is no pair
// of products for SMLAD to add. Per output row the valid filter rows are found once, per pixel
// the valid filter columns, so no tap is bounds-checked:
//   - interior 3x3 windows (dilation 1) run two output pixels per pass: each weight is loaded
//     once for both, and with stride 1 (2) the two windows share two (one) input columns;
//   - other interior windows loop over their taps with the folded bias;
//   - border windows loop over their valid taps only, accumulating (x - input_zp) * w on the
//     op's own bias: the portable accumulator itself, so the padded taps cost nothing (the
//     folded bias would need input_zp * w added back for each of them).

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include "kernels/arm/depthwise_conv2d_s8.h"
#include "kernels/arm/primitives_scalar.h"

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
  size_t in_row;  // bytes per input row
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

// Two horizontally adjacent 3x3 interior windows (dilation 1), `step` input bytes apart
// (stride_w * C); kStep is that stride when it is 1 or 2, so the shared columns are loaded
// once, else 0. in_px is the first window's top-left tap, channel 0.
template <int kStep>
void interior3x3_pair(const Layer& l, const int8_t* in_px, int32_t step, int8_t* out_px) {
  const int32_t cn = l.cn;
  const size_t row = l.in_row;
  const int32_t s = kStep != 0 ? kStep * cn : step;
  const int8_t* w = l.filter;
  for (int32_t c = 0; c < cn; ++c, ++in_px, ++w) {
    uint32_t a0 = static_cast<uint32_t>(l.bias[c]), a1 = a0;
    const int8_t* x = in_px;
    const int8_t* wr = w;
    for (int32_t r = 0; r < 3; ++r, x += row, wr += 3 * cn) {
      const int32_t w0 = wr[0], w1 = wr[cn], w2 = wr[2 * cn];
      const int32_t p0 = x[0], p1 = x[cn], p2 = x[2 * cn];
      a0 = mac(mac(mac(a0, p0, w0), p1, w1), p2, w2);
      const int32_t q0 = x[s], q1 = x[s + cn], q2 = x[s + 2 * cn];
      a1 = mac(mac(mac(a1, q0, w0), q1, w1), q2, w2);
    }
    const ChannelRequant q = channel_requant(l.multiplier[c], l.shift[c]);
    out_px[c] = clamp_output(l.out, requantize_value(q, static_cast<int32_t>(a0)));
    out_px[c + cn] = clamp_output(l.out, requantize_value(q, static_cast<int32_t>(a1)));
  }
}

void interior3x3(const Layer& l, const int8_t* in_px, int8_t* out_px) {
  const int32_t cn = l.cn;
  const size_t row = l.in_row;
  const int8_t* w = l.filter;
  for (int32_t c = 0; c < cn; ++c, ++in_px, ++w) {
    uint32_t a = static_cast<uint32_t>(l.bias[c]);
    const int8_t* x = in_px;
    const int8_t* wr = w;
    for (int32_t r = 0; r < 3; ++r, x += row, wr += 3 * cn)
      a = mac(mac(mac(a, x[0], wr[0]), x[cn], wr[cn]), x[2 * cn], wr[2 * cn]);
    out_px[c] = requant(l, c, a);
  }
}

// Windows other than the interior 3x3 list their valid taps once per pixel (input and filter
// byte offsets of channel 0), so the channel loop runs one flat tap loop, four channels per
// step. Filters with more taps than this take the nested loop below.
constexpr int32_t kMaxListedTaps = 25;

struct Tap {
  int32_t x, w;
};

// One channel over the listed taps.
template <bool kBorder>
inline uint32_t taps_1(const Tap* taps, int32_t count, const int8_t* x, const int8_t* w, int32_t zp, uint32_t acc) {
  for (int32_t t = 0; t < count; ++t) acc = mac(acc, x[taps[t].x] - (kBorder ? zp : 0), w[taps[t].w]);
  return acc;
}

// A window's valid taps. kBorder: some taps are in the padding; accumulate (x - input_zp) * w
// on the op's own bias (null: zero), else x * w on the folded bias.
template <bool kBorder>
void window(const Layer& l, const Tap* taps, int32_t count, const int8_t* in_img, int8_t* out_px) {
  const int32_t cn = l.cn;
  const int32_t zp = kBorder ? l.input_zp : 0;
  const int32_t* base = kBorder ? l.raw_bias : l.bias;
  const int8_t* w = l.filter;
  int32_t c = 0;
  for (; c + 4 <= cn; c += 4) {
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (base != nullptr) {
      a0 = static_cast<uint32_t>(base[c]), a1 = static_cast<uint32_t>(base[c + 1]);
      a2 = static_cast<uint32_t>(base[c + 2]), a3 = static_cast<uint32_t>(base[c + 3]);
    }
    const int8_t* x = in_img + c;
    const int8_t* wc = w + c;
    for (int32_t t = 0; t < count; ++t) {
      const int8_t* xp = x + taps[t].x;
      const int8_t* wp = wc + taps[t].w;
      a0 = mac(a0, xp[0] - zp, wp[0]);
      a1 = mac(a1, xp[1] - zp, wp[1]);
      a2 = mac(a2, xp[2] - zp, wp[2]);
      a3 = mac(a3, xp[3] - zp, wp[3]);
    }
    out_px[c] = requant(l, c, a0);
    out_px[c + 1] = requant(l, c + 1, a1);
    out_px[c + 2] = requant(l, c + 2, a2);
    out_px[c + 3] = requant(l, c + 3, a3);
  }
  for (; c < cn; ++c) {
    const uint32_t b = base != nullptr ? static_cast<uint32_t>(base[c]) : 0u;
    out_px[c] = requant(l, c, taps_1<kBorder>(taps, count, in_img + c, w + c, zp, b));
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
  const size_t x_row = static_cast<size_t>(g.dilation_h) * l.in_row;
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

// Not inlined into the batch and row loops: GCC then keeps fewer of the per-row values in
// registers and the taps spill.
__attribute__((noinline)) void row(const DepthwiseS8& d, int32_t n, int32_t y) {
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& g = d.geometry;
  const int32_t cn = s.in_c;
  const Layer l{d.filter, d.bias, d.raw_bias, d.multiplier, d.shift,
                output_clamp(d.quant.output_zp, d.quant.act_min, d.quant.act_max), cn, d.quant.input_zp,
                static_cast<size_t>(s.in_w) * cn};
  const int32_t iy0 = y * g.stride_h - g.pad_top;
  int32_t ky0, ky1;
  valid_taps(iy0, s.filter_h, g.dilation_h, s.in_h, &ky0, &ky1);
  const bool rows_inside = ky0 == 0 && ky1 == s.filter_h;
  int32_t x0 = 0, x1 = 0;
  if (rows_inside) depthwise_interior_x(s, g, &x0, &x1);
  const bool is3x3 = s.filter_h == 3 && s.filter_w == 3 && g.dilation_h == 1 && g.dilation_w == 1;
  const int8_t* in_img = d.input + static_cast<size_t>(n) * s.in_h * s.in_w * cn;
  int8_t* out_row = d.output + (static_cast<size_t>(n) * s.out_h + y) * s.out_w * s.out_c;
  const int32_t step = g.stride_w * cn;
  for (int32_t x = 0; x < s.out_w;) {
    int8_t* out_px = out_row + static_cast<size_t>(x) * s.out_c;
    const int32_t ix0 = x * g.stride_w - g.pad_left;
    const bool inside = x >= x0 && x < x1;
    if (inside && is3x3) {
      const int8_t* in_px = in_img + (static_cast<size_t>(iy0) * s.in_w + ix0) * cn;
      if (x + 1 < x1) {
        if (g.stride_w == 1) interior3x3_pair<1>(l, in_px, step, out_px);
        else if (g.stride_w == 2) interior3x3_pair<2>(l, in_px, step, out_px);
        else interior3x3_pair<0>(l, in_px, step, out_px);
        x += 2;
        continue;
      }
      interior3x3(l, in_px, out_px);
    } else {
      int32_t kx0 = 0, kx1 = s.filter_w;
      if (!inside) valid_taps(ix0, s.filter_w, g.dilation_w, s.in_w, &kx0, &kx1);
      if (s.filter_h * s.filter_w <= kMaxListedTaps) {
        Tap taps[kMaxListedTaps];
        int32_t count = 0;
        for (int32_t ky = ky0; ky < ky1; ++ky) {
          const int32_t iy = iy0 + ky * g.dilation_h;
          for (int32_t kx = kx0; kx < kx1; ++kx, ++count) {
            taps[count].x = (iy * s.in_w + ix0 + kx * g.dilation_w) * cn;
            taps[count].w = (ky * s.filter_w + kx) * cn;
          }
        }
        if (inside) window<false>(l, taps, count, in_img, out_px);
        else window<true>(l, taps, count, in_img, out_px);
      } else {
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
    ++x;
  }
}

}  // namespace

void depthwise_conv2d_s8_body(const DepthwiseS8& d) {
  for (int32_t n = 0; n < d.shape.batches; ++n)
    for (int32_t y = 0; y < d.shape.out_h; ++y) row(d, n, y);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
