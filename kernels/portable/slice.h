//===- slice.h - Strided slice and spread along one axis, any element type -*- C++ -*-===//
//
// split, chunk, narrow, select, unbind, slice and flip all take evenly spaced positions along
// one axis; the compiler gives each result its own slice op. Spread is its inverse: it writes
// the input at evenly spaced positions of a filled output (the zeros a transposed convolution
// inserts between input pixels). One kernel of each serves int8 and float32.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// out[o, i, n] = in[o, start + i * step, n] for o < outer, i < out_len, n < inner: `inner`
/// elements of `elem_size` bytes after the axis, `outer` before it. Input and output must not
/// overlap.
void slice(size_t outer, size_t in_len, size_t out_len, size_t inner, size_t elem_size,
           size_t start, ptrdiff_t step, const void* input, void* output);

/// Operands: input -> output of the same dtype and rank, the same dims but on `axis`.
/// ints: axis, start, step, with step != 0 (negative: backwards, as flip) and every position
/// read inside the input's axis.
rt::Status check_slice(const rt::OpContext& ctx);
rt::Status run_slice(const rt::OpContext& ctx);

/// out[o, j, n] = fill for every j, then out[o, start + i * step, n] = in[o, i, n] for
/// i < in_len. Input and output must not overlap.
void spread(size_t outer, size_t in_len, size_t out_len, size_t inner, size_t elem_size,
            size_t start, size_t step, const void* fill, const void* input, void* output);

/// Operands: input -> output of the same dtype and rank, the same dims but on `axis`.
/// ints: axis, start, step >= 1, fill (an int8 value, or a float32's bits), with every position
/// written inside the output's axis.
rt::Status check_spread(const rt::OpContext& ctx);
rt::Status run_spread(const rt::OpContext& ctx);

}  // namespace ember::kernels
