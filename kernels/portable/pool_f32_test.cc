//===- pool_f32_test.cc - Tests of the float32 pooling kernels ------------===//
//
// 2-D average/max and 3-D average pooling against references written from PyTorch's
// definitions (divisor, ceil mode, NaN propagation), windows up to several times the input and
// of 65,536 taps, and rejections.

#include "ember/kernels/portable/pool_f32.h"

#include <gtest/gtest.h>

#include "ember/kernels/portable/test_util.h"

namespace ember::kernels {
namespace {

using namespace testing;

// Random 2-D pools with windows of up to max_kernel taps per axis against the reference.
void pool2d_against_reference(uint32_t seed, int count, int max_kernel) {
  std::mt19937 rng(seed);
  int cases = 0;
  while (cases < count) {
    const int n = rand_int(rng, 1, 2), h = rand_int(rng, 1, 8), w = rand_int(rng, 1, 8);
    const int c = rand_int(rng, 1, 3), kh = rand_int(rng, 1, max_kernel), kw = rand_int(rng, 1, max_kernel);
    const int sh = rand_int(rng, 1, 3), sw = rand_int(rng, 1, 3);
    const int ph = rand_int(rng, 0, kh / 2), pw = rand_int(rng, 0, kw / 2);
    const bool max_pool = rand_int(rng, 0, 1) == 1, ceil_mode = rand_int(rng, 0, 1) == 1;
    const int dh = max_pool ? rand_int(rng, 1, 2) : 1, dw = max_pool ? rand_int(rng, 1, 2) : 1;
    const int oh = torch_pool_out(h, kh, sh, ph, dh, ceil_mode);
    const int ow = torch_pool_out(w, kw, sw, pw, dw, ceil_mode);
    if (oh < 1 || ow < 1) continue;
    ++cases;
    const bool include_pad = rand_int(rng, 0, 1) == 1;
    auto in = random_f32(rng, static_cast<size_t>(n) * h * w * c);
    std::vector<float> out(static_cast<size_t>(n) * oh * ow * c);
    OpBuilder op;
    op.in(in.data(), DType::Float32, {n, h, w, c}).out(out.data(), DType::Float32, {n, oh, ow, c});
    if (max_pool) {
      op.ints = {kh, kw, sh, sw, ph, pw, dh, dw};
      ASSERT_EQ(check_max_pool2d_f32(op.without_data().ctx()), Status::Ok);
      ASSERT_EQ(run_max_pool2d_f32(op.ctx()), Status::Ok);
    } else {
      op.ints = {kh, kw, sh, sw, ph, pw, include_pad};
      ASSERT_EQ(check_avg_pool2d_f32(op.without_data().ctx()), Status::Ok);
      ASSERT_EQ(run_avg_pool2d_f32(op.ctx()), Status::Ok);
    }
    size_t o = 0;
    for (int b = 0; b < n; ++b)
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x)
          for (int ch = 0; ch < c; ++ch, ++o) {
            double sum = 0, m = -INFINITY;
            int real = 0, padded = 0;
            for (int ky = 0; ky < kh; ++ky)
              for (int kx = 0; kx < kw; ++kx) {
                const int iy = y * sh - ph + ky * dh, ix = x * sw - pw + kx * dw;
                if (iy < h + ph && ix < w + pw) ++padded;
                if (iy < 0 || ix < 0 || iy >= h || ix >= w) continue;
                const float v = in[((static_cast<size_t>(b) * h + iy) * w + ix) * c + ch];
                sum += v, m = std::max<double>(m, v), ++real;
              }
            const double e = max_pool ? m : sum / (include_pad ? padded : real);
            if (std::isinf(e)) {  // dilated window that misses the input: -inf, as PyTorch
              ASSERT_EQ(out[o], e);
              continue;
            }
            ASSERT_NEAR(out[o], e, 1e-6) << "case " << cases;
          }
  }
}

TEST(Pool2dF32, RandomAgainstReference) { pool2d_against_reference(90, 300, 4); }

// Windows up to 3 times the largest input (8): the kernels visit only the taps inside it.
TEST(Pool2dF32, WindowsLargerThanTheInput) { pool2d_against_reference(92, 300, 24); }

// 65,536 taps per axis, half of them padding, over 2x2 pixels: each output is the whole input.
// With count_include_pad the divisor is the padded window's area, 2^32, past int32.
TEST(Pool2dF32, HugeWindowOnTinyInput) {
  const float in[8] = {1.5f, -2, 7, 0.25f, -3, NAN, 4, 8};  // 1x2x2x2: channel 1 holds a NaN
  float out[8];
  OpBuilder op;
  op.in(in, DType::Float32, {1, 2, 2, 2}).out(out, DType::Float32, {1, 2, 2, 2});
  op.ints = {65536, 65536, 1, 1, 32768, 32768, 1, 1};
  ASSERT_EQ(check_max_pool2d_f32(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_max_pool2d_f32(op.ctx()), Status::Ok);
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(out[2 * p], 7.0f);
    EXPECT_TRUE(std::isnan(out[2 * p + 1]));
  }
  op.ints = {65536, 65536, 1, 1, 32768, 32768, 0};
  ASSERT_EQ(check_avg_pool2d_f32(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_avg_pool2d_f32(op.ctx()), Status::Ok);
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(out[2 * p], (1.5f - 3 + 7 + 4) / 4);
    EXPECT_TRUE(std::isnan(out[2 * p + 1]));
  }
  op.ints[6] = 1;
  ASSERT_EQ(run_avg_pool2d_f32(op.ctx()), Status::Ok);
  for (int p = 0; p < 4; ++p) EXPECT_EQ(out[2 * p], (1.5f - 3 + 7 + 4) / 4294967296.0f);
}

TEST(Pool2dF32, MaxPropagatesNan) {
  const float in[4] = {1, NAN, 3, 2};
  float out[1];
  OpBuilder op;
  op.in(in, DType::Float32, {1, 2, 2, 1}).out(out, DType::Float32, {1, 1, 1, 1});
  op.ints = {2, 2, 2, 2, 0, 0, 1, 1};
  ASSERT_EQ(run_max_pool2d_f32(op.ctx()), Status::Ok);
  EXPECT_TRUE(std::isnan(out[0]));
}

TEST(AvgPool3dF32, RandomAgainstReference) {
  std::mt19937 rng(91);
  int cases = 0;
  while (cases < 150) {
    int id[5] = {rand_int(rng, 1, 2), rand_int(rng, 1, 3), 0, 0, 0};
    int k[3], s[3], p[3], od[5] = {id[0], id[1], 0, 0, 0};
    const bool ceil_mode = rand_int(rng, 0, 1) == 1, include_pad = rand_int(rng, 0, 1) == 1;
    bool ok = true;
    for (int a = 0; a < 3; ++a) {
      id[2 + a] = rand_int(rng, 1, 6), k[a] = rand_int(rng, 1, 3), s[a] = rand_int(rng, 1, 2);
      p[a] = rand_int(rng, 0, k[a] / 2);
      od[2 + a] = torch_pool_out(id[2 + a], k[a], s[a], p[a], 1, ceil_mode);
      ok = ok && od[2 + a] >= 1;
    }
    if (!ok) continue;
    ++cases;
    const std::vector<int32_t> in_dims(id, id + 5), out_dims(od, od + 5);
    size_t in_n = 1, out_n = 1;
    for (int a = 0; a < 5; ++a) in_n *= id[a], out_n *= od[a];
    auto in = random_f32(rng, in_n);
    std::vector<float> out(out_n);
    OpBuilder op;
    op.in(in.data(), DType::Float32, in_dims).out(out.data(), DType::Float32, out_dims);
    op.ints = {k[0], k[1], k[2], s[0], s[1], s[2], p[0], p[1], p[2], include_pad};
    ASSERT_EQ(check_avg_pool3d_f32(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_avg_pool3d_f32(op.ctx()), Status::Ok);
    size_t o = 0;
    for (int nc = 0; nc < od[0] * od[1]; ++nc)
      for (int z = 0; z < od[2]; ++z)
        for (int y = 0; y < od[3]; ++y)
          for (int x = 0; x < od[4]; ++x, ++o) {
            double sum = 0;
            int real = 0, padded = 0;
            for (int kz = 0; kz < k[0]; ++kz)
              for (int ky = 0; ky < k[1]; ++ky)
                for (int kx = 0; kx < k[2]; ++kx) {
                  const int iz = z * s[0] - p[0] + kz, iy = y * s[1] - p[1] + ky,
                            ix = x * s[2] - p[2] + kx;
                  if (iz < id[2] + p[0] && iy < id[3] + p[1] && ix < id[4] + p[2]) ++padded;
                  if (iz < 0 || iy < 0 || ix < 0 || iz >= id[2] || iy >= id[3] || ix >= id[4])
                    continue;
                  sum += in[((static_cast<size_t>(nc) * id[2] + iz) * id[3] + iy) * id[4] + ix];
                  ++real;
                }
            ASSERT_NEAR(out[o], sum / (include_pad ? padded : real), 1e-6) << cases;
          }
  }
}

// avg_pool3d with 65,536 taps per axis over 2x1x2 voxels: the whole input per output, and with
// count_include_pad the divisor 2^48.
TEST(AvgPool3dF32, HugeWindowOnTinyInput) {
  const float in[4] = {1, 2, 3, 6};
  float out[4];
  OpBuilder op;
  op.in(in, DType::Float32, {1, 1, 2, 1, 2}).out(out, DType::Float32, {1, 1, 2, 1, 2});
  op.ints = {65536, 65536, 65536, 1, 1, 1, 32768, 32768, 32768, 0};
  ASSERT_EQ(check_avg_pool3d_f32(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_avg_pool3d_f32(op.ctx()), Status::Ok);
  for (float v : out) EXPECT_EQ(v, 3.0f);
  op.ints[9] = 1;
  ASSERT_EQ(run_avg_pool3d_f32(op.ctx()), Status::Ok);
  for (float v : out) EXPECT_EQ(v, 12.0f / 281474976710656.0f);
}

TEST(PoolF32, CheckRejects) {
  OpBuilder op;
  op.in(nullptr, DType::Float32, {1, 2, 6, 6, 6}).out(nullptr, DType::Float32, {1, 2, 3, 3, 3});
  op.ints = {2, 2, 2, 2, 2, 2, 0, 0, 0, 0};
  EXPECT_EQ(check_avg_pool3d_f32(op.ctx()), Status::Ok);
  op.outs[0].dims[1] = 3;
  EXPECT_EQ(check_avg_pool3d_f32(op.ctx()), Status::BadShape);
  op.outs[0].dims[1] = 2;
  op.ints[9] = 3;
  EXPECT_EQ(check_avg_pool3d_f32(op.ctx()), Status::BadOpParameter);
  op.ints[9] = 0;
  op.ints[5] = 0;
  EXPECT_EQ(check_avg_pool3d_f32(op.ctx()), Status::BadOpParameter);
  OpBuilder p2;
  p2.in(nullptr, DType::Float32, {1, 4, 4, 1}).out(nullptr, DType::Float32, {1, 2, 2, 1});
  p2.ints = {2, 2, 2, 2, 0, 0, 0};
  EXPECT_EQ(check_avg_pool2d_f32(p2.ctx()), Status::Ok);
  p2.ints.push_back(0);
  EXPECT_EQ(check_avg_pool2d_f32(p2.ctx()), Status::BadOpSignature);
  p2.ints = {2, 2, 2, 2, 0, 0, 1, 1};
  EXPECT_EQ(check_max_pool2d_f32(p2.ctx()), Status::Ok);
  p2.outs[0].dims[2] = 3;
  EXPECT_EQ(check_max_pool2d_f32(p2.ctx()), Status::BadShape);
  p2.outs[0].dims[2] = 2;
  p2.ins[0].dims[3] = p2.outs[0].dims[3] = 0;  // no channels
  EXPECT_EQ(check_max_pool2d_f32(p2.ctx()), Status::BadShape);
  p2.ins[0].dims[3] = p2.outs[0].dims[3] = 1;
  p2.ints = {3, 3, 1, 1, 2, 2, 1, 1};  // padding 2 of 3: over half the window
  p2.outs[0].dims[1] = p2.outs[0].dims[2] = 6;
  EXPECT_EQ(check_max_pool2d_f32(p2.ctx()), Status::BadOpParameter);
  p2.ints = {3, 3, 1, 1, 1, 1, 2, 2};  // dilated: padding 1 of an extent of 5
  p2.outs[0].dims[1] = p2.outs[0].dims[2] = 2;
  EXPECT_EQ(check_max_pool2d_f32(p2.ctx()), Status::Ok);
}

}  // namespace
}  // namespace ember::kernels
