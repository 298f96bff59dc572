//===- softmax_s8_test.cc - Tests of the int8 softmax ---------------------===//
//
// Exact rounding against a long-double evaluation of the contract's formula, within one
// quantum of the float softmax, and rejections.

#include "ember/kernels/portable/softmax_s8.h"

#include <gtest/gtest.h>

#include "ember/kernels/portable/test_util.h"

namespace ember::kernels {
namespace {

using namespace testing;

std::vector<int32_t> exp_table(double input_scale) {
  std::vector<int32_t> t(256);
  for (int d = 0; d < 256; ++d)
    t[d] = static_cast<int32_t>(std::lround(std::exp(-input_scale * d) * (1 << 23)));
  return t;
}

TEST(SoftmaxS8, HandComputed) {
  const auto table = exp_table(std::log(2.0));  // e_d = 2^-d
  const int8_t in[4] = {5, 5, 4, -128};         // e = 1, 1, 0.5, ~0 -> 0.4, 0.4, 0.2, 0
  int8_t out[4];
  OpBuilder op;
  op.in(in, DType::Int8, {1, 4}).in(table.data(), DType::Int32, {256});
  op.out(out, DType::Int8, {1, 4});
  ASSERT_EQ(check_softmax_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_softmax_s8(op.ctx()), Status::Ok);
  EXPECT_EQ(out[0], 102 - 128);  // 0.4 * 256 = 102.4
  EXPECT_EQ(out[1], 102 - 128);
  EXPECT_EQ(out[2], 51 - 128);   // 51.2
  EXPECT_EQ(out[3], -128);
  const int8_t one[1] = {-7};    // a single element is 1.0 -> 256, saturates at 127
  op.ins[0] = view(one, DType::Int8, {1});
  op.outs[0] = view(out, DType::Int8, {1});
  ASSERT_EQ(run_softmax_s8(op.ctx()), Status::Ok);
  EXPECT_EQ(out[0], 127);
}

TEST(SoftmaxS8, RandomAgainstReference) {
  std::mt19937 rng(60);
  for (int t = 0; t < 200; ++t) {
    const double scale = std::exp2(std::uniform_real_distribution<double>(-8, -1)(rng));
    const auto table = exp_table(scale);
    const int rows = rand_int(rng, 1, 5), depth = rand_int(rng, 1, 40);
    auto in = random_s8(rng, static_cast<size_t>(rows) * depth);
    std::vector<int8_t> out(in.size());
    OpBuilder op;
    op.in(in.data(), DType::Int8, {rows, depth}).in(table.data(), DType::Int32, {256});
    op.out(out.data(), DType::Int8, {rows, depth});
    ASSERT_EQ(check_softmax_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_softmax_s8(op.ctx()), Status::Ok);
    for (int r = 0; r < rows; ++r) {
      const int8_t* x = &in[r * depth];
      const int m = *std::max_element(x, x + depth);
      long double sum = 0, fsum = 0;
      for (int i = 0; i < depth; ++i) sum += table[m - x[i]], fsum += std::exp(scale * (x[i] - m));
      for (int i = 0; i < depth; ++i) {
        const long double q = std::floor(table[m - x[i]] * 256.0L / sum + 0.5L) - 128;
        ASSERT_EQ(out[r * depth + i], static_cast<int>(std::clamp(q, -128.0L, 127.0L)));
        const double p = std::exp(scale * (x[i] - m)) / static_cast<double>(fsum);
        const double fq = std::clamp(std::round(p * 256) - 128, -128.0, 127.0);
        ASSERT_LE(std::fabs(out[r * depth + i] - fq), 1.0);
      }
    }
  }
}

// The contract's int64 formula, rounding half away from zero, for any table.
int8_t softmax_formula(int32_t e, int64_t sum) {
  if (sum <= 0) return -128;
  const int64_t num = int64_t{e} * 256;
  const int64_t q = (num >= 0 ? (2 * num + sum) / (2 * sum) : -((-2 * num + sum) / (2 * sum))) - 128;
  return static_cast<int8_t>(std::clamp<int64_t>(q, -128, 127));
}

TEST(SoftmaxS8, WideRowsAndHostileTables) {
  // Rows long enough that the sum passes 2^32 (the 64-bit path), and tables from an untrusted
  // file: negative entries, entries above 2^23, INT32_MIN and INT32_MAX.
  std::mt19937 rng(61);
  for (int t = 0; t < 300; ++t) {
    auto table = exp_table(std::exp2(std::uniform_real_distribution<double>(-12, -1)(rng)));
    if (t % 2) {
      for (int k = 0; k < 8; ++k) {
        const int32_t hostile[] = {-1, -(1 << 23), (1 << 23) + 1, INT32_MAX, INT32_MIN, 1 << 30};
        table[rand_int(rng, 0, 255)] = hostile[rand_int(rng, 0, 5)];
      }
    }
    const int depth = rand_int(rng, 1, 700);
    auto in = random_s8(rng, static_cast<size_t>(depth));
    if (t % 3 == 0) std::fill(in.begin(), in.end(), static_cast<int8_t>(in[0]));  // sum = depth * e_0
    std::vector<int8_t> out(in.size());
    OpBuilder op;
    op.in(in.data(), DType::Int8, {1, depth}).in(table.data(), DType::Int32, {256});
    op.out(out.data(), DType::Int8, {1, depth});
    ASSERT_EQ(run_softmax_s8(op.ctx()), Status::Ok);
    const int m = *std::max_element(in.begin(), in.end());
    int64_t sum = 0;
    for (int i = 0; i < depth; ++i) sum += table[m - in[i]];
    for (int i = 0; i < depth; ++i) ASSERT_EQ(out[i], softmax_formula(table[m - in[i]], sum)) << t << " " << i;
  }
}

TEST(SoftmaxS8, RoundingAtAndNextToTies) {
  // Two elements with e = a and b: the first output is a * 256 / (a + b) rounded. Every den in
  // a range, with the a whose remainder is den/2 (a tie, even den) or (den - 1)/2 (just below
  // one, odd den).
  std::vector<int32_t> table(256, 0);
  const int8_t in[2] = {0, -1};
  int8_t out[2];
  OpBuilder op;
  op.in(in, DType::Int8, {1, 2}).in(table.data(), DType::Int32, {256});
  op.out(out, DType::Int8, {1, 2});
  int cases = 0;
  for (int32_t den = 600; den < 1400; ++den) {
    for (int32_t a = 0; a <= den; ++a) {
      if ((a * 256) % den != den / 2 || a * 256 / den > 250) continue;
      table[0] = a, table[1] = den - a;
      ASSERT_EQ(run_softmax_s8(op.ctx()), Status::Ok);
      ASSERT_EQ(out[0], softmax_formula(a, den)) << a << "/" << den;
      ++cases;
    }
  }
  EXPECT_GT(cases, 400);
}

TEST(SoftmaxS8, CheckRejects) {
  OpBuilder op;
  op.in(nullptr, DType::Int8, {2, 3, 10}).in(nullptr, DType::Int32, {256});
  op.out(nullptr, DType::Int8, {2, 3, 10});
  EXPECT_EQ(check_softmax_s8(op.ctx()), Status::Ok);
  op.ins[1].dims[0] = 128;
  EXPECT_EQ(check_softmax_s8(op.ctx()), Status::BadQuantization);
  op.ins[1].dims[0] = 256;
  op.ins[1].dtype = DType::Int8;
  EXPECT_EQ(check_softmax_s8(op.ctx()), Status::BadOpSignature);
  op.ins[1].dtype = DType::Int32;
  op.outs[0].dims[2] = 9;
  EXPECT_EQ(check_softmax_s8(op.ctx()), Status::BadShape);
  op.outs[0].dims[2] = 10;
  op.ints.push_back(1);
  EXPECT_EQ(check_softmax_s8(op.ctx()), Status::BadOpSignature);
}

}  // namespace
}  // namespace ember::kernels
