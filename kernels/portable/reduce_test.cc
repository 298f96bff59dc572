//===- reduce_test.cc - Tests of reduce_s8 and reduce_f32 -----------------===//
//
// Every subset of axes of random shapes against a direct per-output reference (sums in int64
// and double), and the checks' rejections.

#include "ember/kernels/portable/reduce.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ember/kernels/portable/quantize_multiplier.h"
#include "ember/kernels/portable/requantize.h"
#include "ember/kernels/portable/test_util.h"

namespace ember::kernels {
namespace {

using namespace testing;

struct Case {
  std::vector<int32_t> dims, flags, out_dims;
  size_t in_n = 1, out_n = 1;
};

Case random_case(std::mt19937& rng) {
  Case c;
  const int rank = rand_int(rng, 1, 5);
  for (int d = 0; d < rank; ++d) {
    c.dims.push_back(rand_int(rng, 1, 5));
    c.flags.push_back(rand_int(rng, 0, 1));
    c.out_dims.push_back(c.flags[d] ? 1 : c.dims[d]);
    c.in_n *= c.dims[d], c.out_n *= c.out_dims[d];
  }
  return c;
}

// The input offsets of output element o (row-major over out_dims).
std::vector<size_t> group(const Case& c, size_t o) {
  std::vector<size_t> offsets;
  for (size_t i = 0; i < c.in_n; ++i) {
    size_t rest = i, oo = 0, scale = 1;
    std::vector<int32_t> idx(c.dims.size());
    for (int d = static_cast<int>(c.dims.size()) - 1; d >= 0; --d) idx[d] = rest % c.dims[d], rest /= c.dims[d];
    for (int d = static_cast<int>(c.dims.size()) - 1; d >= 0; --d) {
      oo += (c.flags[d] ? 0 : idx[d]) * scale;
      scale *= c.out_dims[d];
    }
    if (oo == o) offsets.push_back(i);
  }
  return offsets;
}

TEST(Reduce, EveryFunctionS8) {
  std::mt19937 rng(91);
  for (int t = 0; t < 300; ++t) {
    const Case c = random_case(rng);
    const auto fn = static_cast<Reduction>(t % 4);
    const int32_t in_zp = rand_int(rng, -20, 20), out_zp = rand_int(rng, -20, 20);
    int32_t m = 0;
    int shift = 0;
    ASSERT_TRUE(quantize_multiplier(0.01 + 0.5 * rand_int(rng, 0, 100) / 100.0, &m, &shift));
    const int32_t lo = rand_int(rng, -128, -60), hi = rand_int(rng, 60, 127);
    auto in = random_s8(rng, c.in_n);
    std::vector<int8_t> out(c.out_n);
    OpBuilder op;
    op.in(in.data(), DType::Int8, c.dims).out(out.data(), DType::Int8, c.out_dims);
    op.ints = {static_cast<int32_t>(fn), in_zp, fn == Reduction::Sum ? out_zp : in_zp, m, shift, lo, hi};
    op.ints.insert(op.ints.end(), c.flags.begin(), c.flags.end());
    ASSERT_EQ(check_reduce_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_reduce_s8(op.ctx()), Status::Ok);
    for (size_t o = 0; o < c.out_n; ++o) {
      const auto g = group(c, o);
      int64_t sum = 0;
      int32_t mx = -128, mn = 127;
      for (size_t i : g) sum += in[i] - in_zp, mx = std::max<int32_t>(mx, in[i]), mn = std::min<int32_t>(mn, in[i]);
      int32_t want;
      if (fn == Reduction::Mean) {
        want = static_cast<int32_t>(std::nearbyint(static_cast<double>(sum) / g.size())) + in_zp;
      } else if (fn == Reduction::Sum) {
        want = requantize_to_s8(static_cast<int32_t>(sum), m, shift, out_zp, lo, hi);
      } else {
        want = fn == Reduction::Max ? mx : mn;
      }
      ASSERT_EQ(out[o], std::clamp(want, lo, hi)) << "function " << static_cast<int>(fn) << " output " << o;
    }
  }
}

TEST(Reduce, EveryFunctionF32) {
  std::mt19937 rng(92);
  for (int t = 0; t < 300; ++t) {
    const Case c = random_case(rng);
    const auto fn = static_cast<Reduction>(t % 4);
    auto in = random_f32(rng, c.in_n);
    if (t % 7 == 3) in[0] = NAN;
    std::vector<float> out(c.out_n);
    OpBuilder op;
    op.in(in.data(), DType::Float32, c.dims).out(out.data(), DType::Float32, c.out_dims);
    op.ints = {static_cast<int32_t>(fn)};
    op.ints.insert(op.ints.end(), c.flags.begin(), c.flags.end());
    ASSERT_EQ(check_reduce_f32(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_reduce_f32(op.ctx()), Status::Ok);
    for (size_t o = 0; o < c.out_n; ++o) {
      const auto g = group(c, o);
      double sum = 0, mx = -INFINITY, mn = INFINITY;
      bool nan = false;
      for (size_t i : g) sum += in[i], mx = std::max<double>(mx, in[i]), mn = std::min<double>(mn, in[i]), nan |= std::isnan(in[i]);
      const double want = fn == Reduction::Mean ? sum / g.size() : fn == Reduction::Sum ? sum
                          : fn == Reduction::Max ? mx : mn;
      if (nan) {
        ASSERT_TRUE(std::isnan(out[o]));  // NaN wins every function, as in PyTorch
      } else {
        ASSERT_NEAR(out[o], want, 1e-5 * (1 + std::fabs(want)));
      }
    }
  }
}

TEST(Reduce, CheckRejects) {
  int8_t buf[24] = {};
  OpBuilder op;
  op.in(buf, DType::Int8, {2, 3, 4}).out(buf, DType::Int8, {2, 1, 4});
  op.ints = {0, 0, 0, 0, 0, -128, 127, 0, 1, 0};
  EXPECT_EQ(check_reduce_s8(op.ctx()), Status::Ok);
  op.ints[9] = 1;  // axis 2 flagged, but the output keeps it
  EXPECT_EQ(check_reduce_s8(op.ctx()), Status::BadShape);
  op.ints[9] = 2;
  EXPECT_EQ(check_reduce_s8(op.ctx()), Status::BadOpParameter);
  op.ints[9] = 0;
  op.ints[0] = 4;  // no such function
  EXPECT_EQ(check_reduce_s8(op.ctx()), Status::BadOpParameter);
  op.ints[0] = 1;
  op.ints[3] = 5;  // multiplier below 2^30
  EXPECT_EQ(check_reduce_s8(op.ctx()), Status::BadQuantization);
  op.ints[3] = 0;
  op.ints[1] = 200;
  EXPECT_EQ(check_reduce_s8(op.ctx()), Status::BadQuantization);
  op.ints[1] = 0;
  op.ints.pop_back();  // a flag short
  EXPECT_EQ(check_reduce_s8(op.ctx()), Status::BadOpSignature);
  OpBuilder big;  // 2^24 positions into one output overflow the int32 sum
  big.in(buf, DType::Int8, {1 << 12, 1 << 12}).out(buf, DType::Int8, {1, 1});
  big.ints = {1, 0, 0, 0, 0, -128, 127, 1, 1};
  EXPECT_EQ(check_reduce_s8(big.ctx()), Status::BadShape);
}

}  // namespace
}  // namespace ember::kernels
