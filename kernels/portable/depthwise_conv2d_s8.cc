//===- depthwise_conv2d_s8.cc - Reference int8 depthwise convolution ------===//
//
// The numeric ground truth: conv2d_s8's loop nest and checks with the depthwise filter layout.

#include "ember/kernels/portable/depthwise_conv2d_s8.h"

#include "ember/kernels/portable/conv2d_s8.h"

namespace ember::kernels {

void depthwise_conv2d_s8(const Conv2dShape& s, const Conv2dGeometry& g, const QuantS8& q,
                         const int8_t* input, const int8_t* filter, const int32_t* bias,
                         const int32_t* multiplier, const int32_t* shift, int8_t* output,
                         bool rows_bottom_up) {
  conv_any_s8(s, g, q, input, filter, bias, multiplier, shift, output, true, rows_bottom_up);
}

rt::Status check_depthwise_conv2d_s8(const rt::OpContext& c) { return check_conv_any_s8(c, true); }
rt::Status run_depthwise_conv2d_s8(const rt::OpContext& c) { return run_conv_any_s8(c, true); }

}  // namespace ember::kernels
