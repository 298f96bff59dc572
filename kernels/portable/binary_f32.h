//===- binary_f32.h - Reference float32 broadcasting binary ops -*- C++ -*-===//
//
// The portable float elementwise binary ops (add, sub, mul, div, minimum, maximum, pow) with
// numpy broadcasting and a fused clamp, following PyTorch's float semantics.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/broadcast.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels {

enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Minimum, Maximum, Pow };

/// a op b in float32 as PyTorch computes it: IEEE add/sub/mul/div; minimum/maximum return NaN
/// when either operand is NaN (torch.minimum); pow is powf.
float binary_op_f32(BinaryOp op, float a, float b);

/// out = clamp(a op b, act_min, act_max) over the broadcast; NaN passes the clamp.
void binary_f32(BinaryOp op, const Broadcast& bc, float act_min, float act_max, const float* a,
                const float* b, float* out);

/// Operands: a, b (float32, broadcasting) -> out (float32, the broadcast shape).
/// floats: act_min <= act_max (use -inf/+inf for no clamp).
rt::Status check_add_f32(const rt::OpContext& ctx);
rt::Status run_add_f32(const rt::OpContext& ctx);
rt::Status check_sub_f32(const rt::OpContext& ctx);
rt::Status run_sub_f32(const rt::OpContext& ctx);
rt::Status check_mul_f32(const rt::OpContext& ctx);
rt::Status run_mul_f32(const rt::OpContext& ctx);
rt::Status check_div_f32(const rt::OpContext& ctx);
rt::Status run_div_f32(const rt::OpContext& ctx);
rt::Status check_minimum_f32(const rt::OpContext& ctx);
rt::Status run_minimum_f32(const rt::OpContext& ctx);
rt::Status check_maximum_f32(const rt::OpContext& ctx);
rt::Status run_maximum_f32(const rt::OpContext& ctx);
rt::Status check_pow_f32(const rt::OpContext& ctx);
rt::Status run_pow_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
