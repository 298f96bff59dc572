//===- softmax_s8.cc - Optimized int8 softmax: checks, runs ---------------===//

#include "ember/kernels/arm/softmax_s8.h"

#include <stddef.h>

#include "ember/kernels/portable/softmax_s8.h"

namespace ember::kernels::arm {

rt::Status check_softmax_s8(const rt::OpContext& c) { return kernels::check_softmax_s8(c); }

rt::Status run_softmax_s8(const rt::OpContext& c) {
  const int32_t depth = c.in(0).dim(-1);
  const size_t rows = c.in(0).num_elements() / static_cast<size_t>(depth);
  const int8_t* in = c.in(0).as<const int8_t>();
  const int32_t* table = c.in(1).as<const int32_t>();
  int8_t* out = c.out(0).as<int8_t>();
  for (size_t r = 0; r < rows; ++r, in += depth, out += depth) softmax_s8_row(in, depth, table, out);
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
