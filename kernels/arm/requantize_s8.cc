//===- requantize_s8.cc - Optimized int8 rescale: checks, runs ------------===//

#include "ember/kernels/arm/requantize_s8.h"

#include "ember/kernels/arm/elementwise.h"
#include "ember/kernels/portable/requantize_s8.h"

namespace ember::kernels::arm {

rt::Status check_requantize_s8(const rt::OpContext& c) { return kernels::check_requantize_s8(c); }

rt::Status run_requantize_s8(const rt::OpContext& c) {
  const int32_t* i = c.ints;
  const RequantizeParamsS8 p{i[0], i[1], i[2], i[3], i[4], i[5]};
  const int8_t* in = c.in(0).as<const int8_t>();
  int8_t* out = c.out(0).as<int8_t>();
  for_each_run(c.in(0).num_elements(), [&](size_t i, int32_t n) { requantize_s8_run(p, in + i, out + i, n); });
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
