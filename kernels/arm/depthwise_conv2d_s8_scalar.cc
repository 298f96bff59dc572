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

inline int8_t requant(const DepthwiseS8& d, int32_t c, uint32_t acc) {
  return requantize_s8(static_cast<int32_t>(acc), d.multiplier[c], d.shift[c], d.quant.output_zp,
                       d.quant.act_min, d.quant.act_max);
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
void interior3x3_pair(const DepthwiseS8& d, const int8_t* in_px, int32_t step, int8_t* out_px) {
  const int32_t cn = d.shape.in_c;
  const size_t row = static_cast<size_t>(d.shape.in_w) * cn;
  const int32_t s = kStep != 0 ? kStep * cn : step;
  const int8_t* w = d.filter;
  for (int32_t c = 0; c < cn; ++c, ++in_px, ++w) {
    uint32_t a0 = static_cast<uint32_t>(d.bias[c]), a1 = a0;
    const int8_t* x = in_px;
    const int8_t* wr = w;
    for (int32_t r = 0; r < 3; ++r, x += row, wr += 3 * cn) {
      const int32_t w0 = wr[0], w1 = wr[cn], w2 = wr[2 * cn];
      const int32_t p0 = x[0], p1 = x[cn], p2 = x[2 * cn];
      a0 = mac(mac(mac(a0, p0, w0), p1, w1), p2, w2);
      const int32_t q0 = x[s], q1 = x[s + cn], q2 = x[s + 2 * cn];
      a1 = mac(mac(mac(a1, q0, w0), q1, w1), q2, w2);
    }
    out_px[c] = requant(d, c, a0);
    out_px[c + cn] = requant(d, c, a1);
  }
}

void interior3x3(const DepthwiseS8& d, const int8_t* in_px, int8_t* out_px) {
  const int32_t cn = d.shape.in_c;
  const size_t row = static_cast<size_t>(d.shape.in_w) * cn;
  const int8_t* w = d.filter;
  for (int32_t c = 0; c < cn; ++c, ++in_px, ++w) {
    uint32_t a = static_cast<uint32_t>(d.bias[c]);
    const int8_t* x = in_px;
    const int8_t* wr = w;
    for (int32_t r = 0; r < 3; ++r, x += row, wr += 3 * cn)
      a = mac(mac(mac(a, x[0], wr[0]), x[cn], wr[cn]), x[2 * cn], wr[2 * cn]);
    out_px[c] = requant(d, c, a);
  }
}

// A window's valid taps, rows x cols of them starting at input in_px (channel 0) and filter
// tap filt (channel 0). kBorder: accumulate (x - input_zp) * w on the op's own bias (null:
// zero), else x * w on the folded bias.
template <bool kBorder>
void window(const DepthwiseS8& d, const int8_t* in_px, const int8_t* filt, int32_t rows, int32_t cols,
            int8_t* out_px) {
  const Conv2dShape& sh = d.shape;
  const Conv2dGeometry& g = d.geometry;
  const int32_t cn = sh.in_c;
  const int32_t zp = kBorder ? d.quant.input_zp : 0;
  const int32_t* base = kBorder ? d.raw_bias : d.bias;
  const size_t x_row = static_cast<size_t>(g.dilation_h) * sh.in_w * cn;
  const size_t x_col = static_cast<size_t>(g.dilation_w) * cn;
  const size_t w_row = static_cast<size_t>(sh.filter_w) * cn;
  for (int32_t c = 0; c < cn; ++c, ++in_px, ++filt) {
    uint32_t acc = base != nullptr ? static_cast<uint32_t>(base[c]) : 0u;
    const int8_t* xr = in_px;
    const int8_t* wr = filt;
    for (int32_t r = 0; r < rows; ++r, xr += x_row, wr += w_row) {
      const int8_t* xp = xr;
      const int8_t* wp = wr;
      for (int32_t k = 0; k < cols; ++k, xp += x_col, wp += cn) acc = mac(acc, *xp - zp, *wp);
    }
    out_px[c] = requant(d, c, acc);
  }
}

// Not inlined into the batch and row loops: GCC then keeps fewer of the per-row values in
// registers and the taps spill.
__attribute__((noinline)) void row(const DepthwiseS8& d, int32_t n, int32_t y) {
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& g = d.geometry;
  const int32_t cn = s.in_c;
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
    if (x >= x0 && x < x1) {
      const int8_t* in_px = in_img + (static_cast<size_t>(iy0) * s.in_w + ix0) * cn;
      if (!is3x3) {
        window<false>(d, in_px, d.filter, s.filter_h, s.filter_w, out_px);
      } else if (x + 1 < x1) {
        if (g.stride_w == 1) interior3x3_pair<1>(d, in_px, step, out_px);
        else if (g.stride_w == 2) interior3x3_pair<2>(d, in_px, step, out_px);
        else interior3x3_pair<0>(d, in_px, step, out_px);
        x += 2;
        continue;
      } else {
        interior3x3(d, in_px, out_px);
      }
    } else {
      int32_t kx0, kx1;
      valid_taps(ix0, s.filter_w, g.dilation_w, s.in_w, &kx0, &kx1);
      // An empty window (all taps in the padding) reads nothing; keep its pointer in the input.
      const bool empty = ky0 == ky1 || kx0 == kx1;
      const int8_t* in_px =
          empty ? in_img
                : in_img + (static_cast<size_t>(iy0 + ky0 * g.dilation_h) * s.in_w + (ix0 + kx0 * g.dilation_w)) * cn;
      const int8_t* filt = d.filter + (static_cast<size_t>(ky0) * s.filter_w + kx0) * cn;
      window<true>(d, in_px, filt, ky1 - ky0, kx1 - kx0, out_px);
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
