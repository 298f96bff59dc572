//===- kernel_table.cc - Kernel ids by name -------------------------------===//

#include "ember/compiler/kernel_table.h"

namespace ember::compiler {

int kernel_id(const std::string& name) {
  for (size_t i = 0; i < kernels::kernel_count(); ++i)
    if (name == kernels::kernel_name(i)) return static_cast<int>(i);
  return -1;
}

}  // namespace ember::compiler
