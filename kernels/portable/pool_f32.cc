//===- pool_f32.cc - Reference float32 pooling ----------------------------===//
//
// Sums run in float32 in window order and divide once, as PyTorch's scalar CPU kernel does.
// Every loop visits only the window's taps inside the input (from its edges, or clip_window
// with dilation), so a window far larger than the input costs what the input does; the
// count_include_pad divisor is an int64 product, as PyTorch's, since a padded window's area can
// pass 2^31.

#include "ember/kernels/portable/pool_f32.h"

#include <math.h>

namespace ember::kernels {

void avg_pool2d_f32(const Pool2dShape& s, const Pool2dWindow& w, bool count_include_pad,
                    const float* input, float* output) {
  for (int32_t n = 0; n < s.batches; ++n)
    for (int32_t y = 0; y < s.out_h; ++y) {
      const int32_t y0 = y * w.stride_h - w.pad_top;
      for (int32_t x = 0; x < s.out_w; ++x) {
        const int32_t x0 = x * w.stride_w - w.pad_left;
        for (int32_t c = 0; c < s.channels; ++c) {
          float sum = 0.0f;
          int64_t count = 0;
          for (int32_t iy = y0 < 0 ? 0 : y0; iy < y0 + w.kernel_h && iy < s.in_h; ++iy)
            for (int32_t ix = x0 < 0 ? 0 : x0; ix < x0 + w.kernel_w && ix < s.in_w; ++ix, ++count)
              sum += input[((static_cast<size_t>(n) * s.in_h + iy) * s.in_w + ix) * s.channels + c];
          if (count_include_pad)
            count = int64_t{padded_window_extent(y0, w.kernel_h, s.in_h, w.pad_top)} *
                    padded_window_extent(x0, w.kernel_w, s.in_w, w.pad_left);
          output[((static_cast<size_t>(n) * s.out_h + y) * s.out_w + x) * s.channels + c] =
              sum / static_cast<float>(count);
        }
      }
    }
}

void max_pool2d_f32(const Pool2dShape& s, const Pool2dWindow& w, const float* input,
                    float* output) {
  // A NaN tap wins and stays, as in PyTorch (v > m is false for it, so v != v takes it).
  max_pool2d<float>(s, w, -INFINITY, [](float v, float m) { return v > m || v != v; }, input,
                    [&](size_t i, float m) { output[i] = m; });
}

void avg_pool3d_f32(const int32_t* id, const int32_t* od, const Pool3dParams& p,
                    bool count_include_pad, const float* input, float* output) {
  const size_t in_plane = static_cast<size_t>(id[2]) * id[3] * id[4];
  for (int32_t nc = 0; nc < od[0] * od[1]; ++nc) {
    const float* in = input + static_cast<size_t>(nc) * in_plane;
    for (int32_t z = 0; z < od[2]; ++z)
      for (int32_t y = 0; y < od[3]; ++y)
        for (int32_t x = 0; x < od[4]; ++x) {
          const int32_t s0[3] = {z * p.stride[0] - p.pad[0], y * p.stride[1] - p.pad[1],
                                 x * p.stride[2] - p.pad[2]};
          float sum = 0.0f;
          int64_t count = 0;
          for (int32_t iz = s0[0] < 0 ? 0 : s0[0]; iz < s0[0] + p.kernel[0] && iz < id[2]; ++iz)
            for (int32_t iy = s0[1] < 0 ? 0 : s0[1]; iy < s0[1] + p.kernel[1] && iy < id[3]; ++iy)
              for (int32_t ix = s0[2] < 0 ? 0 : s0[2]; ix < s0[2] + p.kernel[2] && ix < id[4];
                   ++ix, ++count)
                sum += in[(static_cast<size_t>(iz) * id[3] + iy) * id[4] + ix];
          if (count_include_pad) {
            count = 1;
            for (int a = 0; a < 3; ++a)
              count *= padded_window_extent(s0[a], p.kernel[a], id[2 + a], p.pad[a]);
          }
          *output++ = sum / static_cast<float>(count);
        }
  }
}

rt::Status check_avg_pool2d_f32(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 7, 0), BadOpSignature);
  EMBER_RETURN_IF_ERROR(
      check_pool2d(c.in(0), c.out(0), DType::Float32, pool_window_from(c.ints, false)));
  EMBER_KCHECK(c.ints[6] == 0 || c.ints[6] == 1, BadOpParameter);
  return Status::Ok;
}

rt::Status run_avg_pool2d_f32(const rt::OpContext& c) {
  avg_pool2d_f32(pool_shape_from(c.in(0), c.out(0)), pool_window_from(c.ints, false),
                 c.ints[6] != 0, c.in(0).as<const float>(), c.out(0).as<float>());
  return Status::Ok;
}

rt::Status check_max_pool2d_f32(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 8, 0), BadOpSignature);
  return check_pool2d(c.in(0), c.out(0), DType::Float32, pool_window_from(c.ints, true));
}

rt::Status run_max_pool2d_f32(const rt::OpContext& c) {
  max_pool2d_f32(pool_shape_from(c.in(0), c.out(0)), pool_window_from(c.ints, true),
                 c.in(0).as<const float>(), c.out(0).as<float>());
  return Status::Ok;
}

static Pool3dParams pool3d_params_from(const int32_t* i) {
  return Pool3dParams{{i[0], i[1], i[2]}, {i[3], i[4], i[5]}, {i[6], i[7], i[8]}};
}

rt::Status check_avg_pool3d_f32(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 10, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == DType::Float32 && out.dtype == DType::Float32, BadOpSignature);
  EMBER_KCHECK(in.rank == 5 && out.rank == 5, BadShape);
  EMBER_KCHECK(in.dims[0] == out.dims[0] && in.dims[1] == out.dims[1], BadShape);
  const Pool3dParams p = pool3d_params_from(c.ints);
  for (int a = 0; a < 3; ++a)
    EMBER_RETURN_IF_ERROR(check_window_axis(in.dims[2 + a], out.dims[2 + a], p.kernel[a],
                                            p.stride[a], p.pad[a], 1, true));
  EMBER_KCHECK(c.ints[9] == 0 || c.ints[9] == 1, BadOpParameter);
  return Status::Ok;
}

rt::Status run_avg_pool3d_f32(const rt::OpContext& c) {
  avg_pool3d_f32(c.in(0).dims, c.out(0).dims, pool3d_params_from(c.ints), c.ints[9] != 0,
                 c.in(0).as<const float>(), c.out(0).as<float>());
  return Status::Ok;
}

}  // namespace ember::kernels
