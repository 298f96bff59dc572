//===- kernel_table.cc - The runtime's kernel function table --------------===//
//
// Built from kernels.def with the X-macro: a kernel added to the list without its adapters
// fails to link instead of failing at run time.

#include "ember/kernels/kernel_table.h"

#include "ember/kernels/kernels.h"

namespace ember::kernels {

const KernelEntry kKernelTable[] = {
#define EMBER_KERNEL(name, inputs, outputs, ints, floats, in_place, optimized) {&check_##name, &run_##name},
#include "ember/kernels/kernels.def"
#undef EMBER_KERNEL
};

const size_t kNumKernels = sizeof(kKernelTable) / sizeof(kKernelTable[0]);

}  // namespace ember::kernels
