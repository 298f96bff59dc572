//===- in_place.h - Which ops may write their output over an input -------===//
//
// An op may write its result over an input it consumes (the input dies at the op) when the
// kernel never writes a byte it has yet to read. The rule is a lower bound `delta`: the output
// must start at least `delta` bytes below the input (the planner may place it lower still).
//
//  - Elementwise kernels (add_s8, mul_s8, lut_s8, requantize_s8, quantize_s8, the float unary
//    and binary ones): element i is read before element i is written, and no element below i
//    is read afterwards, so delta = 0 when the output's elements are no wider than the
//    input's. A broadcast operand is never overwritten (it is read many times).
//  - Row-streaming kernels (conv2d_s8, depthwise_conv2d_s8, max_pool2d_s8, avg_pool2d_s8) with
//    batch 1: they write output rows in order, and output row r reads input rows from
//    max(0, r * stride_h - pad_top) on; conv2d_s8 may finish kConvBlockPixels output pixels
//    as one block (a matrix product re-reads their inputs per group of output channels), the
//    others one pixel at a time. So output pixel q (row-major) must end at or below the first
//    input row of the row holding pixel q - block + 1: delta = max over q of (q + 1) *
//    out_pixel_bytes - first_row(row(q - block + 1)) * in_row_bytes. Only PlanMode::Smallest
//    uses these (they are a contract every tier's kernel must keep, stated in
//    kernels/kernels.def).
//  - Bottom-up (conv2d_s8 and depthwise_conv2d_s8 only, the op's rows_bottom_up): the mirror.
//    Rows run last-first, output row r reads input rows up to last_row(r) = min(H_in - 1,
//    r * stride_h - pad_top + dilation_h * (KH - 1)), so output pixel q must start at or
//    above the end of input row last_row(row(q + block - 1)): the output starts at least
//    rise = max over q of (last_row(row(q + block - 1)) + 1) * in_row_bytes - q *
//    out_pixel_bytes above the input's start. The planner picks the direction per op.
//
// tests/plan_check.py re-derives these rules independently from `ember inspect --json`.

#pragma once

#include <cstdint>
#include <optional>

#include "ember/compiler/ir.h"
#include "ember/compiler/target.h"

namespace ember::compiler {

/// The output pixels conv2d_s8 may compute as one block (kernels/kernels.def).
inline constexpr int64_t kConvBlockPixels = 4;

struct InPlace {
  int input = -1;      // the operand index the output may overlap
  uint64_t delta = 0;  // the output starts at least this many bytes below that input
  bool may_rise = false;  // or, with rows_bottom_up, at least `rise` bytes above its start
  uint64_t rise = 0;
  // Preferred: a distance that is a multiple of this (0: any). depthwise_conv2d_s8 runs its
  // tier body once only at whole pixels (kernels/arm/depthwise_conv2d_s8.cc), else per row.
  uint64_t grain = 0;
};

/// The in-place rule of `op` (its kernel selected) under `mode`, or nullopt. `dies(t)` tells
/// whether tensor t's value is not read after this op (only such an input can be overwritten).
template <typename Dies>
std::optional<InPlace> in_place_rule(const Graph& g, const Op& op, PlanMode mode, Dies dies);

/// The delta of a row-streaming op: output and input rank 4 NHWC with batch 1.
std::optional<uint64_t> row_stream_delta(const std::vector<int64_t>& in_shape, const std::vector<int64_t>& out_shape,
                                         size_t elem_bytes, int64_t stride_h, int64_t pad_top, int64_t block);

/// The rise of a bottom-up row-streaming op (the same shapes); `window` = dilation_h * (KH - 1)
/// + 1.
std::optional<uint64_t> row_stream_rise(const std::vector<int64_t>& in_shape, const std::vector<int64_t>& out_shape,
                                        size_t elem_bytes, int64_t stride_h, int64_t pad_top, int64_t window,
                                        int64_t block);

/// What `in_place_rule` decides, without the liveness test: candidate (operand, delta) pairs.
std::vector<InPlace> in_place_candidates(const Graph& g, const Op& op, PlanMode mode);

template <typename Dies>
std::optional<InPlace> in_place_rule(const Graph& g, const Op& op, PlanMode mode, Dies dies) {
  for (const InPlace& c : in_place_candidates(g, op, mode))
    if (dies(op.inputs[c.input])) return c;
  return std::nullopt;
}

}  // namespace ember::compiler
