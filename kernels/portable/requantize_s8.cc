//===- requantize_s8.cc - Reference int8 to int8 rescale ------------------===//
//
// One multiply_by_quantized_multiplier per element, as the numeric contract fixes it.

#include "ember/kernels/portable/requantize_s8.h"

#include "ember/kernels/portable/op_check.h"
#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

void requantize_s8(size_t count, int32_t input_zp, int32_t output_zp, int32_t multiplier,
                   int32_t shift, int32_t act_min, int32_t act_max, const int8_t* input,
                   int8_t* output) {
  for (size_t i = 0; i < count; ++i)
    output[i] = requantize_to_s8(input[i] - input_zp, multiplier, shift, output_zp, act_min,
                                 act_max);
}

rt::Status check_requantize_s8(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 6, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == DType::Int8 && out.dtype == DType::Int8, BadOpSignature);
  EMBER_KCHECK(same_shape(in, out), BadShape);
  const int32_t* p = c.ints;
  EMBER_KCHECK(valid_zero_point(p[0]) && valid_zero_point(p[1]), BadQuantization);
  EMBER_KCHECK(valid_multiplier(p[2]) && valid_shift(p[3]) && p[3] <= 22, BadQuantization);
  EMBER_KCHECK(valid_act_s8(p[4], p[5]), BadOpParameter);
  return Status::Ok;
}

rt::Status run_requantize_s8(const rt::OpContext& c) {
  const int32_t* p = c.ints;
  requantize_s8(c.in(0).num_elements(), p[0], p[1], p[2], p[3], p[4], p[5],
                c.in(0).as<const int8_t>(), c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
