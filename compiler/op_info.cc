//===- op_info.cc - The Ember op set and its traits, from ops.def ---------===//

#include "ember/compiler/op_info.h"

namespace ember::compiler {
namespace {

#define Fn(f) true, kernels::UnaryOp::f
#define NoFn false, kernels::UnaryOp::Neg
#define EMBER_OP(kind, traits, aten, fn, kernels) {#kind, static_cast<uint8_t>(traits), aten, fn, kernels},
constexpr OpInfo kOps[] = {
#include "ember/compiler/ops.def"
};
#undef EMBER_OP
#undef NoFn
#undef Fn

}  // namespace

const OpInfo* op_info(const std::string& kind) {
  for (const OpInfo& op : kOps)
    if (kind == op.kind) return &op;
  return nullptr;
}

const OpInfo* op_table(size_t* count) {
  *count = sizeof(kOps) / sizeof(kOps[0]);
  return kOps;
}

}  // namespace ember::compiler
