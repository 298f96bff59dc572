//===- reduce.h - mean, sum, amax and amin over any set of axes -*- C++ -*-===//
//
// The reduced axes are flags, one per dimension; the output keeps the input's rank with size
// 1 on every reduced axis (the compiler adds a view for keepdim=False). A mean over the H and
// W of an image is a global average pool and never comes here; this serves the rest (a
// sequence's mean, a layer norm's statistics, sum over channels, max over time).

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// The function a reduce kernel computes: ints[0].
enum class Reduction : int32_t { Mean = 0, Sum = 1, Max = 2, Min = 3 };

/// Which input positions reduce into each output element: input dims and flags (1: reduced)
/// for `rank` dimensions.
struct ReduceShape {
  int rank;
  const int32_t* dims;
  const int32_t* reduced;
};

/// int8. Mean and Max/Min: input and output share scale and zero point; the mean is
/// round half to even (sum(q - zp) / count) + zp, as the average pools. Sum:
/// requantize_to_s8(sum(q - input_zp), multiplier, shift, output_zp, act_min, act_max).
/// Every result is clamped to [act_min, act_max].
void reduce_s8(const ReduceShape& s, Reduction fn, int32_t input_zp, int32_t output_zp,
               int32_t multiplier, int32_t shift, int32_t act_min, int32_t act_max,
               const int8_t* input, int8_t* output);

/// float32: the mean is the sum in input order divided by the count.
void reduce_f32(const ReduceShape& s, Reduction fn, const float* input, float* output);

/// reduce_s8: input -> output int8, same rank, output dim 1 where reduced and the input's
/// elsewhere. ints: function, input_zp, output_zp, multiplier, shift, act_min, act_max, then a
/// flag per dimension. At most 2^23 positions reduce into one output (an int32 sum).
rt::Status check_reduce_s8(const rt::OpContext& ctx);
rt::Status run_reduce_s8(const rt::OpContext& ctx);
/// reduce_f32: float32, ints: function, then a flag per dimension.
rt::Status check_reduce_f32(const rt::OpContext& ctx);
rt::Status run_reduce_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
