//===- kernel_registry.h - The kernel functions a build links in ---------===//
//
// The runtime does not link the kernels library: the application hands Program::load a table
// indexed by kernel id (the position in kernels/kernels.def). The kernels library provides one
// for the kernels it compiled; a selective build leaves the unused entries null. Keeping the
// table a plain array of function pointers means no static-initialiser registration and no
// whole-archive linking (STYLE.md, Registration).

#pragma once

#include <stddef.h>

#include "ember/runtime/op_context.h"

namespace ember::rt {

/// The two functions of one kernel. `check` validates an op's operand views and parameters at
/// load time and must not read tensor data (arena operands point at a placeholder then);
/// `run` executes the op and may assume `check` returned Ok for the same op. Both null means
/// the kernel is not linked into this build.
struct KernelEntry {
  KernelFn check;
  KernelFn run;
};

/// A view of the kernel table: entries[id] for id < size. The entries must outlive every
/// Program loaded with the table (in practice it is a `const` array in flash).
struct KernelTable {
  const KernelEntry* entries = nullptr;
  size_t size = 0;
};

}  // namespace ember::rt
