//===- quantize_s8.cc - Reference float32 to int8 quantization ------------===//
//
// The rounding is spelled out rather than left to nearbyintf: a board's startup code may leave
// the FPU in another rounding mode, and the result must not depend on it.

#include "ember/kernels/portable/quantize_s8.h"

#include <math.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

float round_half_even(float v) {
  const float r = floorf(v);
  const float frac = v - r;  // exact: r and v share the exponent range
  if (frac > 0.5f) return r + 1.0f;
  if (frac == 0.5f) return fmodf(r, 2.0f) != 0.0f ? r + 1.0f : r;
  return r;
}

void quantize_s8(size_t count, float inv_scale, int32_t zero_point, const float* input,
                 int8_t* output) {
  const float zp = static_cast<float>(zero_point);
  for (size_t i = 0; i < count; ++i) {
    const float v = round_half_even(input[i] * inv_scale) + zp;
    int32_t q;
    if (v != v) {
      q = zero_point;
    } else {
      q = v <= -128.0f ? -128 : (v >= 127.0f ? 127 : static_cast<int32_t>(v));
    }
    output[i] = static_cast<int8_t>(q);
  }
}

rt::Status check_quantize_s8(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 1, 1), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == DType::Float32 && out.dtype == DType::Int8, BadOpSignature);
  EMBER_KCHECK(same_shape(in, out), BadShape);
  EMBER_KCHECK(valid_zero_point(c.ints[0]), BadQuantization);
  EMBER_KCHECK(isfinite(c.floats[0]) && c.floats[0] > 0.0f, BadQuantization);
  return Status::Ok;
}

rt::Status run_quantize_s8(const rt::OpContext& c) {
  quantize_s8(c.in(0).num_elements(), c.floats[0], c.ints[0], c.in(0).as<const float>(),
              c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
