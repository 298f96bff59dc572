//===- depthwise_conv2d_s8_scalar.cc - Depthwise rows in plain Thumb-2 ----===//
//
// Also the DSP tier's kernel: each product belongs to its own channel, so there is no pair
// of products for SMLAD to add. Interior 3x3 windows (dilation 1) are unrolled with three row
// pointers per operand; other windows loop over their taps.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include "kernels/arm/depthwise_conv2d_s8.h"
#include "kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {
namespace {

inline uint32_t mac(uint32_t acc, int32_t x, int32_t w) { return acc + static_cast<uint32_t>(x * w); }

// Every tap inside the input: no bounds checks.
void interior(const DepthwiseS8& d, const int8_t* in_px, int8_t* out_px) {
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& g = d.geometry;
  const int32_t c_count = s.in_c;
  const size_t row = static_cast<size_t>(s.in_w) * c_count;
  if (s.filter_h == 3 && s.filter_w == 3 && g.dilation_h == 1 && g.dilation_w == 1) {
    const int8_t* x0 = in_px;
    const int8_t* x1 = x0 + row;
    const int8_t* x2 = x1 + row;
    const int8_t* w0 = d.filter;
    const int8_t* w1 = w0 + 3 * c_count;
    const int8_t* w2 = w1 + 3 * c_count;
    const int32_t c1 = c_count, c2 = 2 * c_count;
    for (int32_t c = 0; c < c_count; ++c) {
      uint32_t acc = static_cast<uint32_t>(d.bias[c]);
      acc = mac(acc, x0[c], w0[c]);
      acc = mac(acc, x0[c + c1], w0[c + c1]);
      acc = mac(acc, x0[c + c2], w0[c + c2]);
      acc = mac(acc, x1[c], w1[c]);
      acc = mac(acc, x1[c + c1], w1[c + c1]);
      acc = mac(acc, x1[c + c2], w1[c + c2]);
      acc = mac(acc, x2[c], w2[c]);
      acc = mac(acc, x2[c + c1], w2[c + c1]);
      acc = mac(acc, x2[c + c2], w2[c + c2]);
      out_px[c] = requantize_s8(static_cast<int32_t>(acc), d.multiplier[c], d.shift[c], d.quant.output_zp,
                                d.quant.act_min, d.quant.act_max);
    }
    return;
  }
  for (int32_t c = 0; c < c_count; ++c) {
    uint32_t acc = static_cast<uint32_t>(d.bias[c]);
    const int8_t* w = d.filter + c;
    for (int32_t ky = 0; ky < s.filter_h; ++ky) {
      const int8_t* x = in_px + ky * g.dilation_h * row + c;
      for (int32_t kx = 0; kx < s.filter_w; ++kx, w += c_count)
        acc = mac(acc, x[static_cast<size_t>(kx) * g.dilation_w * c_count], *w);
    }
    out_px[c] = requantize_s8(static_cast<int32_t>(acc), d.multiplier[c], d.shift[c], d.quant.output_zp,
                              d.quant.act_min, d.quant.act_max);
  }
}

// Some tap outside: it contributes input_zp * w (the folded bias subtracted it).
void border(const DepthwiseS8& d, int32_t n, int32_t y, int32_t x, int8_t* out_px) {
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& g = d.geometry;
  const int32_t c_count = s.in_c, zp = d.quant.input_zp;
  for (int32_t c = 0; c < c_count; ++c) {
    uint32_t acc = static_cast<uint32_t>(d.bias[c]);
    for (int32_t ky = 0; ky < s.filter_h; ++ky) {
      const int32_t iy = y * g.stride_h - g.pad_top + ky * g.dilation_h;
      for (int32_t kx = 0; kx < s.filter_w; ++kx) {
        const int32_t ix = x * g.stride_w - g.pad_left + kx * g.dilation_w;
        const int32_t w = d.filter[(static_cast<size_t>(ky) * s.filter_w + kx) * c_count + c];
        const bool inside = iy >= 0 && iy < s.in_h && ix >= 0 && ix < s.in_w;
        const int32_t v =
            inside ? d.input[((static_cast<size_t>(n) * s.in_h + iy) * s.in_w + ix) * c_count + c] : zp;
        acc = mac(acc, v, w);
      }
    }
    out_px[c] = requantize_s8(static_cast<int32_t>(acc), d.multiplier[c], d.shift[c], d.quant.output_zp,
                              d.quant.act_min, d.quant.act_max);
  }
}

// Not inlined into the batch and row loops: GCC then keeps fewer of the per-row values in
// registers and the taps spill.
__attribute__((noinline)) void row(const DepthwiseS8& d, int32_t n, int32_t y) {
  const Conv2dShape& s = d.shape;
  const Conv2dGeometry& g = d.geometry;
  const int32_t iy0 = y * g.stride_h - g.pad_top;
  const bool rows_inside = iy0 >= 0 && iy0 + g.dilation_h * (s.filter_h - 1) < s.in_h;
  int32_t x0 = 0, x1 = 0;
  if (rows_inside) depthwise_interior_x(s, g, &x0, &x1);
  int8_t* out_row = d.output + (static_cast<size_t>(n) * s.out_h + y) * s.out_w * s.out_c;
  for (int32_t x = 0; x < s.out_w; ++x) {
    int8_t* out_px = out_row + static_cast<size_t>(x) * s.out_c;
    if (x >= x0 && x < x1) {
      const int32_t ix0 = x * g.stride_w - g.pad_left;
      interior(d, d.input + ((static_cast<size_t>(n) * s.in_h + iy0) * s.in_w + ix0) * s.in_c, out_px);
    } else {
      border(d, n, y, x, out_px);
    }
  }
}

}  // namespace

void depthwise_conv2d_s8_body(const DepthwiseS8& d) {
  const int32_t batches = d.shape.batches, out_h = d.shape.out_h;
  for (int32_t nb = 0; nb < batches; ++nb)
    for (int32_t yb = 0; yb < out_h; ++yb)
      row(d, d.rows_bottom_up ? batches - 1 - nb : nb, d.rows_bottom_up ? out_h - 1 - yb : yb);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
