//===- add_s8.cc - Optimized int8 addition: checks, broadcast walk --------===//
//
// Tier-independent: the broadcast is walked over the four outer axes, and each innermost run
// (where an operand's stride is 1, or 0 when it broadcasts) goes to the tier's add_s8_run.

#include "kernels/arm/add_s8.h"

#include "kernels/portable/broadcast.h"
#include "kernels/portable/op_check.h"

namespace ember::kernels::arm {

rt::Status check_add_s8(const rt::OpContext& c) { return kernels::check_add_s8(c); }

rt::Status run_add_s8(const rt::OpContext& c) {
  Broadcast bc;
  broadcast_views(c.in(0), c.in(1), c.out(0), &bc);
  const int32_t* i = c.ints;
  const AddParamsS8 p{i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], i[8], i[9], i[10], i[11]};
  const int8_t* a = c.in(0).as<const int8_t>();
  const int8_t* b = c.in(1).as<const int8_t>();
  int8_t* out = c.out(0).as<int8_t>();
  if (bc.same_shape) {
    const size_t n = broadcast_size(bc);
    // Runs of at most 2^30 elements keep the int32 count in range.
    for (size_t done = 0; done < n;) {
      const size_t run = n - done < (size_t{1} << 30) ? n - done : (size_t{1} << 30);
      add_s8_run(p, a + done, 1, b + done, 1, out + done, static_cast<int32_t>(run));
      done += run;
    }
    return rt::Status::Ok;
  }
  for_each_broadcast_run(bc, [&](size_t o, size_t ia, size_t ib) {
    add_s8_run(p, a + ia, bc.a_strides[4], b + ib, bc.b_strides[4], out + o, bc.out_dims[4]);
  });
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
