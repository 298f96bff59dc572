//===- elementwise.h - Innermost runs of a broadcasting binary op -*- C++ -*-===//
//
// The optimized elementwise kernels share these walks: the tier's inner loop sees one run at a
// time, in which each operand of a binary op is contiguous (step 1) or one repeated element
// (step 0).

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/portable/broadcast.h"

namespace ember::kernels::arm {

/// Calls run(offset, n) over [0, total) in runs of at most 2^30 elements, so that the tiers'
/// loops count in int32.
template <typename Run>
void for_each_run(size_t total, Run run) {
  for (size_t done = 0; done < total;) {
    const size_t len = total - done < (size_t{1} << 30) ? total - done : (size_t{1} << 30);
    run(done, static_cast<int32_t>(len));
    done += len;
  }
}

/// Calls run(out_offset, a_offset, a_step, b_offset, b_step, n) over the whole broadcast.
template <typename Run>
void for_each_elementwise_run(const Broadcast& bc, Run run) {
  if (bc.same_shape) {
    for_each_run(broadcast_size(bc), [&](size_t i, int32_t n) { run(i, i, 1, i, 1, n); });
    return;
  }
  for_each_broadcast_run(bc, [&](size_t o, size_t ia, size_t ib) {
    run(o, ia, bc.a_strides[kMaxBroadcastRank - 1], ib, bc.b_strides[kMaxBroadcastRank - 1],
        bc.out_dims[kMaxBroadcastRank - 1]);
  });
}

}  // namespace ember::kernels::arm
