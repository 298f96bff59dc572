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

/// The conv and linear checks for host tools (python/src/host_runtime.cc): the device check,
/// then every folded bias recomputed from the weights (fold.h) and compared, BadQuantization on
/// a mismatch. Devices run the plain checks: a wrong folded bias gives wrong numbers, never an
/// access out of bounds, and recomputing it reads every weight at each load.
rt::Status check_conv2d_s8_with_fold(const rt::OpContext& ctx);
rt::Status check_depthwise_conv2d_s8_with_fold(const rt::OpContext& ctx);
rt::Status check_fully_connected_s8_with_fold(const rt::OpContext& ctx);

/// Every kernel of kernels.def: the optimized entry where optimized.def lists one, else the
/// portable one.
rt::KernelTable arm_kernel_table();

}  // namespace ember::kernels::arm
