//===- elementwise.h - Innermost runs of a broadcasting binary op -*- C++ -*-===//
//
// The optimized binary kernels (add_s8, mul_s8) share this walk: the tier's inner loop sees one
// run at a time, in which each operand is contiguous (step 1) or one repeated element (step 0).

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kernels/portable/broadcast.h"

namespace ember::kernels::arm {

/// Calls run(out_offset, a_offset, a_step, b_offset, b_step, n) over the whole broadcast.
template <typename Run>
void for_each_elementwise_run(const Broadcast& bc, Run run) {
  if (bc.same_shape) {
    const size_t n = broadcast_size(bc);
    // Runs of at most 2^30 elements keep the int32 count in range.
    for (size_t done = 0; done < n;) {
      const size_t len = n - done < (size_t{1} << 30) ? n - done : (size_t{1} << 30);
      run(done, done, 1, done, 1, static_cast<int32_t>(len));
      done += len;
    }
    return;
  }
  for_each_broadcast_run(bc, [&](size_t o, size_t ia, size_t ib) {
    run(o, ia, bc.a_strides[kMaxBroadcastRank - 1], ib, bc.b_strides[kMaxBroadcastRank - 1],
        bc.out_dims[kMaxBroadcastRank - 1]);
  });
}

}  // namespace ember::kernels::arm
