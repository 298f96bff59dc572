//===- add_s8.cc - Reference int8 broadcasting addition -------------------===//
//
// TFLite's reference Add arithmetic over the shared broadcast walk.

#include "ember/kernels/portable/add_s8.h"

#include "ember/kernels/portable/op_check.h"
#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

void add_s8(const AddParamsS8& p, const Broadcast& bc, const int8_t* a, const int8_t* b,
            int8_t* out) {
  for_each_broadcast(bc, [&](size_t o, size_t ia, size_t ib) {
    // (q - zp) is in [-255, 255], so the shift by at most 22 cannot overflow, and the scaled
    // operands (shift <= 0) cannot exceed it: their sum stays inside int32.
    const int32_t sa = multiply_by_quantized_multiplier((a[ia] - p.a_zp) * (1 << p.left_shift),
                                                        p.a_multiplier, p.a_shift);
    const int32_t sb = multiply_by_quantized_multiplier((b[ib] - p.b_zp) * (1 << p.left_shift),
                                                        p.b_multiplier, p.b_shift);
    out[o] = requantize_to_s8(sa + sb, p.output_multiplier, p.output_shift, p.output_zp,
                              p.act_min, p.act_max);
  });
}

static AddParamsS8 add_params_from(const int32_t* i) {
  return AddParamsS8{i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], i[8], i[9], i[10], i[11]};
}

rt::Status check_add_s8(const rt::OpContext& c) {
  // Inputs 2 and 3, if present, are the optimized kernels' rescale tables (kernels.def).
  EMBER_KCHECK(has_counts(c, -1, 1, 12, 0) && (c.num_inputs == 2 || c.num_inputs == 4), BadOpSignature);
  EMBER_RETURN_IF_ERROR(check_binary_operands(c, DType::Int8));
  const AddParamsS8 p = add_params_from(c.ints);
  EMBER_KCHECK(p.left_shift >= 0 && p.left_shift <= 22, BadOpParameter);
  EMBER_KCHECK(valid_zero_point(p.a_zp) && valid_zero_point(p.b_zp) &&
                   valid_zero_point(p.output_zp),
               BadQuantization);
  EMBER_KCHECK(valid_multiplier(p.a_multiplier) && valid_multiplier(p.b_multiplier) &&
                   valid_multiplier(p.output_multiplier),
               BadQuantization);
  EMBER_KCHECK(p.a_shift >= -31 && p.a_shift <= 0 && p.b_shift >= -31 && p.b_shift <= 0 &&
                   valid_shift(p.output_shift),
               BadQuantization);
  EMBER_KCHECK(valid_act_s8(p.act_min, p.act_max), BadOpParameter);
  return Status::Ok;
}

rt::Status run_add_s8(const rt::OpContext& c) {
  add_s8(add_params_from(c.ints), binary_broadcast(c), c.in(0).as<const int8_t>(),
         c.in(1).as<const int8_t>(), c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
