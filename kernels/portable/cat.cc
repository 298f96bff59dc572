//===- cat.cc - Concatenation of any element type -------------------------===//
//
// The adapter walks the variadic inputs itself, so the kernel needs no pointer array (no heap,
// no fixed maximum number of inputs).

#include "ember/kernels/portable/cat.h"

#include <string.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

void cat_slice(size_t outer, size_t slice_bytes, size_t out_row_bytes, size_t offset_bytes,
               const void* input, void* output) {
  if (slice_bytes == 0) return;  // an empty input may have no buffer at all
  const uint8_t* in = static_cast<const uint8_t*>(input);
  uint8_t* out = static_cast<uint8_t*>(output) + offset_bytes;
  for (size_t r = 0; r < outer; ++r)
    memcpy(out + r * out_row_bytes, in + r * slice_bytes, slice_bytes);
}

static Status check_cat(const OpContext& c, DType dtype) {
  EMBER_KCHECK(has_counts(c, -1, 1, 1, 0) && c.num_inputs >= 1, BadOpSignature);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(out), BadShape);
  EMBER_KCHECK(out.dtype == dtype, BadOpSignature);
  EMBER_KCHECK(out.rank >= 1, BadShape);
  const int32_t rank = out.rank;
  int32_t axis = c.ints[0];
  EMBER_KCHECK(axis >= -rank && axis < rank, BadOpParameter);
  if (axis < 0) axis += rank;
  int64_t total = 0;
  for (size_t i = 0; i < c.num_inputs; ++i) {
    const TensorView& in = c.in(i);
    EMBER_KCHECK(valid_view(in), BadShape);
    EMBER_KCHECK(in.dtype == dtype, BadOpSignature);
    EMBER_KCHECK(in.rank == rank, BadShape);
    for (int32_t d = 0; d < rank; ++d)
      EMBER_KCHECK(d == axis || in.dims[d] == out.dims[d], BadShape);
    total += in.dims[axis];
  }
  EMBER_KCHECK(total == out.dims[axis], BadShape);
  return Status::Ok;
}

static Status run_cat(const OpContext& c, size_t elem_size) {
  const TensorView& out = c.out(0);
  const int32_t axis = c.ints[0] < 0 ? c.ints[0] + out.rank : c.ints[0];
  size_t outer = 1, inner = elem_size;
  for (int32_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(out.dims[d]);
  for (int32_t d = axis + 1; d < out.rank; ++d) inner *= static_cast<size_t>(out.dims[d]);
  const size_t out_row = static_cast<size_t>(out.dims[axis]) * inner;
  size_t offset = 0;
  for (size_t i = 0; i < c.num_inputs; ++i) {
    const size_t slice = static_cast<size_t>(c.in(i).dims[axis]) * inner;
    cat_slice(outer, slice, out_row, offset, c.in(i).data, out.data);
    offset += slice;
  }
  return Status::Ok;
}

rt::Status check_cat_s8(const rt::OpContext& c) { return check_cat(c, DType::Int8); }
rt::Status run_cat_s8(const rt::OpContext& c) { return run_cat(c, 1); }
rt::Status check_cat_f32(const rt::OpContext& c) { return check_cat(c, DType::Float32); }
rt::Status run_cat_f32(const rt::OpContext& c) { return run_cat(c, sizeof(float)); }

}  // namespace ember::kernels
