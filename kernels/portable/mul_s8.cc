//===- mul_s8.cc - Reference int8 broadcasting multiplication -------------===//
//
// TFLite's reference Mul arithmetic over the shared broadcast walk.

#include "ember/kernels/portable/mul_s8.h"

#include "ember/kernels/portable/op_check.h"
#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

void mul_s8(const MulParamsS8& p, const Broadcast& bc, const int8_t* a, const int8_t* b,
            int8_t* out) {
  for_each_broadcast(bc, [&](size_t o, size_t ia, size_t ib) {
    const int32_t prod = (a[ia] - p.a_zp) * (b[ib] - p.b_zp);  // |prod| <= 255*255
    out[o] = requantize_to_s8(prod, p.output_multiplier, p.output_shift, p.output_zp, p.act_min,
                              p.act_max);
  });
}

static MulParamsS8 mul_params_from(const int32_t* i) {
  return MulParamsS8{i[0], i[1], i[2], i[3], i[4], i[5], i[6]};
}

rt::Status check_mul_s8(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 2, 1, 7, 0), BadOpSignature);
  EMBER_RETURN_IF_ERROR(check_binary_operands(c, DType::Int8));
  const MulParamsS8 p = mul_params_from(c.ints);
  EMBER_KCHECK(valid_zero_point(p.a_zp) && valid_zero_point(p.b_zp) &&
                   valid_zero_point(p.output_zp),
               BadQuantization);
  EMBER_KCHECK(valid_multiplier(p.output_multiplier) && valid_shift(p.output_shift),
               BadQuantization);
  EMBER_KCHECK(valid_act_s8(p.act_min, p.act_max), BadOpParameter);
  return Status::Ok;
}

rt::Status run_mul_s8(const rt::OpContext& c) {
  mul_s8(mul_params_from(c.ints), binary_broadcast(c), c.in(0).as<const int8_t>(),
         c.in(1).as<const int8_t>(), c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
