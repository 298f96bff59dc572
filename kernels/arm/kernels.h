//===- kernels.h - The optimized kernels' adapters and their table -*- C++ -*-===//
//
// check_<name>/run_<name> in ember::kernels::arm for every kernels.def row whose `optimized`
// column is Arm, and the runtime table that uses them in place of the portable entries (for
// applications and tests that link every kernel; firmware built by `ember export-c` gets a
// selective table instead).

#pragma once

#include "ember/runtime/kernel_registry.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

// EMBER_OPTIMIZED_<column>(name) expands a kernels.def row by its `optimized` column.
#define EMBER_OPTIMIZED_Portable(name)
#define EMBER_OPTIMIZED_Bytes(name)
#define EMBER_OPTIMIZED_Arm(name)                    \
  rt::Status check_##name(const rt::OpContext& ctx); \
  rt::Status run_##name(const rt::OpContext& ctx);
#define EMBER_KERNEL(name, inputs, outputs, ints, floats, in_place, optimized) EMBER_OPTIMIZED_##optimized(name)
#include "ember/kernels/kernels.def"
#undef EMBER_KERNEL
#undef EMBER_OPTIMIZED_Arm
#undef EMBER_OPTIMIZED_Portable
#undef EMBER_OPTIMIZED_Bytes

/// The conv and linear checks for host tools (python/src/host_runtime.cc): the device check,
/// then every folded bias recomputed from the weights (fold.h) and compared, BadQuantization on
/// a mismatch. Devices run the plain checks: a wrong folded bias gives wrong numbers, never an
/// access out of bounds, and recomputing it reads every weight at each load.
rt::Status check_conv2d_s8_with_fold(const rt::OpContext& ctx);
rt::Status check_depthwise_conv2d_s8_with_fold(const rt::OpContext& ctx);
rt::Status check_fully_connected_s8_with_fold(const rt::OpContext& ctx);

/// Every kernel of kernels.def: the optimized entry where its row says Arm, else the portable one.
rt::KernelTable arm_kernel_table();

}  // namespace ember::kernels::arm
