//===- fully_connected_s8_test.cc - Tests of the int8 linear layer --------===//
//
// Hand-computed case, random cases against an exact reference, shape rejections.

#include "ember/kernels/portable/fully_connected_s8.h"

#include <gtest/gtest.h>

#include "ember/kernels/portable/test_util.h"

namespace ember::kernels {
namespace {

using namespace testing;

TEST(FullyConnectedS8, HandComputed) {
  const int8_t in[3] = {-128, 0, 127};  // zp -128: x - zp = 0, 128, 255
  const int8_t w[6] = {1, 2, 3, -1, -2, -3};
  const int32_t bias[2] = {7, -7}, mult[2] = {1 << 30, 1 << 30}, shift[2] = {-8, -8};
  int8_t out[2];
  OpBuilder op;
  op.in(in, DType::Int8, {1, 3}).in(w, DType::Int8, {2, 3}).in(bias, DType::Int32, {2});
  op.in(mult, DType::Int32, {2}).in(shift, DType::Int32, {2}).out(out, DType::Int8, {1, 2});
  op.ints = {-128, 3, -128, 127};
  ASSERT_EQ(check_fully_connected_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_fully_connected_s8(op.ctx()), Status::Ok);
  // acc0 = 7 + 256 + 765 = 1028 -> 1028/512 = 2.0078 -> 2, +3 = 5.
  // acc1 = -1028 -> mbqm: -514 (half up) then /256 = -2.0078 -> -2, +3 = 1.
  EXPECT_EQ(out[0], 5);
  EXPECT_EQ(out[1], 1);
}

TEST(FullyConnectedS8, RandomAgainstReference) {
  std::mt19937 rng(30);
  for (int t = 0; t < 200; ++t) {
    const int rows = rand_int(rng, 1, 4), lead = rand_int(rng, 1, 3), k = rand_int(rng, 1, 70);
    const int o = rand_int(rng, 1, 17);
    const int32_t in_zp = random_zp(rng), out_zp = random_zp(rng);
    auto in = random_s8(rng, static_cast<size_t>(lead) * rows * k);
    auto w = random_s8(rng, static_cast<size_t>(o) * k, -127, 127);
    std::vector<int32_t> bias(o);
    for (auto& b : bias) b = rand_int(rng, -20000, 20000);
    std::vector<int64_t> acc(static_cast<size_t>(lead) * rows * o);
    double max_abs = 1;
    for (int r = 0; r < lead * rows; ++r)
      for (int j = 0; j < o; ++j) {
        int64_t a = bias[j];
        for (int i = 0; i < k; ++i) a += (in[r * k + i] - in_zp) * int64_t{w[j * k + i]};
        acc[r * o + j] = a;
        max_abs = std::max(max_abs, std::fabs(static_cast<double>(a)));
      }
    std::vector<int32_t> mult, shift;
    std::vector<double> real;
    pick_multipliers(rng, max_abs, o, &mult, &shift, &real);
    std::vector<int8_t> out(acc.size());
    OpBuilder op;
    op.in(in.data(), DType::Int8, {lead, rows, k}).in(w.data(), DType::Int8, {o, k});
    op.in(bias.data(), DType::Int32, {o}).in(mult.data(), DType::Int32, {o});
    op.in(shift.data(), DType::Int32, {o}).out(out.data(), DType::Int8, {lead, rows, o});
    op.ints = {in_zp, out_zp, -100, 120};
    ASSERT_EQ(check_fully_connected_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_fully_connected_s8(op.ctx()), Status::Ok);
    for (size_t i = 0; i < acc.size(); ++i) {
      const int j = static_cast<int>(i % o);
      ASSERT_EQ(out[i], ref_requantize(acc[i], mult[j], shift[j], out_zp, -100, 120));
      const double rq = std::ldexp(static_cast<double>(mult[j]), shift[j] - 31);
      ASSERT_LE(std::abs(out[i] - ref_requantize_real(static_cast<double>(acc[i]), rq, out_zp,
                                                      -100, 120)),
                1);
    }
  }
}

TEST(FullyConnectedS8, CheckRejects) {
  auto make = [] {
    OpBuilder op;
    op.in(nullptr, DType::Int8, {2, 8}).in(nullptr, DType::Int8, {5, 8}).absent();
    op.in(nullptr, DType::Int32, {5}).in(nullptr, DType::Int32, {5});
    op.out(nullptr, DType::Int8, {2, 5});
    op.ints = {0, 0, -128, 127};
    return op;
  };
  EXPECT_EQ(check_fully_connected_s8(make().ctx()), Status::Ok);
  auto expect = [&](auto mutate, Status s) {
    OpBuilder op = make();
    mutate(op);
    EXPECT_EQ(check_fully_connected_s8(op.ctx()), s);
  };
  expect([](OpBuilder& o) { o.ins[0].dims[1] = 7; }, Status::BadShape);
  expect([](OpBuilder& o) { o.outs[0].dims[1] = 4; }, Status::BadShape);
  expect([](OpBuilder& o) { o.outs[0].dims[0] = 3; }, Status::BadShape);
  expect([](OpBuilder& o) { o.ins[1].rank = 3; }, Status::BadShape);
  expect([](OpBuilder& o) { o.ins[3].dims[0] = 4; }, Status::BadQuantization);
  expect([](OpBuilder& o) { o.ints[1] = 200; }, Status::BadQuantization);
  expect([](OpBuilder& o) { o.ints.push_back(0); }, Status::BadOpSignature);
  expect([](OpBuilder& o) { o.outs[0].dtype = DType::Float32; }, Status::BadOpSignature);
}

}  // namespace
}  // namespace ember::kernels
