//===- lut_s8.cc - Optimized int8 table lookup: checks, runs --------------===//

#include "ember/kernels/arm/lut_s8.h"

#include "ember/kernels/arm/elementwise.h"
#include "ember/kernels/portable/lut_s8.h"

namespace ember::kernels::arm {

rt::Status check_lut_s8(const rt::OpContext& c) { return kernels::check_lut_s8(c); }

rt::Status run_lut_s8(const rt::OpContext& c) {
  const int8_t* in = c.in(0).as<const int8_t>();
  const int8_t* table = c.in(1).as<const int8_t>();
  int8_t* out = c.out(0).as<int8_t>();
  for_each_run(c.in(0).num_elements(), [&](size_t i, int32_t n) { lut_s8_run(table, in + i, out + i, n); });
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
