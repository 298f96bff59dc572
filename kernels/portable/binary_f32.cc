//===- binary_f32.cc - Reference float32 broadcasting binary ops ----------===//
//
// One walk, one switch per element: the portable kernels favour one obviously right loop over
// seven copies; the op is fixed per call, so the branch predicts perfectly.

#include "ember/kernels/portable/binary_f32.h"

#include <math.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

float binary_op_f32(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::Div: return a / b;
    case BinaryOp::Minimum:
      if (a != a || b != b) return NAN;
      return a < b ? a : b;
    case BinaryOp::Maximum:
      if (a != a || b != b) return NAN;
      return a > b ? a : b;
    case BinaryOp::Pow: return powf(a, b);
  }
  return NAN;
}

void binary_f32(BinaryOp op, const Broadcast& bc, float lo, float hi, const float* a,
                const float* b, float* out) {
  for_each_broadcast(bc, [&](size_t o, size_t ia, size_t ib) {
    out[o] = clamp_float(binary_op_f32(op, a[ia], b[ib]), lo, hi);
  });
}

static Status check_binary_f32(const OpContext& c) {
  EMBER_KCHECK(has_counts(c, 2, 1, 0, 2), BadOpSignature);
  EMBER_RETURN_IF_ERROR(check_binary_operands(c, DType::Float32));
  EMBER_KCHECK(valid_act_f32(c.floats[0], c.floats[1]), BadOpParameter);
  return Status::Ok;
}

static Status run_binary_f32(const OpContext& c, BinaryOp op) {
  binary_f32(op, binary_broadcast(c), c.floats[0], c.floats[1], c.in(0).as<const float>(),
             c.in(1).as<const float>(), c.out(0).as<float>());
  return Status::Ok;
}

#define EMBER_BINARY_F32(name, op)                                                  \
  rt::Status check_##name(const rt::OpContext& c) { return check_binary_f32(c); }   \
  rt::Status run_##name(const rt::OpContext& c) { return run_binary_f32(c, op); }

EMBER_BINARY_F32(add_f32, BinaryOp::Add)
EMBER_BINARY_F32(sub_f32, BinaryOp::Sub)
EMBER_BINARY_F32(mul_f32, BinaryOp::Mul)
EMBER_BINARY_F32(div_f32, BinaryOp::Div)
EMBER_BINARY_F32(minimum_f32, BinaryOp::Minimum)
EMBER_BINARY_F32(maximum_f32, BinaryOp::Maximum)
EMBER_BINARY_F32(pow_f32, BinaryOp::Pow)

#undef EMBER_BINARY_F32

}  // namespace ember::kernels
