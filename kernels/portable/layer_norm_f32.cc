//===- layer_norm_f32.cc - Layer normalisation in float -------------------===//

#include "ember/kernels/portable/layer_norm_f32.h"

#include <math.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

void layer_norm_f32(int32_t rows, int32_t d, float eps, const float* input, const float* weight,
                    const float* bias, float* output) {
  for (int32_t r = 0; r < rows; ++r, input += d, output += d) {
    float mean = 0.0f;
    for (int32_t i = 0; i < d; ++i) mean += input[i];
    mean /= static_cast<float>(d);
    float var = 0.0f;
    for (int32_t i = 0; i < d; ++i) var += (input[i] - mean) * (input[i] - mean);
    const float inv = 1.0f / sqrtf(var / static_cast<float>(d) + eps);
    for (int32_t i = 0; i < d; ++i) {
      const float v = (input[i] - mean) * inv;
      output[i] = v * weight[i] + bias[i];
    }
  }
}

rt::Status check_layer_norm_f32(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 3, 1, 0, 1), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(is_tensor(in, DType::Float32) && is_tensor(out, DType::Float32), BadOpSignature);
  EMBER_KCHECK(in.rank >= 1 && same_shape(in, out) && in.dim(-1) >= 1, BadShape);
  for (size_t i = 1; i < 3; ++i)
    EMBER_KCHECK(is_vector(c.in(i), DType::Float32, in.dim(-1)), BadShape);
  EMBER_KCHECK(c.floats[0] > 0.0f, BadOpParameter);  // false for NaN too
  return Status::Ok;
}

rt::Status run_layer_norm_f32(const rt::OpContext& c) {
  const TensorView& in = c.in(0);
  const int32_t d = in.dim(-1);
  layer_norm_f32(static_cast<int32_t>(in.num_elements() / d), d, c.floats[0], in.as<const float>(),
                 c.in(1).as<const float>(), c.in(2).as<const float>(), c.out(0).as<float>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
