//===- mul_s8.cc - Optimized int8 multiplication: checks, broadcast walk --===//
//
// Tier-independent: each innermost run of the broadcast (kernels/arm/elementwise.h) goes to the
// tier's mul_s8_run.

#include "ember/kernels/arm/mul_s8.h"

#include "ember/kernels/arm/elementwise.h"
#include "ember/kernels/portable/op_check.h"

namespace ember::kernels::arm {

rt::Status check_mul_s8(const rt::OpContext& c) { return kernels::check_mul_s8(c); }

rt::Status run_mul_s8(const rt::OpContext& c) {
  Broadcast bc;
  broadcast_views(c.in(0), c.in(1), c.out(0), &bc);
  const int32_t* i = c.ints;
  const MulParamsS8 p{i[0], i[1], i[2], i[3], i[4], i[5], i[6]};
  const int8_t* a = c.in(0).as<const int8_t>();
  const int8_t* b = c.in(1).as<const int8_t>();
  int8_t* out = c.out(0).as<int8_t>();
  for_each_elementwise_run(bc, [&](size_t o, size_t ia, int32_t a_step, size_t ib, int32_t b_step, int32_t n) {
    mul_s8_run(p, a + ia, a_step, b + ib, b_step, out + o, n);
  });
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
