//===- pool_s8_test.cc - Tests of the int8 pooling kernels ----------------===//
//
// Average and max pooling: hand cases, random cases (PyTorch floor and ceil modes, padding,
// dilation for max, count_include_pad both ways) against a reference that walks the padded
// window explicitly, and the checks' rejections.

#include <gtest/gtest.h>

#include "kernels/portable/avg_pool2d_s8.h"
#include "kernels/portable/max_pool2d_s8.h"
#include "kernels/portable/test_util.h"

namespace ember::kernels {
namespace {

using namespace testing;

TEST(AvgPool2dS8, HandComputed) {
  // 1x2x2x1, kernel 2, stride 1, pad 1 -> 3x3; zp 1 so values 0..3 are 1..4.
  const int8_t in[4] = {1, 2, 3, 4};
  int8_t out[9];
  OpBuilder op;
  op.in(in, DType::Int8, {1, 2, 2, 1}).out(out, DType::Int8, {1, 3, 3, 1});
  op.ints = {2, 2, 1, 1, 1, 1, /*count_include_pad=*/1, /*zp=*/1, -128, 127};
  ASSERT_EQ(check_avg_pool2d_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_avg_pool2d_s8(op.ctx()), Status::Ok);
  EXPECT_EQ(out[0], 1 + 0);      // 0/4
  EXPECT_EQ(out[1], 1 + 0);      // (0+1)/4 = 0.25
  EXPECT_EQ(out[4], 1 + 2);      // 6/4 = 1.5 -> 2 (half to even)
  EXPECT_EQ(out[8], 1 + 1);      // 3/4
  op.ints[6] = 0;                // count only real positions
  ASSERT_EQ(run_avg_pool2d_s8(op.ctx()), Status::Ok);
  EXPECT_EQ(out[1], 1 + 0);      // 1/2 = 0.5 -> 0 (half to even, as torch.round)
  EXPECT_EQ(out[8], 1 + 3);
}

TEST(AvgPool2dS8, NegativeHalvesRoundAway) {
  const int8_t in[2] = {-3, -4};  // zp 0: mean -3.5 -> -4
  int8_t out[1];
  OpBuilder op;
  op.in(in, DType::Int8, {1, 1, 2, 1}).out(out, DType::Int8, {1, 1, 1, 1});
  op.ints = {1, 2, 1, 1, 0, 0, 0, 0, -128, 127};
  ASSERT_EQ(run_avg_pool2d_s8(op.ctx()), Status::Ok);
  EXPECT_EQ(out[0], -4);
}

struct PoolCase {
  int n, h, w, c, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
};

PoolCase random_pool(std::mt19937& rng, bool dilated) {
  PoolCase p{};
  p.n = rand_int(rng, 1, 2), p.h = rand_int(rng, 1, 9), p.w = rand_int(rng, 1, 9);
  p.c = rand_int(rng, 1, 5), p.kh = rand_int(rng, 1, 4), p.kw = rand_int(rng, 1, 4);
  p.sh = rand_int(rng, 1, 3), p.sw = rand_int(rng, 1, 3);
  p.ph = rand_int(rng, 0, p.kh / 2), p.pw = rand_int(rng, 0, p.kw / 2);
  p.dh = dilated ? rand_int(rng, 1, 2) : 1, p.dw = dilated ? rand_int(rng, 1, 2) : 1;
  const bool ceil_mode = rand_int(rng, 0, 1) == 1;
  p.oh = torch_pool_out(p.h, p.kh, p.sh, p.ph, p.dh, ceil_mode);
  p.ow = torch_pool_out(p.w, p.kw, p.sw, p.pw, p.dw, ceil_mode);
  return p;
}

TEST(AvgPool2dS8, RandomAgainstReference) {
  std::mt19937 rng(50);
  int cases = 0;
  while (cases < 400) {
    const PoolCase p = random_pool(rng, false);
    if (p.oh < 1 || p.ow < 1) continue;
    ++cases;
    const int32_t zp = random_zp(rng);
    const bool include_pad = rand_int(rng, 0, 1) == 1;
    auto in = random_s8(rng, static_cast<size_t>(p.n) * p.h * p.w * p.c);
    std::vector<int8_t> out(static_cast<size_t>(p.n) * p.oh * p.ow * p.c);
    OpBuilder op;
    op.in(in.data(), DType::Int8, {p.n, p.h, p.w, p.c});
    op.out(out.data(), DType::Int8, {p.n, p.oh, p.ow, p.c});
    op.ints = {p.kh, p.kw, p.sh, p.sw, p.ph, p.pw, include_pad, zp, -128, 127};
    ASSERT_EQ(check_avg_pool2d_s8(op.without_data().ctx()), Status::Ok) << cases;
    ASSERT_EQ(run_avg_pool2d_s8(op.ctx()), Status::Ok);
    size_t o = 0;
    for (int b = 0; b < p.n; ++b)
      for (int y = 0; y < p.oh; ++y)
        for (int x = 0; x < p.ow; ++x)
          for (int ch = 0; ch < p.c; ++ch, ++o) {
            long sum = 0, real = 0, padded = 0;
            for (int ky = 0; ky < p.kh; ++ky)
              for (int kx = 0; kx < p.kw; ++kx) {
                const int iy = y * p.sh - p.ph + ky, ix = x * p.sw - p.pw + kx;
                // PyTorch counts positions inside the symmetrically padded input.
                if (iy < p.h + p.ph && ix < p.w + p.pw) ++padded;
                if (iy < 0 || ix < 0 || iy >= p.h || ix >= p.w) continue;
                sum += in[((static_cast<size_t>(b) * p.h + iy) * p.w + ix) * p.c + ch] - zp;
                ++real;
              }
            const double mean = std::nearbyint(static_cast<double>(sum) / (include_pad ? padded : real));
            const int expected = static_cast<int>(std::clamp(mean + zp, -128.0, 127.0));
            ASSERT_EQ(out[o], expected) << "case " << cases;
          }
  }
}

TEST(MaxPool2dS8, RandomAgainstReference) {
  std::mt19937 rng(51);
  int cases = 0;
  while (cases < 400) {
    const PoolCase p = random_pool(rng, true);
    if (p.oh < 1 || p.ow < 1) continue;
    ++cases;
    const int32_t lo = rand_int(rng, -128, 0), hi = rand_int(rng, lo, 127);
    auto in = random_s8(rng, static_cast<size_t>(p.n) * p.h * p.w * p.c);
    std::vector<int8_t> out(static_cast<size_t>(p.n) * p.oh * p.ow * p.c);
    OpBuilder op;
    op.in(in.data(), DType::Int8, {p.n, p.h, p.w, p.c});
    op.out(out.data(), DType::Int8, {p.n, p.oh, p.ow, p.c});
    op.ints = {p.kh, p.kw, p.sh, p.sw, p.ph, p.pw, p.dh, p.dw, lo, hi};
    ASSERT_EQ(check_max_pool2d_s8(op.without_data().ctx()), Status::Ok) << cases;
    ASSERT_EQ(run_max_pool2d_s8(op.ctx()), Status::Ok);
    size_t o = 0;
    for (int b = 0; b < p.n; ++b)
      for (int y = 0; y < p.oh; ++y)
        for (int x = 0; x < p.ow; ++x)
          for (int ch = 0; ch < p.c; ++ch, ++o) {
            int m = -1000;
            for (int ky = 0; ky < p.kh; ++ky)
              for (int kx = 0; kx < p.kw; ++kx) {
                const int iy = y * p.sh - p.ph + ky * p.dh, ix = x * p.sw - p.pw + kx * p.dw;
                if (iy < 0 || ix < 0 || iy >= p.h || ix >= p.w) continue;
                m = std::max<int>(m, in[((static_cast<size_t>(b) * p.h + iy) * p.w + ix) * p.c + ch]);
              }
            ASSERT_EQ(out[o], std::clamp(m, lo, hi)) << "case " << cases;
          }
  }
}

TEST(PoolS8, CheckRejects) {
  auto make = [] {
    OpBuilder op;  // 1x7x7x3, kernel 3, stride 2, pad 1 -> 4x4
    op.in(nullptr, DType::Int8, {1, 7, 7, 3}).out(nullptr, DType::Int8, {1, 4, 4, 3});
    op.ints = {3, 3, 2, 2, 1, 1, 1, 1, -128, 127};
    return op;
  };
  EXPECT_EQ(check_max_pool2d_s8(make().ctx()), Status::Ok);
  EXPECT_EQ(check_avg_pool2d_s8(make().ctx()), Status::Ok);  // ints[6..7] = 1, 1
  auto expect = [&](auto mutate, Status max_status, Status avg_status) {
    OpBuilder op = make();
    mutate(op);
    EXPECT_EQ(check_max_pool2d_s8(op.ctx()), max_status);
    EXPECT_EQ(check_avg_pool2d_s8(op.ctx()), avg_status);
  };
  expect([](OpBuilder& o) { o.outs[0].dims[1] = 5; }, Status::BadShape, Status::BadShape);
  expect([](OpBuilder& o) { o.outs[0].dims[3] = 4; }, Status::BadShape, Status::BadShape);
  expect([](OpBuilder& o) { o.ints[0] = 0; }, Status::BadOpParameter, Status::BadOpParameter);
  expect([](OpBuilder& o) { o.ints[3] = 0; }, Status::BadOpParameter, Status::BadOpParameter);
  // Padding as large as the kernel: PyTorch rejects it, so do we.
  expect([](OpBuilder& o) { o.ints[4] = 3, o.outs[0].dims[1] = 6; }, Status::BadOpParameter,
         Status::BadOpParameter);
  expect([](OpBuilder& o) { o.ins[0].dtype = DType::Float32; }, Status::BadOpSignature,
         Status::BadOpSignature);
  expect([](OpBuilder& o) { o.ints[9] = -129; }, Status::BadOpParameter, Status::BadOpParameter);
  OpBuilder op = make();
  op.ints[6] = 2;  // count_include_pad must be 0 or 1
  EXPECT_EQ(check_avg_pool2d_s8(op.ctx()), Status::BadOpParameter);
  op = make();
  op.ints[7] = 128;  // avg zero point
  EXPECT_EQ(check_avg_pool2d_s8(op.ctx()), Status::BadQuantization);
}

}  // namespace
}  // namespace ember::kernels
