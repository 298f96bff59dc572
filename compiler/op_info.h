//===- op_info.h - The Ember op set and its traits, from ops.def ----------===//
//
// Passes ask what an op is (elementwise, free of layout, keeping its input's quantization) of
// this table instead of keeping lists of kinds; compiler/ops.def declares every fact once.

#pragma once

#include <cstdint>
#include <string>

#include "kernels/portable/unary_f32.h"

namespace ember::compiler {

enum OpTrait : uint8_t {
  Unary = 1 << 0,
  Binary = 1 << 1,
  AnyLayout = 1 << 2,
  SameQuant = 1 << 3,
  Table = 1 << 4,
  Int8 = 1 << 5,
  ScalarTable = 1 << 6,
};

struct OpInfo {
  const char* kind;
  uint8_t traits;
  const char* aten;  // renamed one for one by legalize; "" when legalize builds the op
  bool has_fn;       // a Unary op's float function is `fn`
  kernels::UnaryOp fn;

  bool is(OpTrait t) const { return (traits & t) != 0; }
};

/// The row of `kind` (an Ember op kind), or nullptr: an aten name before legalize, or unknown.
const OpInfo* op_info(const std::string& kind);

/// Every row, in ops.def order; `count` set to their number.
const OpInfo* op_table(size_t* count);

/// Whether `kind` is a known Ember op with trait `t`.
inline bool has_trait(const std::string& kind, OpTrait t) {
  const OpInfo* info = op_info(kind);
  return info != nullptr && info->is(t);
}

}  // namespace ember::compiler
