//===- depthwise_conv2d_s8_test.cc - Tests of the int8 depthwise conv -----===//
//
// Hand-computed depth multiplier case, random cases against the double reference, rejections.

#include "ember/kernels/portable/depthwise_conv2d_s8.h"

#include <gtest/gtest.h>

#include "ember/kernels/portable/test_util.h"

namespace ember::kernels {
namespace {

using namespace testing;

TEST(DepthwiseConv2dS8, HandComputedDepthMultiplier) {
  // 1x1x2x2 input (C=2), multiplier 2 -> O=4, 1x2 kernel, no padding -> 1x1 output.
  const int8_t in[4] = {1, 2, 3, 4};                // (x0: c0=1 c1=2) (x1: c0=3 c1=4)
  const int8_t w[8] = {1, 2, 3, 4, 5, 6, 7, 8};     // [1, 1, 2, 4]: kx-major, then o
  const int32_t mult[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30}, shift[4] = {1, 1, 1, 1};
  int8_t out[4];
  OpBuilder op;
  op.in(in, DType::Int8, {1, 1, 2, 2}).in(w, DType::Int8, {1, 1, 2, 4}).absent();
  op.in(mult, DType::Int32, {4}).in(shift, DType::Int32, {4}).out(out, DType::Int8, {1, 1, 1, 4});
  op.ints = {1, 1, 0, 0, 1, 1, 0, 0, -128, 127};
  ASSERT_EQ(check_depthwise_conv2d_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_depthwise_conv2d_s8(op.ctx()), Status::Ok);
  // o=0,1 read c0: 1*w[kx0,o] + 3*w[kx1,o]; o=2,3 read c1.
  EXPECT_EQ(out[0], 1 * 1 + 3 * 5);
  EXPECT_EQ(out[1], 1 * 2 + 3 * 6);
  EXPECT_EQ(out[2], 2 * 3 + 4 * 7);
  EXPECT_EQ(out[3], 2 * 4 + 4 * 8);
}

TEST(DepthwiseConv2dS8, RandomAgainstReference) {
  std::mt19937 rng(20);
  int cases = 0;
  while (cases < 300) {
    const int n = rand_int(rng, 1, 2), c = rand_int(rng, 1, 7), m = rand_int(rng, 1, 3);
    const int o = c * m;
    Axis ay{rand_int(rng, 1, 10), rand_int(rng, 1, 5), rand_int(rng, 1, 2), rand_int(rng, 0, 2),
            rand_int(rng, 1, 2), 0};
    Axis ax{rand_int(rng, 1, 10), rand_int(rng, 1, 5), rand_int(rng, 1, 2), rand_int(rng, 0, 2),
            rand_int(rng, 1, 2), 0};
    ay.out = out_size(ay.in, ay.k, ay.stride, ay.pad, ay.pad, ay.dil);
    ax.out = out_size(ax.in, ax.k, ax.stride, ax.pad, ax.pad + rand_int(rng, 0, 1), ax.dil);
    if (ay.out < 1 || ax.out < 1) continue;
    ++cases;
    const int32_t in_zp = random_zp(rng), out_zp = random_zp(rng);
    auto in = random_s8(rng, static_cast<size_t>(n) * ay.in * ax.in * c);
    auto w = random_s8(rng, static_cast<size_t>(ay.k) * ax.k * o, -127, 127);
    std::vector<int32_t> bias(o);
    for (auto& b : bias) b = rand_int(rng, -3000, 3000);
    std::vector<double> din(in.size()), dw(w.begin(), w.end()), db(bias.begin(), bias.end());
    for (size_t i = 0; i < in.size(); ++i) din[i] = in[i] - in_zp;
    const auto acc = ref_conv(din, n, ay, ax, c, dw, o, o, true, &db);
    double max_abs = 1;
    for (double a : acc) max_abs = std::max(max_abs, std::fabs(a));
    std::vector<int32_t> mult, shift;
    std::vector<double> real;
    pick_multipliers(rng, max_abs, o, &mult, &shift, &real);

    std::vector<int8_t> out(acc.size());
    OpBuilder op;
    op.in(in.data(), DType::Int8, {n, ay.in, ax.in, c})
        .in(w.data(), DType::Int8, {1, ay.k, ax.k, o})
        .in(bias.data(), DType::Int32, {o})
        .in(mult.data(), DType::Int32, {o})
        .in(shift.data(), DType::Int32, {o})
        .out(out.data(), DType::Int8, {n, ay.out, ax.out, o});
    op.ints = {ay.stride, ax.stride, ay.pad, ax.pad, ay.dil, ax.dil, in_zp, out_zp, -128, 127};
    ASSERT_EQ(check_depthwise_conv2d_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_depthwise_conv2d_s8(op.ctx()), Status::Ok);
    for (size_t i = 0; i < acc.size(); ++i) {
      const int ch = static_cast<int>(i % o);
      ASSERT_EQ(out[i], ref_requantize(static_cast<int64_t>(acc[i]), mult[ch], shift[ch], out_zp,
                                       -128, 127)) << "case " << cases;
      const double rq = std::ldexp(static_cast<double>(mult[ch]), shift[ch] - 31);
      ASSERT_LE(std::abs(out[i] - ref_requantize_real(acc[i], rq, out_zp, -128, 127)), 1);
    }
  }
}

TEST(DepthwiseConv2dS8, CheckRejects) {
  auto make = [] {
    OpBuilder op;  // 1x6x6x3 input, multiplier 2, 3x3 kernel, stride 1, pad 1 -> 6x6x6
    op.in(nullptr, DType::Int8, {1, 6, 6, 3}).in(nullptr, DType::Int8, {1, 3, 3, 6});
    op.absent().in(nullptr, DType::Int32, {6}).in(nullptr, DType::Int32, {6});
    op.out(nullptr, DType::Int8, {1, 6, 6, 6});
    op.ints = {1, 1, 1, 1, 1, 1, -128, 127, -128, 127};
    return op;
  };
  EXPECT_EQ(check_depthwise_conv2d_s8(make().ctx()), Status::Ok);
  auto expect = [&](auto mutate, Status s) {
    OpBuilder op = make();
    mutate(op);
    EXPECT_EQ(check_depthwise_conv2d_s8(op.ctx()), s);
  };
  expect([](OpBuilder& o) { o.ins[1].dims[0] = 2; }, Status::BadShape);
  expect([](OpBuilder& o) { o.ins[1].dims[3] = 5; }, Status::BadShape);
  expect([](OpBuilder& o) { o.outs[0].dims[3] = 5, o.ins[1].dims[3] = 5; }, Status::BadShape);
  expect([](OpBuilder& o) { o.outs[0].dims[1] = 8; }, Status::BadShape);
  expect([](OpBuilder& o) { o.ins[3].dims[0] = 3; }, Status::BadQuantization);
  expect([](OpBuilder& o) { o.ins[4].dtype = DType::Int8; }, Status::BadOpSignature);
  expect([](OpBuilder& o) { o.ints[1] = 0; }, Status::BadOpParameter);
  expect([](OpBuilder& o) { o.floats.push_back(1.0f); }, Status::BadOpSignature);
}

}  // namespace
}  // namespace ember::kernels
