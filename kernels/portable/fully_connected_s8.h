//===- fully_connected_s8.h - Reference int8 fully connected layer -*- C++ -*-===//
//
// The portable int8 linear layer (PyTorch nn.Linear): every row of the input times the
// transposed weight matrix, requantized per output channel. Numeric ground truth.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/conv_common.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// For each of `rows` rows r and output channel o:
/// acc = bias[o] + sum_k (in[r, k] - input_zp) * w[o, k] (wrapping modulo 2^32),
/// out[r, o] = clamp(mbqm(acc, multiplier[o], shift[o]) + output_zp, act_min, act_max).
///
/// Formats: input [rows, K], filter [O, K], bias [O] int32 or nullptr, multiplier [O] in
/// [2^30, 2^31), shift [O] in [-31, 30], output [rows, O].
void fully_connected_s8(int32_t rows, int32_t k, int32_t o, const QuantS8& quant,
                        const int8_t* input, const int8_t* filter, const int32_t* bias,
                        const int32_t* multiplier, const int32_t* shift, int8_t* output);

/// Operands: input [..., K], filter [O, K], bias (optional), multiplier, shift -> output
/// [..., O] with the same number of rows. ints: input_zp, output_zp, act_min, act_max.
rt::Status check_fully_connected_s8(const rt::OpContext& ctx);
/// The same check; `values` as in check_per_channel (kernels/portable/conv_common.h).
rt::Status check_fully_connected_any_s8(const rt::OpContext& ctx, bool values);
rt::Status run_fully_connected_s8(const rt::OpContext& ctx);

/// Shape rule shared with fully_connected_f32: input rank >= 1 with last dim K >= 1, filter
/// [O, K] with O >= 1, output rank >= 1 with last dim O and as many rows as the input.
rt::Status check_linear_shapes(const rt::TensorView& in, const rt::TensorView& filter,
                               const rt::TensorView& out);

}  // namespace ember::kernels
