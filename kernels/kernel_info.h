//===- kernel_info.h - Names and signatures of the kernels ------*- C++ -*-===//
//
// Host-friendly metadata from kernels.def (no function pointers, so it links without the
// kernels): names for messages and tools, and the operand/parameter counts (-1: variadic) a
// verifier or the compiler can check an op against before calling the kernel's own check.

#pragma once

#include <stddef.h>
#include <stdint.h>

namespace ember::kernels {

struct KernelInfo {
  const char* name;
  int8_t inputs;   // -1: variadic
  int8_t outputs;
  int8_t ints;     // -1: variadic
  int8_t floats;
};

/// The kernel with id `id`, or nullptr when id >= kernel_count().
const KernelInfo* kernel_info(size_t id);

/// The name of kernel `id`, or "unknown".
const char* kernel_name(size_t id);

/// The number of kernels in kernels.def.
size_t kernel_count();

}  // namespace ember::kernels
