//===- dequantize_s8.cc - Reference int8 to float32 dequantization --------===//
//
// q - zero_point is an exact small integer, so converting before or after the subtraction
// gives the same float; only the multiply rounds.

#include "ember/kernels/portable/dequantize_s8.h"

#include <math.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

void dequantize_s8(size_t count, float scale, int32_t zero_point, const int8_t* input,
                   float* output) {
  for (size_t i = 0; i < count; ++i)
    output[i] = static_cast<float>(input[i] - zero_point) * scale;
}

rt::Status check_dequantize_s8(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 1, 1), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == DType::Int8 && out.dtype == DType::Float32, BadOpSignature);
  EMBER_KCHECK(same_shape(in, out), BadShape);
  EMBER_KCHECK(valid_zero_point(c.ints[0]), BadQuantization);
  EMBER_KCHECK(isfinite(c.floats[0]) && c.floats[0] > 0.0f, BadQuantization);
  return Status::Ok;
}

rt::Status run_dequantize_s8(const rt::OpContext& c) {
  dequantize_s8(c.in(0).num_elements(), c.floats[0], c.ints[0], c.in(0).as<const int8_t>(),
                c.out(0).as<float>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
