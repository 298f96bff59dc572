//===- kernels.h - The optimized kernels' adapters and their table -*- C++ -*-===//
//
// check_<name>/run_<name> in ember::kernels::arm for every line of optimized.def, and the
// runtime table that uses them in place of the portable entries (for applications and tests
// that link every kernel; firmware built by `ember export-c` gets a selective table instead).

#pragma once

#include "runtime/kernel_registry.h"
#include "runtime/op_context.h"

namespace ember::kernels::arm {

#define EMBER_OPTIMIZED(name)                          \
  rt::Status check_##name(const rt::OpContext& ctx); \
  rt::Status run_##name(const rt::OpContext& ctx);
#include "kernels/arm/optimized.def"
#undef EMBER_OPTIMIZED

/// Every kernel of kernels.def: the optimized entry where optimized.def lists one, else the
/// portable one.
rt::KernelTable arm_kernel_table();

}  // namespace ember::kernels::arm
