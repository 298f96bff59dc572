//===- copy.cc - Byte copy between two tensors ----------------------------===//
//
// memmove, because the planner may place input and output in overlapping memory.

#include "ember/kernels/portable/copy.h"

#include <string.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

void copy(size_t bytes, const void* input, void* output) {
  if (bytes != 0 && input != output) memmove(output, input, bytes);
}

rt::Status check_copy(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 0, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == out.dtype, BadOpSignature);
  EMBER_KCHECK(in.num_elements() == out.num_elements(), BadShape);
  return Status::Ok;
}

rt::Status run_copy(const rt::OpContext& c) {
  copy(c.in(0).num_elements() * dtype_size(c.in(0).dtype), c.in(0).data, c.out(0).data);
  return rt::Status::Ok;
}

}  // namespace ember::kernels
