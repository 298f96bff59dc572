//===- batch_matmul.h - Matrix products of two activations ------*- C++ -*-===//
//
// torch.matmul / bmm of two computed tensors (attention's q·kᵀ and weights·v): no constant
// operand, so no weight packing; both operands carry a zero point. The second operand comes
// as rows of K, as linear weights do ([B, N, K], the product's transpose), so that q·kᵀ reads
// k as it is and both operands stream contiguously.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/conv_common.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// For each batch b < batches, row m < M and column n < N:
/// acc = sum_k (a[b, m, k] - a_zp) * (b[b, n, k] - b_zp) (int32: K is at most 2^15),
/// out[b, m, n] = requantize_to_s8(acc, multiplier, shift, output_zp, act_min, act_max).
void batch_matmul_s8(int32_t batches, int32_t m, int32_t k, int32_t n, int32_t a_zp, int32_t b_zp,
                     const QuantS8& quant, int32_t multiplier, int32_t shift, const int8_t* a,
                     const int8_t* b, int8_t* output);

/// float32: out[b, m, n] = sum_k a[b, m, k] * b[b, n, k], in k order.
void batch_matmul_f32(int32_t batches, int32_t m, int32_t k, int32_t n, const float* a, const float* b,
                      float* output);

/// Operands: a [B, M, K], b [B, N, K] -> output [B, M, N] (rank 3). batch_matmul_s8's ints:
/// a_zp, b_zp, output_zp, multiplier, shift, act_min, act_max; batch_matmul_f32 has none.
rt::Status check_batch_matmul_s8(const rt::OpContext& ctx);
rt::Status run_batch_matmul_s8(const rt::OpContext& ctx);
rt::Status check_batch_matmul_f32(const rt::OpContext& ctx);
rt::Status run_batch_matmul_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
