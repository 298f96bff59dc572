//===- op_info.h - The Ember op set and its traits, from ops.def ----------===//
//
// Passes ask what an op is (elementwise, free of layout, keeping its input's quantization) of
// this table instead of keeping lists of kinds; compiler/ops.def declares every fact once.

#pragma once

#include <cstdint>
#include <string>

#include "ember/kernels/portable/unary_f32.h"

namespace ember::compiler {

// The traits of ops.def (each explained there) with their names for tools, one bit each.
#define EMBER_OP_TRAITS(X) \
  X(Unary, "unary") X(Binary, "binary") X(AnyLayout, "any_layout") X(SameQuant, "same_quant") \
  X(Table, "table") X(Int8, "int8") X(ScalarTable, "scalar_table")

enum OpTraitBit : uint8_t {
#define EMBER_OP_TRAIT_BIT(name, text) name##Bit,
  EMBER_OP_TRAITS(EMBER_OP_TRAIT_BIT)
#undef EMBER_OP_TRAIT_BIT
  kNumOpTraits
};

enum OpTrait : uint8_t {
#define EMBER_OP_TRAIT(name, text) name = 1 << name##Bit,
  EMBER_OP_TRAITS(EMBER_OP_TRAIT)
#undef EMBER_OP_TRAIT
};

/// Each trait and its name, in bit order.
inline constexpr struct {
  OpTrait trait;
  const char* name;
} kOpTraitNames[] = {
#define EMBER_OP_TRAIT_NAME(name, text) {name, text},
    EMBER_OP_TRAITS(EMBER_OP_TRAIT_NAME)
#undef EMBER_OP_TRAIT_NAME
};

struct OpInfo {
  const char* kind;
  uint8_t traits;
  const char* aten;  // renamed one for one by legalize; "" when legalize builds the op
  bool has_fn;       // a Unary op's float function is `fn`
  kernels::UnaryOp fn;
  const char* kernels;  // the kernels.def kernels it runs on, space-separated

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
