//===- kernel_table.cc - The kernel table with the optimized entries ------===//
//
// Built at compile time (constant data, no static constructor): every kernels.def row whose
// `optimized` column is Arm takes ember::kernels::arm's entry, every other (Portable, Bytes) the
// portable one.

#include "ember/kernels/arm/kernels.h"

#include "ember/kernels/kernels.h"
#include "ember/runtime/op_signatures.h"

namespace ember::kernels::arm {
namespace {

struct Table {
  rt::KernelEntry entries[rt::kNumKnownKernels];
};

constexpr Table make_table() {
  Table t{};
#define EMBER_ENTRY_Portable(name) {&kernels::check_##name, &kernels::run_##name}
#define EMBER_ENTRY_Bytes(name) EMBER_ENTRY_Portable(name)
#define EMBER_ENTRY_Arm(name) {&arm::check_##name, &arm::run_##name}
#define EMBER_KERNEL(name, inputs, outputs, ints, floats, in_place, optimized) \
  t.entries[static_cast<size_t>(rt::KernelId::name)] = EMBER_ENTRY_##optimized(name);
#include "ember/kernels/kernels.def"
#undef EMBER_KERNEL
#undef EMBER_ENTRY_Portable
#undef EMBER_ENTRY_Bytes
#undef EMBER_ENTRY_Arm
  return t;
}

constexpr Table kTable = make_table();

}  // namespace

rt::KernelTable arm_kernel_table() { return rt::KernelTable{kTable.entries, rt::kNumKnownKernels}; }

}  // namespace ember::kernels::arm
