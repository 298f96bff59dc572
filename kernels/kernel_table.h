//===- kernel_table.h - The portable kernels' function table ----*- C++ -*-===//
//
// One entry per line of kernels.def, indexed by kernel id (the position in the list), in the
// runtime's KernelEntry form so an application passes it straight to Program::load. The table
// is constant data (no static constructors); an application that links it links every kernel.
// A selective build generates a smaller table with null entries for the kernels it leaves out.

#pragma once

#include <stddef.h>

#include "ember/runtime/kernel_registry.h"

namespace ember::kernels {

/// {check, run}: check validates an op's operands at load time and reads no tensor data; run
/// computes the op and trusts check.
using KernelEntry = rt::KernelEntry;

extern const KernelEntry kKernelTable[];
extern const size_t kNumKernels;

/// The whole table as the runtime's view of it.
inline rt::KernelTable portable_kernel_table() {
  return rt::KernelTable{kKernelTable, kNumKernels};
}

}  // namespace ember::kernels
