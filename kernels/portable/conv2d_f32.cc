//===- conv2d_f32.cc - Reference float32 2-D convolutions -----------------===//
//
// One loop nest for both: a depthwise conv is the grouped conv whose group g reads input
// channel g, with the weights stored 1HWC instead of OHWI.

#include "ember/kernels/portable/conv2d_f32.h"

namespace ember::kernels {

static void conv_any_f32(const Conv2dShape& s, const Conv2dGeometry& g, float lo, float hi,
                         const float* input, const float* filter, const float* bias,
                         float* output, bool depthwise) {
  const int32_t group_in = depthwise ? 1 : s.filter_c;  // input channels per group
  const int32_t groups = s.in_c / group_in;
  const int32_t out_per_group = s.out_c / groups;
  for (int32_t n = 0; n < s.batches; ++n)
    for (int32_t y = 0; y < s.out_h; ++y)
      for (int32_t x = 0; x < s.out_w; ++x)
        for (int32_t o = 0; o < s.out_c; ++o) {
          const int32_t in_c0 = (o / out_per_group) * group_in;
          float acc = bias != nullptr ? bias[o] : 0.0f;
          for (int32_t ky = 0; ky < s.filter_h; ++ky) {
            const int32_t iy = y * g.stride_h - g.pad_top + ky * g.dilation_h;
            if (iy < 0 || iy >= s.in_h) continue;
            for (int32_t kx = 0; kx < s.filter_w; ++kx) {
              const int32_t ix = x * g.stride_w - g.pad_left + kx * g.dilation_w;
              if (ix < 0 || ix >= s.in_w) continue;
              const float* in_px =
                  input + ((static_cast<size_t>(n) * s.in_h + iy) * s.in_w + ix) * s.in_c + in_c0;
              if (depthwise) {
                acc += in_px[0] * filter[(static_cast<size_t>(ky) * s.filter_w + kx) * s.out_c + o];
                continue;
              }
              const float* w =
                  filter + ((static_cast<size_t>(o) * s.filter_h + ky) * s.filter_w + kx) * group_in;
              for (int32_t i = 0; i < group_in; ++i) acc += in_px[i] * w[i];
            }
          }
          output[((static_cast<size_t>(n) * s.out_h + y) * s.out_w + x) * s.out_c + o] =
              clamp_float(acc, lo, hi);
        }
}

void conv2d_f32(const Conv2dShape& s, const Conv2dGeometry& g, float lo, float hi,
                const float* input, const float* filter, const float* bias, float* output) {
  conv_any_f32(s, g, lo, hi, input, filter, bias, output, false);
}

void depthwise_conv2d_f32(const Conv2dShape& s, const Conv2dGeometry& g, float lo, float hi,
                          const float* input, const float* filter, const float* bias,
                          float* output) {
  conv_any_f32(s, g, lo, hi, input, filter, bias, output, true);
}

static Status check_conv_f32(const OpContext& c, bool depthwise) {
  EMBER_KCHECK(has_counts(c, 3, 1, 6, 2), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& filter = c.in(1);
  const TensorView& bias = c.in(2);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(filter) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == DType::Float32 && filter.dtype == DType::Float32 &&
                   out.dtype == DType::Float32,
               BadOpSignature);
  EMBER_RETURN_IF_ERROR(check_conv_shapes(in, filter, out, conv_geometry_from(c.ints), depthwise));
  if (!is_absent(bias)) {
    EMBER_KCHECK(valid_view(bias) && bias.dtype == DType::Float32, BadOpSignature);
    EMBER_KCHECK(bias.rank == 1 && bias.dims[0] == out.dims[3], BadShape);
  }
  EMBER_KCHECK(valid_act_f32(c.floats[0], c.floats[1]), BadOpParameter);
  return Status::Ok;
}

rt::Status check_conv2d_f32(const rt::OpContext& c) { return check_conv_f32(c, false); }
rt::Status check_depthwise_conv2d_f32(const rt::OpContext& c) { return check_conv_f32(c, true); }

rt::Status run_conv2d_f32(const rt::OpContext& c) {
  conv2d_f32(conv_shape_from(c.in(0), c.in(1), c.out(0)), conv_geometry_from(c.ints),
             c.floats[0], c.floats[1], c.in(0).as<const float>(), c.in(1).as<const float>(),
             c.in(2).as<const float>(), c.out(0).as<float>());
  return rt::Status::Ok;
}

rt::Status run_depthwise_conv2d_f32(const rt::OpContext& c) {
  depthwise_conv2d_f32(conv_shape_from(c.in(0), c.in(1), c.out(0)), conv_geometry_from(c.ints),
                       c.floats[0], c.floats[1], c.in(0).as<const float>(),
                       c.in(1).as<const float>(), c.in(2).as<const float>(), c.out(0).as<float>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
