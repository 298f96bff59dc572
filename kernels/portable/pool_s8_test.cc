//===- pool_s8_test.cc - Tests of the int8 pooling kernels ----------------===//
//
// Average and max pooling: hand cases, random cases (PyTorch floor and ceil modes, padding,
// dilation for max, count_include_pad both ways, windows up to several times the input) against
// a reference that walks the padded window explicitly, windows of 65,536 taps on a few pixels,
// and the checks' rejections.

#include <gtest/gtest.h>

#include "ember/kernels/portable/avg_pool2d_s8.h"
#include "ember/kernels/portable/max_pool2d_s8.h"
#include "ember/kernels/portable/test_util.h"

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

// Windows of up to max_kernel taps per axis: 4, or past the input's size (clipped by the
// kernels to the taps inside it).
PoolCase random_pool(std::mt19937& rng, bool dilated, int max_kernel = 4) {
  PoolCase p{};
  p.n = rand_int(rng, 1, 2), p.h = rand_int(rng, 1, 9), p.w = rand_int(rng, 1, 9);
  p.c = rand_int(rng, 1, 5), p.kh = rand_int(rng, 1, max_kernel), p.kw = rand_int(rng, 1, max_kernel);
  p.sh = rand_int(rng, 1, 3), p.sw = rand_int(rng, 1, 3);
  p.ph = rand_int(rng, 0, p.kh / 2), p.pw = rand_int(rng, 0, p.kw / 2);
  p.dh = dilated ? rand_int(rng, 1, 2) : 1, p.dw = dilated ? rand_int(rng, 1, 2) : 1;
  const bool ceil_mode = rand_int(rng, 0, 1) == 1;
  p.oh = torch_pool_out(p.h, p.kh, p.sh, p.ph, p.dh, ceil_mode);
  p.ow = torch_pool_out(p.w, p.kw, p.sw, p.pw, p.dw, ceil_mode);
  return p;
}

void avg_against_reference(uint32_t seed, int count, int max_kernel) {
  std::mt19937 rng(seed);
  int cases = 0;
  while (cases < count) {
    const PoolCase p = random_pool(rng, false, max_kernel);
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

void max_against_reference(uint32_t seed, int count, int max_kernel) {
  std::mt19937 rng(seed);
  int cases = 0;
  while (cases < count) {
    const PoolCase p = random_pool(rng, true, max_kernel);
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

TEST(AvgPool2dS8, RandomAgainstReference) { avg_against_reference(50, 400, 4); }
TEST(MaxPool2dS8, RandomAgainstReference) { max_against_reference(51, 400, 4); }

// Windows up to 2.5 times the largest input (9): most taps fall in the padding, which the
// kernels skip without visiting; the reference walks them all.
TEST(AvgPool2dS8, WindowsLargerThanTheInput) { avg_against_reference(52, 300, 24); }
TEST(MaxPool2dS8, WindowsLargerThanTheInput) { max_against_reference(53, 300, 24); }

// 65,536 taps per axis (the most a check accepts) with half of them as padding over 2x3
// pixels: every output's window holds the whole input, and each output costs its 6 taps.
// Unclipped, the 24 outputs would walk 2^32 positions each.
TEST(PoolS8, HugeWindowOnTinyInput) {
  const int8_t in[12] = {5, -7, 120, 3, -128, 9, 44, 0, -3, -60, 17, 101};  // 1x2x3x2
  int8_t out[12];
  OpBuilder op;
  op.in(in, DType::Int8, {1, 2, 3, 2}).out(out, DType::Int8, {1, 2, 3, 2});
  op.ints = {65536, 65536, 1, 1, 32768, 32768, 1, 1, -128, 127};
  ASSERT_EQ(check_max_pool2d_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_max_pool2d_s8(op.ctx()), Status::Ok);
  for (int k = 0; k < 12; ++k) EXPECT_EQ(out[k], k % 2 == 0 ? 120 : 101) << k;
  // The same window dilated by 2 (extent 131,071, padding 65,535): the taps inside are those of
  // the input's even rows and columns from the window's parity.
  op.ints = {65536, 65536, 1, 1, 65535, 65535, 2, 2, -128, 127};
  op.outs[0].dims[1] = 2, op.outs[0].dims[2] = 3;
  ASSERT_EQ(check_max_pool2d_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_max_pool2d_s8(op.ctx()), Status::Ok);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 2; ++c) {
        int m = -128;  // taps at rows y + 2i - 65535 (odd offset: the other parity) and so on
        for (int iy = (y + 1) % 2; iy < 2; iy += 2)
          for (int ix = (x + 1) % 2; ix < 3; ix += 2) m = std::max<int>(m, in[(iy * 3 + ix) * 2 + c]);
        EXPECT_EQ(out[(y * 3 + x) * 2 + c], m) << y << x << c;
      }
  // Average: the check caps a window at 2^23 taps, so 65,536 x 128; zero point 1.
  op.ints = {65536, 128, 1, 1, 32768, 64, /*count_include_pad=*/0, 1, -128, 127};
  ASSERT_EQ(check_avg_pool2d_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_avg_pool2d_s8(op.ctx()), Status::Ok);
  for (int c = 0; c < 2; ++c) {
    int sum = 0;
    for (int k = c; k < 12; k += 2) sum += in[k] - 1;
    const int mean = static_cast<int>(std::nearbyint(sum / 6.0)) + 1;
    for (int k = c; k < 12; k += 2) EXPECT_EQ(out[k], mean) << k;
  }
  // Counting the padding, the divisor is the whole window, 2^23: every mean rounds to 0.
  op.ints[6] = 1;
  ASSERT_EQ(run_avg_pool2d_s8(op.ctx()), Status::Ok);
  for (int k = 0; k < 12; ++k) EXPECT_EQ(out[k], 1) << k;
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
  // Padding over half the window (PyTorch's limit), here 3 of 5 with the outputs consistent.
  expect([](OpBuilder& o) { o.ints[0] = 5, o.ints[2] = 1, o.ints[4] = 3, o.outs[0].dims[1] = 7; },
         Status::BadOpParameter, Status::BadOpParameter);
  // No channels: N, H and W would bound nothing (both tensors empty).
  expect([](OpBuilder& o) { o.ins[0].dims[3] = 0, o.outs[0].dims[3] = 0; }, Status::BadShape,
         Status::BadShape);
  // A padded height past int32 (2^31 - 100 rows, 64 of padding and more after).
  expect([](OpBuilder& o) {
           o.ins[0].dims[1] = INT32_MAX - 100, o.outs[0].dims[1] = INT32_MAX - 100;
           o.ints[0] = 129, o.ints[2] = 1, o.ints[4] = 64;
         },
         Status::BadShape, Status::BadShape);
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
