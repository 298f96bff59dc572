//===- layer_norm_f32.h - Layer normalisation in float ----------*- C++ -*-===//
//
// nn.LayerNorm over the last axis. It runs in float inside an int8 graph: its statistics and
// the division by sqrt(var + eps) want more range than int8 gives, and it is a small share of a
// transformer's work next to the linear layers and matrix products around it.

#pragma once

#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// For each of `rows` rows of `d` values: mean and biased variance (in float, input order),
/// out = (x - mean) / sqrt(var + eps) * weight + bias.
void layer_norm_f32(int32_t rows, int32_t d, float eps, const float* input, const float* weight,
                    const float* bias, float* output);

/// Operands: input [..., D], weight [D], bias [D] (the compiler gives ones and zeros for a layer
/// norm without them) -> output of the input's shape. floats: eps (> 0).
rt::Status check_layer_norm_f32(const rt::OpContext& ctx);
rt::Status run_layer_norm_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
