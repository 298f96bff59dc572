//===- transpose.h - Axis permutation of any element type -------*- C++ -*-===//
//
// permute/transpose as a strided element move on the element size, so one implementation
// serves transpose_s8 and transpose_f32. The layout pass removes most transposes; this handles
// the ones a model really computes.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// Output dim d is input dim perm[d]: out[i_0, ..., i_{r-1}] = in[j] with j[perm[d]] = i_d.
/// Requires rank <= 5 and perm a permutation of 0..rank-1. elem_size 1 and 4 take fast paths;
/// any size works. Input and output must not overlap.
void transpose(int rank, const int32_t* in_dims, const int32_t* perm, size_t elem_size,
               const void* input, void* output);

/// Operands: input -> output of the same dtype (int8 / float32), output dims[d] ==
/// input dims[perm[d]]. ints: perm (one per dimension).
rt::Status check_transpose_s8(const rt::OpContext& ctx);
rt::Status run_transpose_s8(const rt::OpContext& ctx);
rt::Status check_transpose_f32(const rt::OpContext& ctx);
rt::Status run_transpose_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
