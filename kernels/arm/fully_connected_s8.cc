//===- fully_connected_s8.cc - Optimized int8 fully connected layer -------===//

#include "ember/kernels/arm/fully_connected_s8.h"

#include "ember/kernels/arm/fold.h"
#include "ember/kernels/arm/mat_mult_s8.h"
#include "ember/kernels/arm/operands.h"
#include "ember/kernels/portable/fully_connected_s8.h"

namespace ember::kernels::arm {

rt::Status check_fully_connected_s8(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(kernels::check_fully_connected_any_s8(c, false));
  EMBER_RETURN_IF_ERROR(check_requantization_values(c, c.in(1).dims[0]));
  return check_added_operands(c, c.in(1).dims[0]);
}

rt::Status check_fully_connected_s8_with_fold(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(check_fully_connected_s8(c));
  const TensorView& filter = c.in(1);
  return check_folded_bias(c, filter.dims[0], [&](int32_t i) {
    return folded_bias_rows(filter.as<const int8_t>(), filter.dims[1], c.in(2).as<const int32_t>(), c.ints[0], i);
  });
}

rt::Status run_fully_connected_s8(const rt::OpContext& c) {
  if (!has_folded_bias(c)) return kernels::run_fully_connected_s8(c);
  const int32_t k = c.in(1).dims[1], o = c.in(1).dims[0];
  MatMultS8 m{};
  m.lhs = c.in(0).as<const int8_t>();
  m.rows = static_cast<int32_t>(c.in(0).num_elements() / static_cast<size_t>(k));
  m.lhs_stride = k;
  m.rhs = c.in(1).as<const int8_t>();
  m.cols = o;
  m.depth = k;
  m.bias = c.in(kFoldedBias).as<const int32_t>();
  m.multiplier = c.in(3).as<const int32_t>();
  m.shift = c.in(4).as<const int32_t>();
  m.output_zp = c.ints[1], m.act_min = c.ints[2], m.act_max = c.ints[3];
  m.out = c.out(0).as<int8_t>();
  m.out_stride = o;
  mat_mult_s8(m);
  return Status::Ok;
}

}  // namespace ember::kernels::arm
