//===- softmax_f32.cc - Reference float32 softmax -------------------------===//
//
// The exponentials are written to the output first, so no scratch is needed and the kernel
// also works in place.

#include "ember/kernels/portable/softmax_f32.h"

#include <math.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

void softmax_f32(int32_t rows, int32_t depth, const float* input, float* output) {
  for (int32_t r = 0; r < rows; ++r) {
    const float* in = input + static_cast<size_t>(r) * depth;
    float* out = output + static_cast<size_t>(r) * depth;
    float m = in[0];
    for (int32_t i = 1; i < depth; ++i)
      if (in[i] > m || in[i] != in[i]) m = in[i];
    float sum = 0.0f;
    for (int32_t i = 0; i < depth; ++i) {
      out[i] = expf(in[i] - m);
      sum += out[i];
    }
    const float inv = 1.0f / sum;
    for (int32_t i = 0; i < depth; ++i) out[i] *= inv;
  }
}

rt::Status check_softmax_f32(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 0, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == DType::Float32 && out.dtype == DType::Float32, BadOpSignature);
  EMBER_KCHECK(in.rank >= 1 && in.dim(-1) >= 1 && same_shape(in, out), BadShape);
  return Status::Ok;
}

rt::Status run_softmax_f32(const rt::OpContext& c) {
  const int32_t depth = c.in(0).dim(-1);
  softmax_f32(static_cast<int32_t>(c.in(0).num_elements() / depth), depth,
              c.in(0).as<const float>(), c.out(0).as<float>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
