//===- conv2d_s8.cc - Reference int8 2-D convolution ----------------------===//
//
// Straight loops in the order of the formula: clarity over speed, since this file is the
// numeric ground truth the optimized tiers are tested against.

#include "ember/kernels/portable/conv2d_s8.h"

#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

// A depthwise conv is the grouped conv whose group g reads input channel g alone, with the
// weights stored 1HWC instead of OHWI.
void conv_any_s8(const Conv2dShape& s, const Conv2dGeometry& g, const QuantS8& q,
                 const int8_t* input, const int8_t* filter, const int32_t* bias,
                 const int32_t* multiplier, const int32_t* shift, int8_t* output, bool depthwise,
                 bool rows_bottom_up) {
  const int32_t group_in = depthwise ? 1 : s.filter_c;  // input channels per group
  const int32_t groups = s.in_c / group_in;
  const int32_t out_per_group = s.out_c / groups;
  const size_t taps = static_cast<size_t>(s.filter_h) * s.filter_w;
  // Rows last-first when asked: the output may then overlap the upper end of the input
  // (kernels/kernels.def); each row's pixels still go left to right.
  const int32_t rows = s.batches * s.out_h;
  for (int32_t k = 0; k < rows; ++k) {
    const int32_t row = row_in_order(k, rows, rows_bottom_up);
    const int32_t n = row / s.out_h, y = row % s.out_h;
    for (int32_t x = 0; x < s.out_w; ++x) {
      for (int32_t o = 0; o < s.out_c; ++o) {
        const int32_t in_c0 = (o / out_per_group) * group_in;
        int32_t acc = bias != nullptr ? bias[o] : 0;
        for (int32_t ky = 0; ky < s.filter_h; ++ky) {
          const int32_t iy = y * g.stride_h - g.pad_top + ky * g.dilation_h;
          if (iy < 0 || iy >= s.in_h) continue;
          for (int32_t kx = 0; kx < s.filter_w; ++kx) {
            const int32_t ix = x * g.stride_w - g.pad_left + kx * g.dilation_w;
            if (ix < 0 || ix >= s.in_w) continue;
            const int8_t* in_px = input + ((static_cast<size_t>(n) * s.in_h + iy) * s.in_w + ix) *
                                              s.in_c + in_c0;
            const size_t tap = static_cast<size_t>(ky) * s.filter_w + kx;
            const int8_t* w = depthwise ? filter + tap * s.out_c + o  // 1HWC, else OHWI
                                        : filter + (o * taps + tap) * group_in;
            for (int32_t i = 0; i < group_in; ++i)
              acc = wrapping_add(acc, (in_px[i] - q.input_zp) * w[i]);
          }
        }
        output[((static_cast<size_t>(n) * s.out_h + y) * s.out_w + x) * s.out_c + o] =
            requantize_to_s8(acc, multiplier[o], shift[o], q.output_zp, q.act_min, q.act_max);
      }
    }
  }
}

void conv2d_s8(const Conv2dShape& s, const Conv2dGeometry& g, const QuantS8& q,
               const int8_t* input, const int8_t* filter, const int32_t* bias,
               const int32_t* multiplier, const int32_t* shift, int8_t* output,
               bool rows_bottom_up) {
  conv_any_s8(s, g, q, input, filter, bias, multiplier, shift, output, false, rows_bottom_up);
}

rt::Status check_conv_any_s8(const rt::OpContext& c, bool depthwise, bool values) {
  // Inputs 5 (folded bias) and output 1 (scratch) are optional additions for the optimized
  // kernels (kernels/arm/operands.h); this kernel ignores them.
  EMBER_KCHECK(has_counts(c, -1, -1, 10, 0) && c.num_inputs >= 5 && c.num_inputs <= 6 &&
                   c.num_outputs >= 1 && c.num_outputs <= 2,
               BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& filter = c.in(1);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(filter) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == DType::Int8 && filter.dtype == DType::Int8 && out.dtype == DType::Int8,
               BadOpSignature);
  EMBER_RETURN_IF_ERROR(check_conv_shapes(in, filter, out, conv_geometry_from(c.ints), depthwise));
  EMBER_RETURN_IF_ERROR(check_per_channel(c, 2, out.dims[3], values));
  return check_quant_s8(QuantS8{c.ints[6], c.ints[7], c.ints[8], c.ints[9]});
}

rt::Status run_conv_any_s8(const rt::OpContext& c, bool depthwise) {
  conv_any_s8(conv_shape_from(c.in(0), c.in(1), c.out(0)), conv_geometry_from(c.ints),
              QuantS8{c.ints[6], c.ints[7], c.ints[8], c.ints[9]}, c.in(0).as<const int8_t>(),
              c.in(1).as<const int8_t>(), c.in(2).as<const int32_t>(), c.in(3).as<const int32_t>(),
              c.in(4).as<const int32_t>(), c.out(0).as<int8_t>(), depthwise, c.rows_bottom_up);
  return rt::Status::Ok;
}

rt::Status check_conv2d_s8(const rt::OpContext& c) { return check_conv_any_s8(c, false); }
rt::Status run_conv2d_s8(const rt::OpContext& c) { return run_conv_any_s8(c, false); }

}  // namespace ember::kernels
