//===- pad.h - Constant padding of any element type -------------*- C++ -*-===//
//
// Constant padding (F.pad, mode "constant") as a byte move on the element size, so one
// implementation serves pad_s8 and pad_f32. Padding folded into a conv or pool never gets here.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// out has dims out_dims; element [i_0 + before_0, ...] is input element [i_0, ...], every other
/// element is the `elem_size` bytes at pad_value. Requires rank <= 5, before[d] >= 0 and
/// out_dims[d] >= in_dims[d] + before[d]. Input and output must not overlap.
void pad(int rank, const int32_t* in_dims, const int32_t* before, const int32_t* out_dims,
         size_t elem_size, const void* pad_value, const void* input, void* output);

/// pad_s8: input (int8) -> output (int8, same rank). ints: pad_value in [-128, 127], then the
/// padding before each dimension (padding after = out - in - before, both >= 0).
rt::Status check_pad_s8(const rt::OpContext& ctx);
rt::Status run_pad_s8(const rt::OpContext& ctx);

/// pad_f32: input (float32) -> output (float32). ints: padding before each dimension;
/// floats: pad_value.
rt::Status check_pad_f32(const rt::OpContext& ctx);
rt::Status run_pad_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
