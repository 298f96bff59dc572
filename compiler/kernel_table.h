//===- kernel_table.h - The compiler's view of kernels/kernels.def --------===//
//
// Names and operand counts come from the kernels library's own table (kernels/kernel_info.h);
// the compiler adds the reverse lookup from a name to its id.

#pragma once

#include <string>

#include "ember/kernels/kernel_info.h"

namespace ember::compiler {

using kernels::KernelInfo;

/// kernels.def row `id`; nullptr when out of range (negative ids included).
inline const KernelInfo* kernel_info(int id) {
  return id < 0 ? nullptr : kernels::kernel_info(static_cast<size_t>(id));
}

/// The id of kernel `name` in kernels.def, or -1.
int kernel_id(const std::string& name);

}  // namespace ember::compiler
