//===- batch_matmul_s8.h - Optimized int8 product of two activations -*- C++ -*-===//
//
// The same op as kernels/portable/batch_matmul.h, bit for bit, on the tier's mat_mult_s8 (the
// blocks conv and linear layers run). Both operands carry a zero point, and mat_mult_s8 folds
// only a per-column one into its bias, so the sum is expanded:
//   sum_k (a - za)(b - zb) = sum_k a b - za sum_k b[n] - zb sum_k a[m] + K za zb,
// the b terms per column (once per batch) and the a term per row: with zb = 0 one product
// per batch takes every row, otherwise each row is one product with its own biases (as
// CMSIS-NN's arm_batch_matmul_s8 runs a vector-matrix product per row). The wrapped int32
// sums equal the portable kernel's exact one (|sum| < 2^31, K <= 2^15). Output 1 is the
// scratch: the column terms, the row's biases and the per-column multiplier and shift
// mat_mult_s8 reads (batch_matmul_s8_scratch_bytes); without it the portable kernel runs.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

/// Scratch bytes for products of n columns: four int32 arrays of n.
inline constexpr size_t batch_matmul_s8_scratch_bytes(int32_t n) { return 16 * static_cast<size_t>(n); }

rt::Status check_batch_matmul_s8(const rt::OpContext& ctx);
rt::Status run_batch_matmul_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
