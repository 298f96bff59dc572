//===- fully_connected_f32.cc - Reference float32 linear layer ------------===//
//
// Shape rules are the int8 kernel's (check_linear_shapes), so both accept the same graphs.

#include "ember/kernels/portable/fully_connected_f32.h"

#include "ember/kernels/portable/fully_connected_s8.h"
#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

void fully_connected_f32(int32_t rows, int32_t k, int32_t o_count, float lo, float hi,
                         const float* input, const float* filter, const float* bias,
                         float* output) {
  for (int32_t r = 0; r < rows; ++r) {
    const float* in_row = input + static_cast<size_t>(r) * k;
    for (int32_t o = 0; o < o_count; ++o) {
      const float* w = filter + static_cast<size_t>(o) * k;
      float acc = bias != nullptr ? bias[o] : 0.0f;
      for (int32_t i = 0; i < k; ++i) acc += in_row[i] * w[i];
      output[static_cast<size_t>(r) * o_count + o] = clamp_float(acc, lo, hi);
    }
  }
}

rt::Status check_fully_connected_f32(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 3, 1, 0, 2), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& filter = c.in(1);
  const TensorView& bias = c.in(2);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(in.dtype == DType::Float32 && filter.dtype == DType::Float32 &&
                   out.dtype == DType::Float32,
               BadOpSignature);
  EMBER_RETURN_IF_ERROR(check_linear_shapes(in, filter, out));
  if (!is_absent(bias)) {
    EMBER_KCHECK(valid_view(bias) && bias.dtype == DType::Float32, BadOpSignature);
    EMBER_KCHECK(bias.rank == 1 && bias.dims[0] == filter.dims[0], BadShape);
  }
  EMBER_KCHECK(valid_act_f32(c.floats[0], c.floats[1]), BadOpParameter);
  return Status::Ok;
}

rt::Status run_fully_connected_f32(const rt::OpContext& c) {
  const int32_t k = c.in(1).dims[1], o = c.in(1).dims[0];
  fully_connected_f32(static_cast<int32_t>(c.in(0).num_elements() / k), k, o, c.floats[0],
                      c.floats[1], c.in(0).as<const float>(), c.in(1).as<const float>(),
                      c.in(2).as<const float>(), c.out(0).as<float>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
