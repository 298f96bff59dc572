//===- fully_connected_s8.h - Optimized int8 fully connected layer -*- C++ -*-===//
//
// The same op as kernels/portable/fully_connected_s8.h, bit for bit: one mat_mult_s8 with the
// batch rows as rows and the weights [O, K] as columns. Operands: the portable ones plus input
// 5, the folded bias (kernels/arm/operands.h); without it the portable kernel runs. No scratch.

#pragma once

#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

rt::Status check_fully_connected_s8(const rt::OpContext& ctx);
rt::Status run_fully_connected_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
