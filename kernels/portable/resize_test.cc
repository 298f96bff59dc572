//===- resize_test.cc - Tests of resize and adaptive_pool -----------------===//
//
// Against direct references on random NCHW shapes (PyTorch's coordinates and windows written
// out in double), and the checks' rejections.

#include <gtest/gtest.h>

#include <cmath>

#include "ember/kernels/portable/adaptive_pool.h"
#include "ember/kernels/portable/resize.h"
#include "ember/kernels/portable/test_util.h"

namespace ember::kernels {
namespace {

using namespace testing;

// PyTorch's source coordinate on one axis, as a double.
double source(int dst, int in, int out, bool align) {
  if (align) return out > 1 ? static_cast<double>(dst) * (in - 1) / (out - 1) : 0.0;
  return std::max(0.0, (dst + 0.5) * in / out - 0.5);
}

TEST(Resize, BilinearS8AgainstReference) {
  std::mt19937 rng(91);
  for (int t = 0; t < 60; ++t) {
    const int c = rand_int(rng, 1, 3), h = rand_int(rng, 1, 6), w = rand_int(rng, 1, 6);
    const int oh = rand_int(rng, 1, 13), ow = rand_int(rng, 1, 13);
    const bool align = rand_int(rng, 0, 1);
    auto in = random_s8(rng, static_cast<size_t>(c) * h * w);
    std::vector<int8_t> out(static_cast<size_t>(c) * oh * ow);
    OpBuilder op;
    op.in(in.data(), DType::Int8, {1, c, h, w}).out(out.data(), DType::Int8, {1, c, oh, ow});
    op.ints = {2, 3, align ? 1 : 0};
    ASSERT_EQ(check_resize_bilinear_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_resize_bilinear_s8(op.ctx()), Status::Ok);
    for (int ch = 0; ch < c; ++ch)
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
          const double sy = source(y, h, oh, align), sx = source(x, w, ow, align);
          const int y0 = static_cast<int>(sy), x0 = static_cast<int>(sx);
          const int y1 = std::min(y0 + 1, h - 1), x1 = std::min(x0 + 1, w - 1);
          const double ly = sy - y0, lx = sx - x0;
          auto at = [&](int yy, int xx) { return static_cast<double>(in[(static_cast<size_t>(ch) * h + yy) * w + xx]); };
          const double v = (1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x1)) + ly * ((1 - lx) * at(y1, x0) + lx * at(y1, x1));
          EXPECT_NEAR(out[(static_cast<size_t>(ch) * oh + y) * ow + x], v, 0.5 + 1e-9);
        }
  }
}

TEST(Resize, NearestAndChecks) {
  int8_t in[6] = {1, 2, 3, 4, 5, 6}, out[24] = {};
  OpBuilder op;
  op.in(in, DType::Int8, {1, 1, 2, 3}).out(out, DType::Int8, {1, 1, 4, 6});
  ASSERT_EQ(check_resize_nearest(op.ctx()), Status::Ok);
  ASSERT_EQ(run_resize_nearest(op.ctx()), Status::Ok);
  const int8_t want[24] = {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6};
  for (int i = 0; i < 24; ++i) EXPECT_EQ(out[i], want[i]);
  op.ins[0].dims[2] = 0;  // an empty input cannot fill an output
  EXPECT_EQ(check_resize_nearest(op.ctx()), Status::BadShape);
  OpBuilder bl;
  bl.in(in, DType::Int8, {1, 1, 2, 3}).out(out, DType::Int8, {1, 1, 4, 6});
  bl.ints = {3, 2, 0};  // axes out of order
  EXPECT_EQ(check_resize_bilinear_s8(bl.ctx()), Status::BadOpParameter);
  bl.ints = {2, 3, 2};
  EXPECT_EQ(check_resize_bilinear_s8(bl.ctx()), Status::BadOpParameter);
  bl.ints = {2, 3, 0};
  bl.outs[0].dims[1] = 2;  // another axis changes size
  EXPECT_EQ(check_resize_bilinear_s8(bl.ctx()), Status::BadShape);
  bl.outs[0].dims[1] = 1;
  EXPECT_EQ(check_resize_bilinear_f32(bl.ctx()), Status::BadOpSignature);
}

TEST(AdaptivePool, S8AgainstReference) {
  std::mt19937 rng(92);
  for (int t = 0; t < 60; ++t) {
    const int c = rand_int(rng, 1, 3), h = rand_int(rng, 1, 9), w = rand_int(rng, 1, 9);
    const int oh = rand_int(rng, 1, h + 2), ow = rand_int(rng, 1, w + 2), fn = rand_int(rng, 0, 1);
    auto in = random_s8(rng, static_cast<size_t>(c) * h * w);
    std::vector<int8_t> out(static_cast<size_t>(c) * oh * ow);
    OpBuilder op;
    op.in(in.data(), DType::Int8, {1, c, h, w}).out(out.data(), DType::Int8, {1, c, oh, ow});
    op.ints = {fn, 0, 0, 1, 1};
    ASSERT_EQ(check_adaptive_pool_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_adaptive_pool_s8(op.ctx()), Status::Ok);
    for (int ch = 0; ch < c; ++ch)
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
          const int y0 = y * h / oh, y1 = ((y + 1) * h + oh - 1) / oh, x0 = x * w / ow, x1 = ((x + 1) * w + ow - 1) / ow;
          double sum = 0;
          int best = -129;
          for (int yy = y0; yy < y1; ++yy)
            for (int xx = x0; xx < x1; ++xx) {
              const int v = in[(static_cast<size_t>(ch) * h + yy) * w + xx];
              sum += v, best = std::max(best, v);
            }
          const double mean = sum / ((y1 - y0) * (x1 - x0));
          const int8_t got = out[(static_cast<size_t>(ch) * oh + y) * ow + x];
          if (fn == 1) EXPECT_EQ(got, best);
          else EXPECT_EQ(got, static_cast<int>(std::nearbyint(mean)));
        }
  }
  int8_t buf[16] = {};
  OpBuilder op;
  op.in(buf, DType::Int8, {1, 1, 4, 4}).out(buf, DType::Int8, {1, 1, 3, 3});
  op.ints = {0, 0, 0, 1, 1};
  EXPECT_EQ(check_adaptive_pool_s8(op.ctx()), Status::Ok);
  op.ints = {2, 0, 0, 1, 1};
  EXPECT_EQ(check_adaptive_pool_s8(op.ctx()), Status::BadOpParameter);
  op.ints = {0, 0, 0, 1};
  EXPECT_EQ(check_adaptive_pool_s8(op.ctx()), Status::BadOpSignature);
  op.ints = {0, 0, 0, 0, 1};  // an axis not pooled changes size
  EXPECT_EQ(check_adaptive_pool_s8(op.ctx()), Status::BadShape);
}

}  // namespace
}  // namespace ember::kernels
