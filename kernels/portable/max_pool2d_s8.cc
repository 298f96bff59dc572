//===- max_pool2d_s8.cc - Reference int8 2-D max pooling ------------------===//
//
// Starting from -128 is the same as skipping padded positions: no int8 value is smaller. The
// walk (max_pool2d, pool_common.h) visits only the window's taps inside the input, so a window
// far larger than the input costs what the input does.

#include "ember/kernels/portable/max_pool2d_s8.h"

#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

void max_pool2d_s8(const Pool2dShape& s, const Pool2dWindow& w, int32_t act_min, int32_t act_max,
                   const int8_t* input, int8_t* output) {
  max_pool2d<int8_t>(s, w, -128, [](int8_t v, int8_t m) { return v > m; }, input, [&](size_t i, int8_t m) {
    output[i] = static_cast<int8_t>(clamp_i32(m, act_min, act_max));
  });
}

rt::Status check_max_pool2d_s8(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 10, 0), BadOpSignature);
  EMBER_RETURN_IF_ERROR(
      check_pool2d(c.in(0), c.out(0), DType::Int8, pool_window_from(c.ints, true)));
  EMBER_KCHECK(valid_act_s8(c.ints[8], c.ints[9]), BadOpParameter);
  return Status::Ok;
}

rt::Status run_max_pool2d_s8(const rt::OpContext& c) {
  max_pool2d_s8(pool_shape_from(c.in(0), c.out(0)), pool_window_from(c.ints, true), c.ints[8],
                c.ints[9], c.in(0).as<const int8_t>(), c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
