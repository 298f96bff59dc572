//===- kernel_table.cc - The compiler's view of kernels/kernels.def -------===//

#include "compiler/kernel_table.h"

namespace ember::compiler {
namespace {

#define EMBER_KERNEL(name, inputs, outputs, ints, floats) {#name, inputs, outputs, ints, floats},
constexpr KernelInfo kKernels[] = {
#include "kernels/kernels.def"
};
#undef EMBER_KERNEL

constexpr int kCount = static_cast<int>(sizeof(kKernels) / sizeof(kKernels[0]));

}  // namespace

int num_kernels() { return kCount; }

int kernel_id(const std::string& name) {
  for (int i = 0; i < kCount; ++i)
    if (name == kKernels[i].name) return i;
  return -1;
}

const KernelInfo* kernel_info(int id) { return id >= 0 && id < kCount ? &kKernels[id] : nullptr; }

}  // namespace ember::compiler
