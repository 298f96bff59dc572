//===- cat.h - Concatenation of any element type ----------------*- C++ -*-===//
//
// torch.cat as byte moves on the element size, so one implementation serves cat_s8 and
// cat_f32. Each input fills one slice of the output along the axis; int8 inputs share the
// output's quantization (the compiler inserts requantize_s8 where they do not).

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// Copies one input into its slice of the output. Viewing both as [outer, axis * inner]
/// byte rows: input row r (slice_bytes = its axis size * inner * elem_size) goes to output row r
/// at byte offset_bytes; output rows are out_row_bytes long. Calling this for every input, with
/// offset_bytes the sum of the previous inputs' slice_bytes, concatenates them.
void cat_slice(size_t outer, size_t slice_bytes, size_t out_row_bytes, size_t offset_bytes,
               const void* input, void* output);

/// Operands: one or more inputs -> output, all of one dtype (int8 / float32) and rank >= 1;
/// dims equal except along axis, whose sizes sum to the output's. ints: axis in [-rank, rank).
rt::Status check_cat_s8(const rt::OpContext& ctx);
rt::Status run_cat_s8(const rt::OpContext& ctx);
rt::Status check_cat_f32(const rt::OpContext& ctx);
rt::Status run_cat_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
