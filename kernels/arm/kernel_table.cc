//===- kernel_table.cc - The kernel table with the optimized entries ------===//
//
// Built at compile time (constant data, no static constructor): every kernels.def entry is
// the portable adapter, then optimized.def overwrites its kernels' entries.

#include "kernels/arm/kernels.h"

#include "kernels/kernels.h"
#include "runtime/op_signatures.h"

namespace ember::kernels::arm {
namespace {

struct Table {
  rt::KernelEntry entries[rt::kNumKnownKernels];
};

constexpr Table make_table() {
  Table t{};
#define EMBER_KERNEL(name, inputs, outputs, ints, floats) \
  t.entries[static_cast<size_t>(rt::KernelId::name)] = {&kernels::check_##name, &kernels::run_##name};
#include "kernels/kernels.def"
#undef EMBER_KERNEL
#define EMBER_OPTIMIZED(name) \
  t.entries[static_cast<size_t>(rt::KernelId::name)] = {&arm::check_##name, &arm::run_##name};
#include "kernels/arm/optimized.def"
#undef EMBER_OPTIMIZED
  return t;
}

constexpr Table kTable = make_table();

}  // namespace

rt::KernelTable arm_kernel_table() { return rt::KernelTable{kTable.entries, rt::kNumKnownKernels}; }

}  // namespace ember::kernels::arm
