//===- copy.h - Byte copy between two tensors -------------------*- C++ -*-===//
//
// The copy kernel: moves a tensor's bytes into another buffer when a view-only op (reshape,
// flatten, squeeze) cannot alias, e.g. a graph input that is also a graph output.

#pragma once

#include <stddef.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// Copies `bytes` bytes; the buffers may overlap (memmove).
void copy(size_t bytes, const void* input, void* output);

/// Operands: input -> output of the same dtype and element count (shapes may differ).
rt::Status check_copy(const rt::OpContext& ctx);
rt::Status run_copy(const rt::OpContext& ctx);

}  // namespace ember::kernels
