//===- batch_matmul_test.cc - Tests of batch_matmul and layer_norm_f32 ----===//
//
// Against direct references (int64 sums, double statistics) on random shapes, and the checks'
// rejections.

#include <gtest/gtest.h>

#include <cmath>

#include "ember/kernels/portable/batch_matmul.h"
#include "ember/kernels/portable/layer_norm_f32.h"
#include "ember/kernels/portable/quantize_multiplier.h"
#include "ember/kernels/portable/requantize.h"
#include "ember/kernels/portable/test_util.h"

namespace ember::kernels {
namespace {

using namespace testing;

TEST(BatchMatmul, S8AgainstReference) {
  std::mt19937 rng(41);
  for (int t = 0; t < 100; ++t) {
    const int32_t bs = rand_int(rng, 1, 3), m = rand_int(rng, 1, 9), k = rand_int(rng, 1, 40), n = rand_int(rng, 1, 9);
    const int32_t a_zp = rand_int(rng, -128, 127), b_zp = rand_int(rng, -128, 127), o_zp = rand_int(rng, -20, 20);
    int32_t mult = 0;
    int shift = 0;
    ASSERT_TRUE(quantize_multiplier(0.0001 + rand_int(rng, 0, 1000) / 1e5, &mult, &shift));
    auto a = random_s8(rng, static_cast<size_t>(bs) * m * k), b = random_s8(rng, static_cast<size_t>(bs) * n * k);
    std::vector<int8_t> out(static_cast<size_t>(bs) * m * n);
    OpBuilder op;
    op.in(a.data(), DType::Int8, {bs, m, k}).in(b.data(), DType::Int8, {bs, n, k}).out(out.data(), DType::Int8, {bs, m, n});
    op.ins[0].constant = op.ins[1].constant = false;
    op.ints = {a_zp, b_zp, o_zp, mult, shift, -128, 127};
    ASSERT_EQ(check_batch_matmul_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_batch_matmul_s8(op.ctx()), Status::Ok);
    for (int32_t x = 0; x < bs; ++x)
      for (int32_t i = 0; i < m; ++i)
        for (int32_t j = 0; j < n; ++j) {
          int64_t acc = 0;
          for (int32_t y = 0; y < k; ++y)
            acc += (a[(static_cast<size_t>(x) * m + i) * k + y] - a_zp) * (b[(static_cast<size_t>(x) * n + j) * k + y] - b_zp);
          ASSERT_EQ(out[(static_cast<size_t>(x) * m + i) * n + j],
                    requantize_to_s8(static_cast<int32_t>(acc), mult, shift, o_zp, -128, 127));
        }
  }
}

TEST(BatchMatmul, F32AndChecks) {
  std::mt19937 rng(42);
  auto a = random_f32(rng, 2 * 3 * 4), b = random_f32(rng, 2 * 5 * 4);
  std::vector<float> out(2 * 3 * 5);
  OpBuilder op;
  op.in(a.data(), DType::Float32, {2, 3, 4}).in(b.data(), DType::Float32, {2, 5, 4}).out(out.data(), DType::Float32, {2, 3, 5});
  ASSERT_EQ(check_batch_matmul_f32(op.ctx()), Status::Ok);
  ASSERT_EQ(run_batch_matmul_f32(op.ctx()), Status::Ok);
  for (int x = 0; x < 2; ++x)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) {
        double acc = 0;
        for (int y = 0; y < 4; ++y) acc += a[(x * 3 + i) * 4 + y] * b[(x * 5 + j) * 4 + y];
        EXPECT_NEAR(out[(x * 3 + i) * 5 + j], acc, 1e-5);
      }
  op.outs[0].dims[2] = 4;
  EXPECT_EQ(check_batch_matmul_f32(op.ctx()), Status::BadShape);
  op.outs[0].dims[2] = 5;
  op.ins[1].dims[0] = 1;  // batches differ
  EXPECT_EQ(check_batch_matmul_f32(op.ctx()), Status::BadShape);
  int8_t buf[8] = {};
  OpBuilder s8;
  s8.in(buf, DType::Int8, {1, 1, 40000}).in(buf, DType::Int8, {1, 1, 40000}).out(buf, DType::Int8, {1, 1, 1});
  s8.ints = {0, 0, 0, 1 << 30, 0, -128, 127};
  EXPECT_EQ(check_batch_matmul_s8(s8.ctx()), Status::BadShape);  // K past 2^15
  s8.ins[0].dims[2] = s8.ins[1].dims[2] = 8;
  EXPECT_EQ(check_batch_matmul_s8(s8.ctx()), Status::Ok);
  s8.ints[3] = 7;
  EXPECT_EQ(check_batch_matmul_s8(s8.ctx()), Status::BadQuantization);
}

TEST(LayerNorm, F32AgainstReference) {
  std::mt19937 rng(43);
  for (int t = 0; t < 50; ++t) {
    const int32_t rows = rand_int(rng, 1, 6), d = rand_int(rng, 1, 70);
    auto x = random_f32(rng, static_cast<size_t>(rows) * d), w = random_f32(rng, d), b = random_f32(rng, d);
    std::vector<float> out(x.size());
    OpBuilder op;
    op.in(x.data(), DType::Float32, {rows, d}).in(w.data(), DType::Float32, {d}).in(b.data(), DType::Float32, {d});
    op.out(out.data(), DType::Float32, {rows, d});
    op.floats = {1e-5f};
    ASSERT_EQ(check_layer_norm_f32(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_layer_norm_f32(op.ctx()), Status::Ok);
    for (int32_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int32_t i = 0; i < d; ++i) mean += x[r * d + i];
      mean /= d;
      for (int32_t i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
      var /= d;
      for (int32_t i = 0; i < d; ++i) {
        const double v = (x[r * d + i] - mean) / std::sqrt(var + 1e-5);
        const double want = v * w[i] + b[i];
        ASSERT_NEAR(out[r * d + i], want, 1e-4 * (1 + std::fabs(want)));
      }
    }
  }
}

TEST(LayerNorm, CheckRejects) {
  float buf[12] = {};
  OpBuilder op;
  op.in(buf, DType::Float32, {3, 4}).in(buf, DType::Float32, {4}).in(buf, DType::Float32, {4}).out(buf, DType::Float32, {3, 4});
  op.floats = {1e-5f};
  EXPECT_EQ(check_layer_norm_f32(op.ctx()), Status::Ok);
  op.ins[1].dims[0] = 3;
  EXPECT_EQ(check_layer_norm_f32(op.ctx()), Status::BadShape);
  op.ins[1].dims[0] = 4;
  op.ins[2] = TensorView{};  // a bias is required
  EXPECT_EQ(check_layer_norm_f32(op.ctx()), Status::BadShape);
  op.ins[2] = op.ins[1];
  op.floats = {0.0f};
  EXPECT_EQ(check_layer_norm_f32(op.ctx()), Status::BadOpParameter);
  op.floats = {NAN};
  EXPECT_EQ(check_layer_norm_f32(op.ctx()), Status::BadOpParameter);
}

}  // namespace
}  // namespace ember::kernels
