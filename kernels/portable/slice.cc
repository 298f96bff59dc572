//===- slice.cc - Strided slice along one axis, any element type ----------===//
//
// A run of `inner` contiguous elements per position: one memcpy each, so a channel split of a
// channels-last tensor copies pixel by pixel and a split of the outermost axis is one block.

#include "kernels/portable/slice.h"

#include <string.h>

#include "kernels/portable/op_check.h"

namespace ember::kernels {

void slice(size_t outer, size_t in_len, size_t out_len, size_t inner, size_t elem_size,
           size_t start, ptrdiff_t step, const void* input, void* output) {
  const size_t run = inner * elem_size;
  if (run == 0) return;
  const uint8_t* in = static_cast<const uint8_t*>(input);
  uint8_t* out = static_cast<uint8_t*>(output);
  for (size_t o = 0; o < outer; ++o) {
    const uint8_t* at = in + (o * in_len + start) * run;
    for (size_t i = 0; i < out_len; ++i, out += run, at += step * static_cast<ptrdiff_t>(run)) memcpy(out, at, run);
  }
}

namespace {

struct Axis {
  size_t outer = 1, inner = 1;
};

Axis around(const TensorView& t, int32_t axis) {
  Axis a;
  for (int32_t d = 0; d < axis; ++d) a.outer *= static_cast<size_t>(t.dims[d]);
  for (int32_t d = axis + 1; d < t.rank; ++d) a.inner *= static_cast<size_t>(t.dims[d]);
  return a;
}

}  // namespace

rt::Status check_slice(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, 3, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == out.dtype && (in.dtype == DType::Int8 || in.dtype == DType::Float32),
               BadOpSignature);
  EMBER_KCHECK(in.rank == out.rank, BadShape);
  const int32_t axis = c.ints[0], start = c.ints[1], step = c.ints[2];
  EMBER_KCHECK(axis >= 0 && axis < in.rank, BadOpParameter);
  for (int32_t d = 0; d < in.rank; ++d) EMBER_KCHECK(d == axis || in.dims[d] == out.dims[d], BadShape);
  EMBER_KCHECK(step != 0, BadOpParameter);
  const int32_t n = out.dims[axis];
  // The first and last positions read, in int64: start + (n - 1) * step can pass INT32_MAX.
  const int64_t last = start + static_cast<int64_t>(n - 1) * step;
  EMBER_KCHECK(n == 0 || (start >= 0 && start < in.dims[axis] && last >= 0 && last < in.dims[axis]), BadOpParameter);
  return Status::Ok;
}

rt::Status run_slice(const rt::OpContext& c) {
  const TensorView& in = c.in(0);
  const int32_t axis = c.ints[0];
  const Axis a = around(in, axis);
  slice(a.outer, static_cast<size_t>(in.dims[axis]), static_cast<size_t>(c.out(0).dims[axis]), a.inner,
        dtype_size(in.dtype), static_cast<size_t>(c.ints[1]), c.ints[2], in.data,
        c.out(0).data);
  return rt::Status::Ok;
}

}  // namespace ember::kernels
