//===- kernel_info.cc - Names and signatures of the kernels ---------------===//
//
// Constant data from the X-macro; kept apart from the function table so host tools can use it
// without linking any kernel.

#include "ember/kernels/kernel_info.h"

namespace ember::kernels {

namespace {

constexpr KernelInfo kKernelInfo[] = {
#define EMBER_KERNEL(name, inputs, outputs, ints, floats, in_place, optimized) \
  {#name, inputs, outputs, ints, floats, rt::InPlaceRule::in_place, kOptimized##optimized},
#include "ember/kernels/kernels.def"
#undef EMBER_KERNEL
};

constexpr size_t kCount = sizeof(kKernelInfo) / sizeof(kKernelInfo[0]);

}  // namespace

const KernelInfo* kernel_info(size_t id) { return id < kCount ? &kKernelInfo[id] : nullptr; }

const char* kernel_name(size_t id) { return id < kCount ? kKernelInfo[id].name : "unknown"; }

size_t kernel_count() { return kCount; }

}  // namespace ember::kernels
