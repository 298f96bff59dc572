//===- kernels.h - Declarations of every kernel adapter ---------*- C++ -*-===//
//
// check_<name> and run_<name> for every line of kernels.def, declared from the list itself so
// the declarations cannot drift from it. check_ validates an op's operands once at load time
// (never reading tensor data); run_ trusts it and computes. The pure kernels and their
// documentation live in kernels/portable/<stem>.h.

#pragma once

#include "ember/runtime/op_context.h"

namespace ember::kernels {

#define EMBER_KERNEL(name, inputs, outputs, ints, floats, in_place, optimized) \
  rt::Status check_##name(const rt::OpContext& ctx);                           \
  rt::Status run_##name(const rt::OpContext& ctx);
#include "ember/kernels/kernels.def"
#undef EMBER_KERNEL

}  // namespace ember::kernels
