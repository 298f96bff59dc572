//===- elementwise_s8_test.cc - Tests of the int8 elementwise kernels -----===//
//
// add_s8, mul_s8 (with broadcasting), requantize_s8, lut_s8, quantize_s8, dequantize_s8:
// hand cases, random cases against double re-computations, and check rejections.

#include <gtest/gtest.h>

#include <cfenv>

#include "ember/kernels/portable/add_s8.h"
#include "ember/kernels/portable/dequantize_s8.h"
#include "ember/kernels/portable/lut_s8.h"
#include "ember/kernels/portable/mul_s8.h"
#include "ember/kernels/portable/quantize_s8.h"
#include "ember/kernels/portable/requantize_s8.h"
#include "ember/kernels/portable/test_util.h"

namespace ember::kernels {
namespace {

using namespace testing;

// Random broadcast-compatible shapes: out rank r, each operand drops leading axes or has 1s.
void random_broadcast_shapes(std::mt19937& rng, std::vector<int32_t>* a, std::vector<int32_t>* b,
                             std::vector<int32_t>* out) {
  const int r = rand_int(rng, 1, 5);
  out->clear();
  for (int i = 0; i < r; ++i) out->push_back(rand_int(rng, 1, 4));
  auto operand = [&](std::vector<int32_t>* v) {
    const int rank = rand_int(rng, 0, r);
    v->assign(out->end() - rank, out->end());
    for (auto& d : *v)
      if (rand_int(rng, 0, 2) == 0) d = 1;
  };
  operand(a);
  operand(b);
  // The output rank must equal the larger operand rank.
  if (static_cast<int>(std::max(a->size(), b->size())) < r) a->assign(out->begin(), out->end());
}

size_t numel(const std::vector<int32_t>& d) {
  size_t n = 1;
  for (int32_t x : d) n *= x;
  return n;
}

// Index of operand element for output flat index o (numpy rule), independent of Broadcast.
size_t operand_index(const std::vector<int32_t>& od, const std::vector<int32_t>& d, size_t o) {
  size_t idx = 0, stride = 1;
  for (int k = 0; k < static_cast<int>(od.size()); ++k) {
    const int axis = static_cast<int>(od.size()) - 1 - k;
    const size_t coord = o % od[axis];
    o /= od[axis];
    if (k < static_cast<int>(d.size())) {
      const int32_t dim = d[d.size() - 1 - k];
      if (dim != 1) idx += coord * stride;
      stride *= dim;
    }
  }
  return idx;
}

TEST(AddS8, HandComputedTfliteParams) {
  // Equal scales 0.5 -> out scale 1: real = 0.5*(a-za) + 0.5*(b-zb).
  int32_t m_in, m_out;
  int s_in, s_out;
  quantize_multiplier(0.5, &m_in, &s_in);                         // s / (2 max s)
  quantize_multiplier(2 * 0.5 / ((1 << 20) * 1.0), &m_out, &s_out);
  const int8_t a[2] = {10, -128}, b[2] = {3, 127};
  int8_t out[2];
  OpBuilder op;
  op.in(a, DType::Int8, {2}).in(b, DType::Int8, {2}).out(out, DType::Int8, {2});
  op.ints = {20, 0, m_in, s_in, 1, m_in, s_in, -3, m_out, s_out, -128, 127};
  ASSERT_EQ(check_add_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_add_s8(op.ctx()), Status::Ok);
  EXPECT_EQ(out[0], 6 - 3);     // 5 + 1 = 6
  EXPECT_EQ(out[1], -1 - 3);    // -64 + 63 = -1
}

TEST(AddS8, RandomAgainstDouble) {
  std::mt19937 rng(40);
  for (int t = 0; t < 300; ++t) {
    std::vector<int32_t> da, db, dout;
    random_broadcast_shapes(rng, &da, &db, &dout);
    std::uniform_real_distribution<double> sd(0.005, 0.1);
    const double sa = sd(rng), sb = sd(rng), so = sd(rng) * 2;
    const int32_t za = random_zp(rng), zb = random_zp(rng), zo = random_zp(rng);
    const int left_shift = 20;
    const double twice_max = 2 * std::max(sa, sb);
    int32_t ma, mb, mo;
    int sha, shb, sho;
    quantize_multiplier(sa / twice_max, &ma, &sha);
    quantize_multiplier(sb / twice_max, &mb, &shb);
    quantize_multiplier(twice_max / ((1 << left_shift) * so), &mo, &sho);
    auto a = random_s8(rng, numel(da)), b = random_s8(rng, numel(db));
    std::vector<int8_t> out(numel(dout));
    OpBuilder op;
    op.in(a.data(), DType::Int8, da).in(b.data(), DType::Int8, db);
    op.out(out.data(), DType::Int8, dout);
    op.ints = {left_shift, za, ma, sha, zb, mb, shb, zo, mo, sho, -128, 127};
    ASSERT_EQ(check_add_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_add_s8(op.ctx()), Status::Ok);
    for (size_t o = 0; o < out.size(); ++o) {
      const double real = sa * (a[operand_index(dout, da, o)] - za) +
                          sb * (b[operand_index(dout, db, o)] - zb);
      const double q = std::clamp(std::round(real / so) + zo, -128.0, 127.0);
      ASSERT_LE(std::fabs(out[o] - q), 1.0) << "t=" << t << " o=" << o;
    }
  }
}

TEST(AddS8, CheckRejects) {
  auto make = [] {
    OpBuilder op;
    op.in(nullptr, DType::Int8, {2, 1, 3}).in(nullptr, DType::Int8, {4, 1});
    op.out(nullptr, DType::Int8, {2, 4, 3});
    op.ints = {20, 0, 1 << 30, -1, 0, 1 << 30, 0, 0, 1 << 30, -20, -128, 127};
    return op;
  };
  EXPECT_EQ(check_add_s8(make().ctx()), Status::Ok);
  auto expect = [&](auto mutate, Status s) {
    OpBuilder op = make();
    mutate(op);
    EXPECT_EQ(check_add_s8(op.ctx()), s);
  };
  expect([](OpBuilder& o) { o.outs[0].dims[1] = 5; }, Status::BadShape);
  expect([](OpBuilder& o) { o.ins[1].dims[0] = 3; }, Status::BadShape);
  expect([](OpBuilder& o) { o.outs[0].rank = 4, o.outs[0].dims[3] = 1; }, Status::BadShape);
  expect([](OpBuilder& o) { o.ints[0] = 23; }, Status::BadOpParameter);
  expect([](OpBuilder& o) { o.ints[3] = 1; }, Status::BadQuantization);   // input shift > 0
  expect([](OpBuilder& o) { o.ints[2] = 12345; }, Status::BadQuantization);
  expect([](OpBuilder& o) { o.ints[9] = 31; }, Status::BadQuantization);
  expect([](OpBuilder& o) { o.ints[7] = 128; }, Status::BadQuantization);
  expect([](OpBuilder& o) { o.ints[10] = 1, o.ints[11] = 0; }, Status::BadOpParameter);
  expect([](OpBuilder& o) { o.ins[0].dtype = DType::Int32; }, Status::BadOpSignature);
}

TEST(MulS8, RandomAgainstDouble) {
  std::mt19937 rng(41);
  for (int t = 0; t < 300; ++t) {
    std::vector<int32_t> da, db, dout;
    random_broadcast_shapes(rng, &da, &db, &dout);
    std::uniform_real_distribution<double> sd(0.005, 0.1);
    const double sa = sd(rng), sb = sd(rng), so = sd(rng) * sd(rng) * 50;
    const int32_t za = random_zp(rng), zb = random_zp(rng), zo = random_zp(rng);
    int32_t m;
    int sh;
    quantize_multiplier(sa * sb / so, &m, &sh);
    auto a = random_s8(rng, numel(da)), b = random_s8(rng, numel(db));
    std::vector<int8_t> out(numel(dout));
    OpBuilder op;
    op.in(a.data(), DType::Int8, da).in(b.data(), DType::Int8, db);
    op.out(out.data(), DType::Int8, dout);
    op.ints = {za, zb, zo, m, sh, -128, 127};
    ASSERT_EQ(check_mul_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_mul_s8(op.ctx()), Status::Ok);
    for (size_t o = 0; o < out.size(); ++o) {
      const int32_t prod =
          (a[operand_index(dout, da, o)] - za) * (b[operand_index(dout, db, o)] - zb);
      ASSERT_EQ(out[o], ref_requantize(prod, m, sh, zo, -128, 127));
      const double q = std::clamp(std::round(sa * sb * prod / so) + zo, -128.0, 127.0);
      ASSERT_LE(std::fabs(out[o] - q), 1.0);
    }
  }
}

TEST(MulS8, CheckRejects) {
  OpBuilder op;
  op.in(nullptr, DType::Int8, {3}).in(nullptr, DType::Int8, {3}).out(nullptr, DType::Int8, {3});
  op.ints = {0, 0, 0, 1 << 30, 0, -128, 127};
  EXPECT_EQ(check_mul_s8(op.ctx()), Status::Ok);
  op.ints[4] = -32;
  EXPECT_EQ(check_mul_s8(op.ctx()), Status::BadQuantization);
  op.ints[4] = 0;
  op.ints[1] = -129;
  EXPECT_EQ(check_mul_s8(op.ctx()), Status::BadQuantization);
  op.ints[1] = 0;
  op.outs[0].dims[0] = 1;
  EXPECT_EQ(check_mul_s8(op.ctx()), Status::BadShape);
}

TEST(RequantizeS8, RandomAgainstDouble) {
  std::mt19937 rng(42);
  for (int t = 0; t < 50; ++t) {
    const int32_t zi = random_zp(rng), zo = random_zp(rng);
    const double real = std::exp2(std::uniform_real_distribution<double>(-4, 3)(rng));
    int32_t m;
    int sh;
    quantize_multiplier(real, &m, &sh);
    std::vector<int8_t> in(256), out(256);
    for (int i = 0; i < 256; ++i) in[i] = static_cast<int8_t>(i - 128);
    OpBuilder op;
    op.in(in.data(), DType::Int8, {16, 16}).out(out.data(), DType::Int8, {16, 16});
    op.ints = {zi, zo, m, sh, -128, 127};
    ASSERT_EQ(check_requantize_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_requantize_s8(op.ctx()), Status::Ok);
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(out[i], ref_requantize(in[i] - zi, m, sh, zo, -128, 127));
      const double rq = std::ldexp(static_cast<double>(m), sh - 31);
      ASSERT_LE(std::abs(out[i] - ref_requantize_real(in[i] - zi, rq, zo, -128, 127)), 1);
    }
  }
  OpBuilder bad;
  bad.in(nullptr, DType::Int8, {4}).out(nullptr, DType::Int8, {4});
  bad.ints = {0, 0, 1 << 30, 23, -128, 127};
  EXPECT_EQ(check_requantize_s8(bad.ctx()), Status::BadQuantization);
  bad.ints[3] = 0;
  bad.outs[0].dims[0] = 5;
  EXPECT_EQ(check_requantize_s8(bad.ctx()), Status::BadShape);
}

TEST(LutS8, LooksUpEveryValue) {
  std::vector<int8_t> table(256), in(256), out(256);
  for (int i = 0; i < 256; ++i) table[i] = static_cast<int8_t>(127 - i), in[i] = static_cast<int8_t>(i - 128);
  OpBuilder op;
  op.in(in.data(), DType::Int8, {2, 128}).in(table.data(), DType::Int8, {256});
  op.out(out.data(), DType::Int8, {2, 128});
  ASSERT_EQ(check_lut_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_lut_s8(op.ctx()), Status::Ok);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(out[i], 127 - i);
  op.ins[1].dims[0] = 255;
  EXPECT_EQ(check_lut_s8(op.ctx()), Status::BadShape);
  op.ins[1].dims[0] = 256;
  op.ins[1].dtype = DType::Int32;
  EXPECT_EQ(check_lut_s8(op.ctx()), Status::BadOpSignature);
}

TEST(QuantizeS8, RoundsHalfToEven) {
  EXPECT_EQ(round_half_even(0.5f), 0.0f);
  EXPECT_EQ(round_half_even(1.5f), 2.0f);
  EXPECT_EQ(round_half_even(2.5f), 2.0f);
  EXPECT_EQ(round_half_even(-0.5f), 0.0f);
  EXPECT_EQ(round_half_even(-1.5f), -2.0f);
  EXPECT_EQ(round_half_even(-2.5f), -2.0f);
  EXPECT_EQ(round_half_even(2.4999998f), 2.0f);
  EXPECT_EQ(round_half_even(1e20f), 1e20f);
  const float in[7] = {0.25f, 0.75f, -0.25f, 100.0f, -100.0f, NAN, 1.25f};
  int8_t out[7];
  quantize_s8(7, 2.0f, 1, in, out);  // x*2: 0.5, 1.5, -0.5, 200, -200, NaN, 2.5
  const int8_t expected[7] = {1, 3, 1, 127, -128, 1, 3};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(out[i], expected[i]) << i;
}

TEST(QuantizeS8, RandomMatchesNearbyint) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  std::mt19937 rng(43);
  for (int t = 0; t < 100; ++t) {
    const float inv_scale = std::uniform_real_distribution<float>(1, 200)(rng);
    const int32_t zp = random_zp(rng);
    auto in = random_f32(rng, 500, -2, 2);
    in[0] = 0.5f / inv_scale;  // near ties
    std::vector<int8_t> out(in.size());
    OpBuilder op;
    op.in(in.data(), DType::Float32, {500}).out(out.data(), DType::Int8, {500});
    op.ints = {zp};
    op.floats = {inv_scale};
    ASSERT_EQ(check_quantize_s8(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_quantize_s8(op.ctx()), Status::Ok);
    for (size_t i = 0; i < in.size(); ++i) {
      const float p = in[i] * inv_scale;
      const float q = std::clamp(std::nearbyint(p) + static_cast<float>(zp), -128.0f, 127.0f);
      ASSERT_EQ(out[i], static_cast<int8_t>(q));
    }
  }
  OpBuilder bad;
  bad.in(nullptr, DType::Float32, {4}).out(nullptr, DType::Int8, {4});
  bad.ints = {0};
  bad.floats = {0.0f};
  EXPECT_EQ(check_quantize_s8(bad.ctx()), Status::BadQuantization);
  bad.floats = {INFINITY};
  EXPECT_EQ(check_quantize_s8(bad.ctx()), Status::BadQuantization);
  bad.floats = {1.0f};
  bad.ints = {128};
  EXPECT_EQ(check_quantize_s8(bad.ctx()), Status::BadQuantization);
  bad.ints = {0};
  bad.outs[0].dtype = DType::Float32;
  EXPECT_EQ(check_quantize_s8(bad.ctx()), Status::BadOpSignature);
}

TEST(DequantizeS8, ExactFloatProduct) {
  std::vector<int8_t> in(256);
  std::vector<float> out(256);
  for (int i = 0; i < 256; ++i) in[i] = static_cast<int8_t>(i - 128);
  OpBuilder op;
  op.in(in.data(), DType::Int8, {256}).out(out.data(), DType::Float32, {256});
  op.ints = {-128};
  op.floats = {0.0123f};
  ASSERT_EQ(check_dequantize_s8(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_dequantize_s8(op.ctx()), Status::Ok);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(out[i], static_cast<float>(i) * 0.0123f);
  op.floats = {-1.0f};
  EXPECT_EQ(check_dequantize_s8(op.ctx()), Status::BadQuantization);
  op.floats = {1.0f};
  op.ints = {200};
  EXPECT_EQ(check_dequantize_s8(op.ctx()), Status::BadQuantization);
}

}  // namespace
}  // namespace ember::kernels
