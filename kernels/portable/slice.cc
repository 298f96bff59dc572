//===- slice.cc - Strided slice and spread along one axis, any element type ===//
//
// A run of `inner` contiguous elements per position: one memcpy each, so a channel split of a
// channels-last tensor copies pixel by pixel and a split of the outermost axis is one block.

#include "ember/kernels/portable/slice.h"

#include <string.h>

#include "ember/kernels/portable/op_check.h"

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

// What slice and spread share: the same dtype, rank and dims off `axis`.
Status check_axis_op(const OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, -1, 0), BadOpSignature);  // the callers check the ints
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == out.dtype && (in.dtype == DType::Int8 || in.dtype == DType::Float32),
               BadOpSignature);
  EMBER_KCHECK(in.rank == out.rank, BadShape);
  const int32_t axis = c.ints[0];
  EMBER_KCHECK(axis >= 0 && axis < in.rank, BadOpParameter);
  for (int32_t d = 0; d < in.rank; ++d) EMBER_KCHECK(d == axis || in.dims[d] == out.dims[d], BadShape);
  return Status::Ok;
}

// Positions start, start + step, ... of n inside [0, len) (in int64: the last can pass INT32_MAX).
bool inside(int32_t start, int32_t step, int32_t n, int32_t len) {
  const int64_t last = start + static_cast<int64_t>(n - 1) * step;
  return n == 0 || (start >= 0 && start < len && last >= 0 && last < len);
}

}  // namespace

rt::Status check_slice(const rt::OpContext& c) {
  EMBER_KCHECK(c.num_ints == 3, BadOpSignature);
  EMBER_RETURN_IF_ERROR(check_axis_op(c));
  const int32_t axis = c.ints[0], step = c.ints[2];
  EMBER_KCHECK(step != 0, BadOpParameter);
  EMBER_KCHECK(inside(c.ints[1], step, c.out(0).dims[axis], c.in(0).dims[axis]), BadOpParameter);
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

void spread(size_t outer, size_t in_len, size_t out_len, size_t inner, size_t elem_size,
            size_t start, size_t step, const void* fill, const void* input, void* output) {
  const size_t run = inner * elem_size;
  uint8_t* out = static_cast<uint8_t*>(output);
  for (size_t i = 0; i < outer * out_len * inner; ++i) memcpy(out + i * elem_size, fill, elem_size);
  const uint8_t* in = static_cast<const uint8_t*>(input);
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < in_len; ++i, in += run) memcpy(out + ((o * out_len) + start + i * step) * run, in, run);
}

rt::Status check_spread(const rt::OpContext& c) {
  EMBER_KCHECK(c.num_ints == 4, BadOpSignature);
  EMBER_RETURN_IF_ERROR(check_axis_op(c));
  const int32_t axis = c.ints[0], step = c.ints[2];
  EMBER_KCHECK(step >= 1, BadOpParameter);
  EMBER_KCHECK(inside(c.ints[1], step, c.in(0).dims[axis], c.out(0).dims[axis]), BadOpParameter);
  EMBER_KCHECK(c.in(0).dtype != DType::Int8 || (c.ints[3] >= -128 && c.ints[3] <= 127), BadOpParameter);
  return Status::Ok;
}

rt::Status run_spread(const rt::OpContext& c) {
  const TensorView& in = c.in(0);
  const int32_t axis = c.ints[0];
  const Axis a = around(in, axis);
  const int8_t fill_s8 = static_cast<int8_t>(c.ints[3]);
  const int32_t fill_bits = c.ints[3];
  spread(a.outer, static_cast<size_t>(in.dims[axis]), static_cast<size_t>(c.out(0).dims[axis]), a.inner,
         dtype_size(in.dtype), static_cast<size_t>(c.ints[1]), static_cast<size_t>(c.ints[2]),
         in.dtype == DType::Int8 ? static_cast<const void*>(&fill_s8) : &fill_bits, in.data, c.out(0).data);
  return rt::Status::Ok;
}

}  // namespace ember::kernels
