//===- kernel_table.h - The compiler's view of kernels/kernels.def --------===//

#pragma once

#include <string>

namespace ember::compiler {

struct KernelInfo {
  const char* name;
  int inputs;   // -1: variadic
  int outputs;
  int ints;     // -1: variadic
  int floats;
};

/// The id of kernel `name` in kernels.def, or -1.
int kernel_id(const std::string& name);
/// kernels.def row `id`; nullptr when out of range.
const KernelInfo* kernel_info(int id);
int num_kernels();

}  // namespace ember::compiler
