//===- unary_functions.h - Float definitions of Ember's unary ops ---------===//
//
// The exact float functions behind the unary ops, as PyTorch defines them, for building int8
// lookup tables at compile time.

#pragma once

#include <algorithm>
#include <cmath>

#include "compiler/ir.h"

namespace ember::compiler {

/// x op c, or c op x when the number came first (the requantize pass's scalar_function).
inline float apply_scalar(const Op& op, float x) {
  const std::string& k = op.kind;
  const float c = static_cast<float>(op.f("scalar"));
  const float a = op.i("scalar_first") ? c : x, b = op.i("scalar_first") ? x : c;
  if (k == "add") return a + b;
  if (k == "sub") return a - b;
  if (k == "mul") return a * b;
  if (k == "div") return a / b;
  return std::pow(a, b);  // pow
}

inline float apply_unary(const Op& op, float x) {
  const std::string& k = op.kind;
  if (op.has("scalar")) return apply_scalar(op, x);
  if (k == "neg") return -x;
  if (k == "abs") return std::fabs(x);
  if (k == "exp") return std::exp(x);
  if (k == "log") return std::log(x);
  if (k == "sqrt") return std::sqrt(x);
  if (k == "rsqrt") return 1.0f / std::sqrt(x);
  if (k == "sigmoid") return 1.0f / (1.0f + std::exp(-x));
  if (k == "tanh") return std::tanh(x);
  if (k == "hardswish") return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
  if (k == "hardsigmoid") return std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
  if (k == "silu") return x / (1.0f + std::exp(-x));
  if (k == "gelu") {
    if (op.i("approximate")) {
      const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
      return 0.5f * x * (1.0f + std::tanh(inner));
    }
    return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f));
  }
  if (k == "clamp") {
    return static_cast<float>(std::min(std::max(static_cast<double>(x), op.f("min")), op.f("max")));
  }
  return x;
}

}  // namespace ember::compiler
