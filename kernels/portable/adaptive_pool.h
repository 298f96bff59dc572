//===- adaptive_pool.h - Adaptive average and max pooling -------*- C++ -*-===//
//
// adaptive_avg_pool1d/2d and adaptive_max_pool1d/2d whose output size does not divide the
// input size (the compiler gives a dividing one to the 2-D pool kernels): on each pooled axis
// output i covers input [floor(i * in / out), ceil((i + 1) * in / out)), PyTorch's windows,
// which then differ in size and may overlap. The pooled axes are flags, as the reductions'.

#pragma once

#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// adaptive_pool_s8 / _f32: input -> output of the same rank; dims differ only on flagged axes
/// (and none is 0 where the output's is not). ints: function (0 mean, 1 max), then a flag per
/// dimension. int8: input and output share scale and zero point; the mean is round half to
/// even (sum / count), as the average pools. float: the sum in input order over the count.
rt::Status check_adaptive_pool_s8(const rt::OpContext& ctx);
rt::Status run_adaptive_pool_s8(const rt::OpContext& ctx);
rt::Status check_adaptive_pool_f32(const rt::OpContext& ctx);
rt::Status run_adaptive_pool_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
