//===- unary_functions.h - Float definitions of Ember's unary ops ---------===//
//
// The float functions behind the unary ops, for building int8 lookup tables at compile time:
// the portable float kernels' own (kernels/portable/unary_f32.h, written as PyTorch writes
// them; ops.def names each op's), and the scalar forms of the binary ops.

#pragma once

#include <algorithm>
#include <cmath>

#include "ember/compiler/ir.h"
#include "ember/compiler/op_info.h"

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
  if (op.has("scalar")) return apply_scalar(op, x);
  if (op.kind == "clamp")
    return static_cast<float>(std::min(std::max(static_cast<double>(x), op.f("min")), op.f("max")));
  const auto f = [&](const char* key) { return static_cast<float>(op.f(key)); };
  if (op.kind == "leaky_relu") return kernels::leaky_relu_value(x, f("slope"));
  if (op.kind == "elu") return kernels::elu_value(x, f("alpha"), f("scale"), f("input_scale"));
  const OpInfo* info = op_info(op.kind);
  if (info == nullptr || !info->has_fn) return x;
  const bool tanh_gelu = op.kind == "gelu" && op.i("approximate");
  return kernels::unary_op_f32(tanh_gelu ? kernels::UnaryOp::GeluTanh : info->fn, x);
}

}  // namespace ember::compiler
