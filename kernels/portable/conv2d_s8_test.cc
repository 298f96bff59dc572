//===- conv2d_s8_test.cc - Tests of the int8 convolution ------------------===//
//
// A hand-computed case, random grouped/strided/dilated/padded cases against the double
// reference (bit-exact against the contract's requantization of the exact accumulator, within
// one quantum of a single real rounding), and the check's rejections.

#include "ember/kernels/portable/conv2d_s8.h"

#include <gtest/gtest.h>

#include "ember/kernels/portable/test_util.h"

namespace ember::kernels {
namespace {

using namespace testing;

TEST(Conv2dS8, HandComputed) {
  // 1x3x3x1 input, 2x2 filter, stride 1, pad_top/left 1, out 3x3 (pad bottom/right 0).
  const int8_t in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const int8_t w[4] = {1, 2, 3, 4};
  const int32_t bias[1] = {10}, mult[1] = {1 << 30}, shift[1] = {1};  // real multiplier 1
  int8_t out[9];
  OpBuilder op;
  op.in(in, DType::Int8, {1, 3, 3, 1}).in(w, DType::Int8, {1, 2, 2, 1});
  op.in(bias, DType::Int32, {1}).in(mult, DType::Int32, {1}).in(shift, DType::Int32, {1});
  op.out(out, DType::Int8, {1, 3, 3, 1});
  op.ints = {1, 1, 1, 1, 1, 1, /*input_zp=*/1, /*output_zp=*/-5, -128, 127};
  ASSERT_EQ(check_conv2d_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_conv2d_s8(op.ctx()), Status::Ok);
  // x - zp = 0..8. out(0,0) = 10 + 0*4 = 10; out(1,1) = 10 + 0*1+1*2+3*3+4*4 = 37.
  // out(2,2) = 10 + 4*1 + 5*2 + 7*3 + 8*4 = 77; out(0,2) = 10 + 1*3 + 2*4 = 21.
  EXPECT_EQ(out[0], 10 - 5);
  EXPECT_EQ(out[4], 37 - 5);
  EXPECT_EQ(out[8], 77 - 5);
  EXPECT_EQ(out[2], 21 - 5);
}

TEST(Conv2dS8, RandomAgainstReference) {
  std::mt19937 rng(10);
  int cases = 0;
  while (cases < 300) {
    const int n = rand_int(rng, 1, 2), groups = rand_int(rng, 1, 3);
    const int cg = rand_int(rng, 1, 3), og = rand_int(rng, 1, 3);
    const int c = groups * cg, o = groups * og;  // odd counts when groups or cg are odd
    Axis ay{rand_int(rng, 1, 9), rand_int(rng, 1, 3), rand_int(rng, 1, 2), rand_int(rng, 0, 2),
            rand_int(rng, 1, 2), 0};
    Axis ax{rand_int(rng, 1, 9), rand_int(rng, 1, 3), rand_int(rng, 1, 2), rand_int(rng, 0, 2),
            rand_int(rng, 1, 2), 0};
    ay.out = out_size(ay.in, ay.k, ay.stride, ay.pad, ay.pad + rand_int(rng, 0, 1), ay.dil);
    ax.out = out_size(ax.in, ax.k, ax.stride, ax.pad, rand_int(rng, 0, ax.pad + 1), ax.dil);
    if (ay.out < 1 || ax.out < 1) continue;
    ++cases;
    const int32_t in_zp = random_zp(rng), out_zp = random_zp(rng);
    auto in = random_s8(rng, static_cast<size_t>(n) * ay.in * ax.in * c);
    auto w = random_s8(rng, static_cast<size_t>(o) * ay.k * ax.k * cg, -127, 127);
    std::vector<int32_t> bias(o);
    for (auto& b : bias) b = rand_int(rng, -5000, 5000);
    const bool has_bias = rand_int(rng, 0, 3) != 0;

    std::vector<double> din(in.size()), dw(w.begin(), w.end()), db(bias.begin(), bias.end());
    for (size_t i = 0; i < in.size(); ++i) din[i] = in[i] - in_zp;
    const auto acc = ref_conv(din, n, ay, ax, c, dw, o, cg, false, has_bias ? &db : nullptr);
    double max_abs = 1;
    for (double a : acc) max_abs = std::max(max_abs, std::fabs(a));
    std::vector<int32_t> mult, shift;
    std::vector<double> real;
    pick_multipliers(rng, max_abs, o, &mult, &shift, &real);
    int32_t lo = -128, hi = 127;
    if (rand_int(rng, 0, 2) == 0) lo = rand_int(rng, -128, 0), hi = rand_int(rng, lo, 127);

    std::vector<int8_t> out(acc.size());
    OpBuilder op;
    op.in(in.data(), DType::Int8, {n, ay.in, ax.in, c})
        .in(w.data(), DType::Int8, {o, ay.k, ax.k, cg});
    if (has_bias) op.in(bias.data(), DType::Int32, {o}); else op.absent();
    op.in(mult.data(), DType::Int32, {o}).in(shift.data(), DType::Int32, {o});
    op.out(out.data(), DType::Int8, {n, ay.out, ax.out, o});
    op.ints = {ay.stride, ax.stride, ay.pad, ax.pad, ay.dil, ax.dil, in_zp, out_zp, lo, hi};
    ASSERT_EQ(check_conv2d_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_conv2d_s8(op.ctx()), Status::Ok);
    for (size_t i = 0; i < acc.size(); ++i) {
      const int ch = static_cast<int>(i % o);
      ASSERT_EQ(out[i], ref_requantize(static_cast<int64_t>(acc[i]), mult[ch], shift[ch], out_zp,
                                       lo, hi)) << "case " << cases << " at " << i;
      const double rq = std::ldexp(static_cast<double>(mult[ch]), shift[ch] - 31);
      ASSERT_LE(std::abs(out[i] - ref_requantize_real(acc[i], rq, out_zp, lo, hi)), 1);
    }
  }
}

struct ConvOp {
  int8_t in[1] = {}, w[1] = {}, out[1] = {};
  int32_t q[1] = {};
  OpBuilder op;
  ConvOp() {
    // 1x5x5x3 input, 4 outputs, 3x3 kernel, stride 2, pad 1 -> 3x3 output.
    op.in(nullptr, DType::Int8, {1, 5, 5, 3}).in(nullptr, DType::Int8, {4, 3, 3, 3});
    op.in(nullptr, DType::Int32, {4}).in(nullptr, DType::Int32, {4});
    op.in(nullptr, DType::Int32, {4}).out(nullptr, DType::Int8, {1, 3, 3, 4});
    op.ints = {2, 2, 1, 1, 1, 1, 0, 0, -128, 127};
  }
};

TEST(Conv2dS8, CheckAcceptsBaseline) {
  ConvOp c;
  EXPECT_EQ(check_conv2d_s8(c.op.ctx()), Status::Ok);
}

TEST(Conv2dS8, CheckRejects) {
  auto expect = [](auto mutate, Status s) {
    ConvOp c;
    mutate(c.op);
    EXPECT_EQ(check_conv2d_s8(c.op.ctx()), s);
  };
  expect([](OpBuilder& o) { o.ints.pop_back(); }, Status::BadOpSignature);
  expect([](OpBuilder& o) { o.ins.pop_back(); }, Status::BadOpSignature);
  expect([](OpBuilder& o) { o.ins[0].dtype = DType::Float32; }, Status::BadOpSignature);
  expect([](OpBuilder& o) { o.ins[2].dtype = DType::Int8; }, Status::BadOpSignature);
  expect([](OpBuilder& o) { o.ins[0].rank = 3; }, Status::BadShape);
  expect([](OpBuilder& o) { o.outs[0].dims[1] = 4; }, Status::BadShape);   // wrong out height
  expect([](OpBuilder& o) { o.outs[0].dims[2] = 1; }, Status::BadShape);   // wrong out width
  expect([](OpBuilder& o) { o.outs[0].dims[0] = 2; }, Status::BadShape);   // batch
  expect([](OpBuilder& o) { o.ins[1].dims[3] = 2; }, Status::BadShape);    // 3 % 2 groups
  expect([](OpBuilder& o) { o.ins[1].dims[0] = 5; }, Status::BadShape);    // filter O
  expect([](OpBuilder& o) { o.ins[2].dims[0] = 3; }, Status::BadShape);    // bias length
  expect([](OpBuilder& o) { o.ins[3].dims[0] = 3; }, Status::BadQuantization);
  expect([](OpBuilder& o) { o.ins[4].dims[0] = 5; }, Status::BadQuantization);
  expect([](OpBuilder& o) { o.ints[0] = 0; }, Status::BadOpParameter);    // stride 0
  expect([](OpBuilder& o) { o.ints[4] = 0; }, Status::BadOpParameter);    // dilation 0
  expect([](OpBuilder& o) { o.ints[2] = -1; }, Status::BadOpParameter);   // negative pad
  expect([](OpBuilder& o) { o.ints[6] = 128; }, Status::BadQuantization); // input zp
  expect([](OpBuilder& o) { o.ints[7] = -129; }, Status::BadQuantization);
  expect([](OpBuilder& o) { o.ints[8] = 10, o.ints[9] = 5; }, Status::BadOpParameter);
  expect([](OpBuilder& o) { o.ints[9] = 128; }, Status::BadOpParameter);
  expect([](OpBuilder& o) { o.ins[0].dims[1] = -5; }, Status::BadShape);
  // Grouped conv: 3 groups of 1 input channel, O = 4 not divisible by 3.
  expect([](OpBuilder& o) { o.ins[1].dims[3] = 1; }, Status::BadShape);
}

TEST(Conv2dS8, CheckAcceptsAbsentBiasAndGroups) {
  ConvOp c;
  c.op.ins[2] = TensorView{};
  EXPECT_EQ(check_conv2d_s8(c.op.ctx()), Status::Ok);
  c.op.ins[1].dims[3] = 1;  // 3 groups, 6 outputs
  c.op.ins[1].dims[0] = 6;
  c.op.outs[0].dims[3] = 6;
  c.op.ins[3].dims[0] = c.op.ins[4].dims[0] = 6;
  EXPECT_EQ(check_conv2d_s8(c.op.ctx()), Status::Ok);
}

}  // namespace
}  // namespace ember::kernels
