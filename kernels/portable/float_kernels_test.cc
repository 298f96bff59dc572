//===- float_kernels_test.cc - Tests of the float32 kernels ---------------===//
//
// Float convolutions and linear layer against the double reference (relative tolerance: the
// summation order differs), binary and unary ops against PyTorch's formulas evaluated here in
// double, softmax, and the checks' rejections.

#include <gtest/gtest.h>

#include "ember/kernels/portable/binary_f32.h"
#include "ember/kernels/portable/conv2d_f32.h"
#include "ember/kernels/portable/fully_connected_f32.h"
#include "ember/kernels/portable/softmax_f32.h"
#include "ember/kernels/portable/test_util.h"
#include "ember/kernels/portable/unary_f32.h"
#include "ember/kernels/kernels.h"

namespace ember::kernels {
namespace {

using namespace testing;

TEST(Conv2dF32, RandomAgainstReference) {
  std::mt19937 rng(80);
  int cases = 0;
  while (cases < 200) {
    const bool depthwise = rand_int(rng, 0, 1) == 1;
    const int n = rand_int(rng, 1, 2), groups = rand_int(rng, 1, 3);
    const int c = depthwise ? rand_int(rng, 1, 5) : groups * rand_int(rng, 1, 3);
    const int o = depthwise ? c * rand_int(rng, 1, 2) : groups * rand_int(rng, 1, 3);
    const int fc = depthwise ? o : c / groups;
    Axis ay{rand_int(rng, 1, 8), rand_int(rng, 1, 3), rand_int(rng, 1, 2), rand_int(rng, 0, 2),
            rand_int(rng, 1, 2), 0};
    Axis ax{rand_int(rng, 1, 8), rand_int(rng, 1, 3), rand_int(rng, 1, 2), rand_int(rng, 0, 2),
            rand_int(rng, 1, 2), 0};
    ay.out = out_size(ay.in, ay.k, ay.stride, ay.pad, ay.pad, ay.dil);
    ax.out = out_size(ax.in, ax.k, ax.stride, ax.pad, ax.pad + 1, ax.dil);
    if (ay.out < 1 || ax.out < 1) continue;
    ++cases;
    auto in = random_f32(rng, static_cast<size_t>(n) * ay.in * ax.in * c);
    auto w = random_f32(rng, static_cast<size_t>(depthwise ? 1 : o) * ay.k * ax.k * fc);
    auto bias = random_f32(rng, o);
    std::vector<double> din(in.begin(), in.end()), dw(w.begin(), w.end()),
        db(bias.begin(), bias.end());
    const auto ref = ref_conv(din, n, ay, ax, c, dw, o, fc, depthwise, &db);
    std::vector<float> out(ref.size());
    OpBuilder op;
    op.in(in.data(), DType::Float32, {n, ay.in, ax.in, c});
    op.in(w.data(), DType::Float32, {depthwise ? 1 : o, ay.k, ax.k, fc});
    op.in(bias.data(), DType::Float32, {o}).out(out.data(), DType::Float32, {n, ay.out, ax.out, o});
    op.ints = {ay.stride, ax.stride, ay.pad, ax.pad, ay.dil, ax.dil};
    op.floats = {-0.5f, 1e30f};
    const auto check = depthwise ? check_depthwise_conv2d_f32 : check_conv2d_f32;
    const auto run = depthwise ? run_depthwise_conv2d_f32 : run_conv2d_f32;
    ASSERT_EQ(check(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run(op.ctx()), Status::Ok);
    for (size_t i = 0; i < ref.size(); ++i)
      ASSERT_NEAR(out[i], std::max(ref[i], -0.5), 1e-5) << "case " << cases;
  }
}

TEST(Conv2dF32, CheckRejects) {
  OpBuilder op;
  op.in(nullptr, DType::Float32, {1, 4, 4, 2}).in(nullptr, DType::Float32, {3, 3, 3, 2});
  op.absent().out(nullptr, DType::Float32, {1, 2, 2, 3});
  op.ints = {1, 1, 0, 0, 1, 1};
  op.floats = {-INFINITY, INFINITY};
  EXPECT_EQ(check_conv2d_f32(op.ctx()), Status::Ok);
  op.floats = {1.0f, 0.0f};
  EXPECT_EQ(check_conv2d_f32(op.ctx()), Status::BadOpParameter);
  op.floats = {NAN, 0.0f};
  EXPECT_EQ(check_conv2d_f32(op.ctx()), Status::BadOpParameter);
  op.floats = {0.0f, 6.0f};
  op.ins[2] = view(nullptr, DType::Float32, {2});
  EXPECT_EQ(check_conv2d_f32(op.ctx()), Status::BadShape);
  op.ins[2] = view(nullptr, DType::Int32, {3});
  EXPECT_EQ(check_conv2d_f32(op.ctx()), Status::BadOpSignature);
  op.ins[2] = TensorView{};
  op.outs[0].dims[2] = 4;
  EXPECT_EQ(check_conv2d_f32(op.ctx()), Status::BadShape);
  EXPECT_EQ(check_depthwise_conv2d_f32(op.ctx()), Status::BadShape);
}

TEST(FullyConnectedF32, RandomAgainstReference) {
  std::mt19937 rng(81);
  for (int t = 0; t < 100; ++t) {
    const int rows = rand_int(rng, 1, 5), k = rand_int(rng, 1, 50), o = rand_int(rng, 1, 9);
    auto in = random_f32(rng, static_cast<size_t>(rows) * k), w = random_f32(rng, o * k);
    std::vector<float> out(static_cast<size_t>(rows) * o);
    OpBuilder op;
    op.in(in.data(), DType::Float32, {rows, k}).in(w.data(), DType::Float32, {o, k}).absent();
    op.out(out.data(), DType::Float32, {rows, o});
    op.floats = {0.0f, 6.0f};
    ASSERT_EQ(check_fully_connected_f32(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_fully_connected_f32(op.ctx()), Status::Ok);
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < o; ++j) {
        double acc = 0;
        for (int i = 0; i < k; ++i) acc += double{in[r * k + i]} * w[j * k + i];
        ASSERT_NEAR(out[r * o + j], std::clamp(acc, 0.0, 6.0), 1e-5);
      }
  }
  OpBuilder bad;
  bad.in(nullptr, DType::Float32, {2, 4}).in(nullptr, DType::Float32, {3, 4}).absent();
  bad.out(nullptr, DType::Float32, {2, 3});
  bad.floats = {0.0f};
  EXPECT_EQ(check_fully_connected_f32(bad.ctx()), Status::BadOpSignature);
}

TEST(BinaryF32, BroadcastsAndMatchesPytorchSemantics) {
  const float a[6] = {1, -2, 3, NAN, 0.5f, 4};   // [2, 3]
  const float b[3] = {2, 0.5f, -1};              // [3]
  const struct {
    rt::KernelFn check, run;
    BinaryOp op;
  } ops[] = {{check_add_f32, run_add_f32, BinaryOp::Add},
             {check_sub_f32, run_sub_f32, BinaryOp::Sub},
             {check_mul_f32, run_mul_f32, BinaryOp::Mul},
             {check_div_f32, run_div_f32, BinaryOp::Div},
             {check_minimum_f32, run_minimum_f32, BinaryOp::Minimum},
             {check_maximum_f32, run_maximum_f32, BinaryOp::Maximum},
             {check_pow_f32, run_pow_f32, BinaryOp::Pow}};
  for (const auto& k : ops) {
    float out[6];
    OpBuilder op;
    op.in(a, DType::Float32, {2, 3}).in(b, DType::Float32, {3}).out(out, DType::Float32, {2, 3});
    op.floats = {-INFINITY, INFINITY};
    ASSERT_EQ(k.check(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(k.run(op.ctx()), Status::Ok);
    for (int i = 0; i < 6; ++i) {
      const float x = a[i], y = b[i % 3];
      float e = 0;
      switch (k.op) {
        case BinaryOp::Add: e = x + y; break;
        case BinaryOp::Sub: e = x - y; break;
        case BinaryOp::Mul: e = x * y; break;
        case BinaryOp::Div: e = x / y; break;
        case BinaryOp::Minimum: e = std::isnan(x) ? NAN : std::min(x, y); break;
        case BinaryOp::Maximum: e = std::isnan(x) ? NAN : std::max(x, y); break;
        case BinaryOp::Pow: e = std::pow(x, y); break;
      }
      if (std::isnan(e)) {
        EXPECT_TRUE(std::isnan(out[i])) << static_cast<int>(k.op) << " " << i;
      } else {
        EXPECT_EQ(out[i], e) << static_cast<int>(k.op) << " " << i;
      }
    }
  }
  // Fused clamp, and the shape check.
  float out[6];
  OpBuilder op;
  op.in(a, DType::Float32, {2, 3}).in(b, DType::Float32, {1, 3}).out(out, DType::Float32, {2, 3});
  op.floats = {0.0f, 2.0f};
  ASSERT_EQ(run_add_f32(op.ctx()), Status::Ok);
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_TRUE(std::isnan(out[3]));
  op.ins[1].dims[1] = 2;
  EXPECT_EQ(check_mul_f32(op.ctx()), Status::BadShape);
  op.ins[1].dims[1] = 3;
  op.outs[0].dims[0] = 1;
  EXPECT_EQ(check_mul_f32(op.ctx()), Status::BadShape);
}

double ref_unary(UnaryOp op, double x) {
  const double relu6 = std::min(std::max(x + 3, 0.0), 6.0);
  switch (op) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Abs: return std::fabs(x);
    case UnaryOp::Exp: return std::exp(x);
    case UnaryOp::Log: return std::log(x);
    case UnaryOp::Sqrt: return std::sqrt(x);
    case UnaryOp::Rsqrt: return 1 / std::sqrt(x);
    case UnaryOp::Sigmoid: return 1 / (1 + std::exp(-x));
    case UnaryOp::Tanh: return std::tanh(x);
    case UnaryOp::Hardswish: return x * relu6 / 6;
    case UnaryOp::Hardsigmoid: return relu6 / 6;
    case UnaryOp::Silu: return x / (1 + std::exp(-x));
    case UnaryOp::Mish: return x * std::tanh(std::log1p(std::exp(x)));
    case UnaryOp::GeluErf: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case UnaryOp::GeluTanh:
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  }
  return NAN;
}

TEST(UnaryF32, MatchesDoubleFormulas) {
  const struct {
    rt::KernelFn check, run;
    UnaryOp op;
    bool positive;
  } ops[] = {{check_neg_f32, run_neg_f32, UnaryOp::Neg, false},
             {check_abs_f32, run_abs_f32, UnaryOp::Abs, false},
             {check_exp_f32, run_exp_f32, UnaryOp::Exp, false},
             {check_log_f32, run_log_f32, UnaryOp::Log, true},
             {check_sqrt_f32, run_sqrt_f32, UnaryOp::Sqrt, true},
             {check_rsqrt_f32, run_rsqrt_f32, UnaryOp::Rsqrt, true},
             {check_sigmoid_f32, run_sigmoid_f32, UnaryOp::Sigmoid, false},
             {check_tanh_f32, run_tanh_f32, UnaryOp::Tanh, false},
             {check_hardswish_f32, run_hardswish_f32, UnaryOp::Hardswish, false},
             {check_hardsigmoid_f32, run_hardsigmoid_f32, UnaryOp::Hardsigmoid, false},
             {check_silu_f32, run_silu_f32, UnaryOp::Silu, false},
             {check_mish_f32, run_mish_f32, UnaryOp::Mish, false}};
  std::mt19937 rng(82);
  auto in = random_f32(rng, 1000, -8, 8);
  in[0] = -3, in[1] = 3, in[2] = 0;  // hardswish/hardsigmoid corners
  std::vector<float> pos(in.size()), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) pos[i] = std::fabs(in[i]) + 1e-3f;
  for (const auto& k : ops) {
    const auto& x = k.positive ? pos : in;
    OpBuilder op;
    op.in(x.data(), DType::Float32, {10, 100}).out(out.data(), DType::Float32, {10, 100});
    ASSERT_EQ(k.check(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(k.run(op.ctx()), Status::Ok);
    for (size_t i = 0; i < x.size(); ++i) {
      const double e = ref_unary(k.op, x[i]);
      ASSERT_NEAR(out[i], e, 2e-6 * std::max(1.0, std::fabs(e))) << static_cast<int>(k.op);
    }
  }
  // gelu both ways, via the approximate flag.
  for (int approximate = 0; approximate <= 1; ++approximate) {
    OpBuilder op;
    op.in(in.data(), DType::Float32, {1000}).out(out.data(), DType::Float32, {1000});
    op.ints = {approximate};
    ASSERT_EQ(check_gelu_f32(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_gelu_f32(op.ctx()), Status::Ok);
    const UnaryOp u = approximate ? UnaryOp::GeluTanh : UnaryOp::GeluErf;
    for (size_t i = 0; i < in.size(); ++i)
      ASSERT_NEAR(out[i], ref_unary(u, in[i]), 2e-6 * std::max(1.0, std::fabs(double{in[i]})));
  }
  EXPECT_EQ(unary_op_f32(UnaryOp::Hardswish, -3.0f), 0.0f);
  EXPECT_EQ(unary_op_f32(UnaryOp::Hardswish, 3.0f), 3.0f);
  EXPECT_EQ(unary_op_f32(UnaryOp::Hardsigmoid, 0.0f), 0.5f);
  EXPECT_TRUE(std::isnan(unary_op_f32(UnaryOp::Hardswish, NAN)));
}

TEST(UnaryF32, ClampAndRejections) {
  const float in[5] = {-2, 0.5f, 7, NAN, -INFINITY};
  float out[5];
  OpBuilder op;
  op.in(in, DType::Float32, {5}).out(out, DType::Float32, {5});
  op.floats = {0.0f, 6.0f};
  ASSERT_EQ(check_clamp_f32(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_clamp_f32(op.ctx()), Status::Ok);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], 0.5f);
  EXPECT_EQ(out[2], 6.0f);
  EXPECT_TRUE(std::isnan(out[3]));
  EXPECT_EQ(out[4], 0.0f);
  op.floats = {1.0f, 0.0f};
  EXPECT_EQ(check_clamp_f32(op.ctx()), Status::BadOpParameter);
  op.floats = {};
  EXPECT_EQ(check_clamp_f32(op.ctx()), Status::BadOpSignature);
  OpBuilder gelu;
  gelu.in(nullptr, DType::Float32, {5}).out(nullptr, DType::Float32, {5});
  gelu.ints = {2};
  EXPECT_EQ(check_gelu_f32(gelu.ctx()), Status::BadOpParameter);
  gelu.ints = {};
  EXPECT_EQ(check_gelu_f32(gelu.ctx()), Status::BadOpSignature);
  EXPECT_EQ(check_exp_f32(gelu.ctx()), Status::Ok);
  gelu.outs[0].dims[0] = 4;
  EXPECT_EQ(check_exp_f32(gelu.ctx()), Status::BadShape);
  gelu.outs[0].dims[0] = 5;
  gelu.ins[0].dtype = DType::Int8;
  EXPECT_EQ(check_exp_f32(gelu.ctx()), Status::BadOpSignature);
}

TEST(SoftmaxF32, RandomAgainstDouble) {
  std::mt19937 rng(83);
  for (int t = 0; t < 50; ++t) {
    const int rows = rand_int(rng, 1, 4), depth = rand_int(rng, 1, 30);
    auto in = random_f32(rng, static_cast<size_t>(rows) * depth, -20, 20);
    std::vector<float> out(in.size());
    OpBuilder op;
    op.in(in.data(), DType::Float32, {1, rows, depth}).out(out.data(), DType::Float32, {1, rows, depth});
    ASSERT_EQ(check_softmax_f32(op.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_softmax_f32(op.ctx()), Status::Ok);
    for (int r = 0; r < rows; ++r) {
      double sum = 0;
      for (int i = 0; i < depth; ++i) sum += std::exp(double{in[r * depth + i]});
      for (int i = 0; i < depth; ++i)
        ASSERT_NEAR(out[r * depth + i], std::exp(double{in[r * depth + i]}) / sum, 1e-6);
    }
  }
  OpBuilder bad;
  bad.in(nullptr, DType::Float32, {2, 0}).out(nullptr, DType::Float32, {2, 0});
  EXPECT_EQ(check_softmax_f32(bad.ctx()), Status::BadShape);
}

}  // namespace
}  // namespace ember::kernels
