//===- depthwise_conv2d_s8.cc - Optimized int8 depthwise: checks, dispatch ===//

#include "kernels/arm/depthwise_conv2d_s8.h"

#include "kernels/arm/fold.h"
#include "kernels/arm/operands.h"
#include "kernels/portable/depthwise_conv2d_s8.h"

namespace ember::kernels::arm {

rt::Status check_depthwise_conv2d_s8(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(kernels::check_depthwise_conv2d_s8(c));
  const TensorView& filter = c.in(1);
  EMBER_RETURN_IF_ERROR(check_added_operands(c, filter.dims[3]));
  if (has_folded_bias(c)) {
    EMBER_KCHECK(filter.constant && filter.data != nullptr, BadOpSignature);
    const TensorView& bias = c.in(2);
    EMBER_KCHECK(is_absent(bias) || (bias.constant && bias.data != nullptr), BadOpSignature);
  }
  return Status::Ok;
}

rt::Status check_depthwise_conv2d_s8_with_fold(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(check_depthwise_conv2d_s8(c));
  if (!has_folded_bias(c)) return Status::Ok;
  const TensorView& filter = c.in(1);
  const int32_t o = filter.dims[3];
  const int32_t* folded = c.in(kFoldedBias).as<const int32_t>();
  for (int32_t i = 0; i < o; ++i)
    EMBER_KCHECK(folded[i] == folded_bias_depthwise(filter.as<const int8_t>(), filter.dims[1] * filter.dims[2],
                                                    o, c.in(2).as<const int32_t>(), c.ints[6], i),
                 BadQuantization);
  return Status::Ok;
}

rt::Status run_depthwise_conv2d_s8(const rt::OpContext& c) {
  const Conv2dShape s = conv_shape_from(c.in(0), c.in(1), c.out(0));
  if (s.out_c != s.in_c || !has_folded_bias(c)) return kernels::run_depthwise_conv2d_s8(c);
  DepthwiseS8 d{s,
                conv_geometry_from(c.ints),
                QuantS8{c.ints[6], c.ints[7], c.ints[8], c.ints[9]},
                c.in(0).as<const int8_t>(),
                c.in(1).as<const int8_t>(),
                c.in(kFoldedBias).as<const int32_t>(),
                c.in(3).as<const int32_t>(),
                c.in(4).as<const int32_t>(),
                c.out(0).as<int8_t>(),
                is_absent(c.in(2)) ? nullptr : c.in(2).as<const int32_t>()};
  depthwise_conv2d_s8_body(d);
  return Status::Ok;
}

}  // namespace ember::kernels::arm
