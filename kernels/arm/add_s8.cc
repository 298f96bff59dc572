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
  const int32_t* d = bc.out_dims;
  const int32_t* sa = bc.a_strides;
  const int32_t* sb = bc.b_strides;
  size_t o = 0;
  for (int32_t i0 = 0; i0 < d[0]; ++i0)
    for (int32_t i1 = 0; i1 < d[1]; ++i1)
      for (int32_t i2 = 0; i2 < d[2]; ++i2)
        for (int32_t i3 = 0; i3 < d[3]; ++i3, o += static_cast<size_t>(d[4])) {
          const size_t ia = static_cast<size_t>(i0) * sa[0] + static_cast<size_t>(i1) * sa[1] +
                            static_cast<size_t>(i2) * sa[2] + static_cast<size_t>(i3) * sa[3];
          const size_t ib = static_cast<size_t>(i0) * sb[0] + static_cast<size_t>(i1) * sb[1] +
                            static_cast<size_t>(i2) * sb[2] + static_cast<size_t>(i3) * sb[3];
          add_s8_run(p, a + ia, sa[4], b + ib, sb[4], out + o, d[4]);
        }
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
