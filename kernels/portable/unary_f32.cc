//===- unary_f32.cc - Reference float32 elementwise functions -------------===//
//
// Constants and operation order are PyTorch's (aten/src/ATen/native/cpu), so the float
// reference graph and Ember round the same way.

#include "ember/kernels/portable/unary_f32.h"

#include <math.h>

#include "ember/kernels/kernels.h"
#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

// std::min(std::max(v, 0), 6) as PyTorch writes it: NaN propagates (fminf/fmaxf would drop it).
static float relu6_nan(float v) {
  v = v < 0.0f ? 0.0f : v;
  return 6.0f < v ? 6.0f : v;
}

float unary_op_f32(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Abs: return fabsf(x);
    case UnaryOp::Exp: return expf(x);
    case UnaryOp::Log: return logf(x);
    case UnaryOp::Sqrt: return sqrtf(x);
    case UnaryOp::Rsqrt: return 1.0f / sqrtf(x);
    case UnaryOp::Sigmoid: return 1.0f / (1.0f + expf(-x));
    case UnaryOp::Tanh: return tanhf(x);
    case UnaryOp::Hardswish: return x * relu6_nan(x + 3.0f) / 6.0f;
    case UnaryOp::Hardsigmoid: return relu6_nan(x + 3.0f) / 6.0f;
    case UnaryOp::Silu: return x / (1.0f + expf(-x));
    case UnaryOp::Mish: return x * tanhf(log1pf(expf(x)));
    case UnaryOp::GeluErf: {
      const float kAlpha = 0.70710678118654752440f;  // M_SQRT1_2, not in strict C++
      return 0.5f * x * (1.0f + erff(x * kAlpha));
    }
    case UnaryOp::GeluTanh: {
      const float kBeta = 0.79788456080286535588f;  // M_SQRT2 * M_2_SQRTPI * 0.5
      const float kKappa = 0.044715f;
      const float inner = kBeta * (x + kKappa * (x * x * x));
      return 0.5f * x * (1.0f + tanhf(inner));
    }
  }
  return NAN;
}

void unary_f32(UnaryOp op, size_t count, const float* input, float* output) {
  for (size_t i = 0; i < count; ++i) output[i] = unary_op_f32(op, input[i]);
}

float leaky_relu_value(float x, float slope) { return x > 0.0f ? x : x * slope; }

float elu_value(float x, float alpha, float scale, float input_scale) {
  return x > 0.0f ? x * scale : expm1f(x * input_scale) * (alpha * scale);
}

void clamp_f32(size_t count, float lo, float hi, const float* input, float* output) {
  for (size_t i = 0; i < count; ++i) output[i] = clamp_float(input[i], lo, hi);
}

static Status check_unary(const OpContext& c, int ints, int floats) {
  EMBER_KCHECK(has_counts(c, 1, 1, ints, floats), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == DType::Float32 && out.dtype == DType::Float32, BadOpSignature);
  EMBER_KCHECK(same_shape(in, out), BadShape);
  return Status::Ok;
}

static Status run_unary(const OpContext& c, UnaryOp op) {
  unary_f32(op, c.in(0).num_elements(), c.in(0).as<const float>(), c.out(0).as<float>());
  return Status::Ok;
}

#define EMBER_UNARY_F32(name, op)                                                    \
  rt::Status check_##name(const rt::OpContext& c) { return check_unary(c, 0, 0); }   \
  rt::Status run_##name(const rt::OpContext& c) { return run_unary(c, op); }

EMBER_UNARY_F32(neg_f32, UnaryOp::Neg)
EMBER_UNARY_F32(abs_f32, UnaryOp::Abs)
EMBER_UNARY_F32(exp_f32, UnaryOp::Exp)
EMBER_UNARY_F32(log_f32, UnaryOp::Log)
EMBER_UNARY_F32(sqrt_f32, UnaryOp::Sqrt)
EMBER_UNARY_F32(rsqrt_f32, UnaryOp::Rsqrt)
EMBER_UNARY_F32(sigmoid_f32, UnaryOp::Sigmoid)
EMBER_UNARY_F32(tanh_f32, UnaryOp::Tanh)
EMBER_UNARY_F32(hardswish_f32, UnaryOp::Hardswish)
EMBER_UNARY_F32(hardsigmoid_f32, UnaryOp::Hardsigmoid)
EMBER_UNARY_F32(silu_f32, UnaryOp::Silu)
EMBER_UNARY_F32(mish_f32, UnaryOp::Mish)

#undef EMBER_UNARY_F32

rt::Status check_gelu_f32(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(check_unary(c, 1, 0));
  EMBER_KCHECK(c.ints[0] == 0 || c.ints[0] == 1, BadOpParameter);
  return Status::Ok;
}

rt::Status run_gelu_f32(const rt::OpContext& c) {
  return run_unary(c, c.ints[0] == 1 ? UnaryOp::GeluTanh : UnaryOp::GeluErf);
}

rt::Status check_clamp_f32(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(check_unary(c, 0, 2));
  EMBER_KCHECK(valid_act_f32(c.floats[0], c.floats[1]), BadOpParameter);
  return Status::Ok;
}

rt::Status run_clamp_f32(const rt::OpContext& c) {
  clamp_f32(c.in(0).num_elements(), c.floats[0], c.floats[1], c.in(0).as<const float>(),
            c.out(0).as<float>());
  return Status::Ok;
}

rt::Status check_leaky_relu_f32(const rt::OpContext& c) { return check_unary(c, 0, 1); }

rt::Status run_leaky_relu_f32(const rt::OpContext& c) {
  const float* in = c.in(0).as<const float>();
  float* out = c.out(0).as<float>();
  for (size_t i = 0; i < c.in(0).num_elements(); ++i) out[i] = leaky_relu_value(in[i], c.floats[0]);
  return Status::Ok;
}

rt::Status check_elu_f32(const rt::OpContext& c) { return check_unary(c, 0, 3); }

rt::Status run_elu_f32(const rt::OpContext& c) {
  const float* in = c.in(0).as<const float>();
  float* out = c.out(0).as<float>();
  for (size_t i = 0; i < c.in(0).num_elements(); ++i) out[i] = elu_value(in[i], c.floats[0], c.floats[1], c.floats[2]);
  return Status::Ok;
}

}  // namespace ember::kernels
