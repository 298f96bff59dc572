//===- pad.cc - Constant padding of any element type ----------------------===//
//
// Fill the whole output with the pad value, then copy input rows (the contiguous last axis)
// into place: simple, and the copies are memcpy-sized. Data movement has no numerics to tune
// per tier: the C library's memcpy is already the fastest copy on each core.

#include "ember/kernels/portable/pad.h"

#include <string.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

void pad(int rank, const int32_t* in_dims, const int32_t* before, const int32_t* out_dims,
         size_t elem_size, const void* pad_value, const void* input, void* output) {
  // Align to rank 5 with leading axes of size 1 and no padding.
  int32_t in[5], pre[5], out[5];
  for (int d = 0; d < 5; ++d) {
    const int src = d - (5 - rank);
    in[d] = src >= 0 ? in_dims[src] : 1;
    pre[d] = src >= 0 ? before[src] : 0;
    out[d] = src >= 0 ? out_dims[src] : 1;
  }
  uint8_t* dst = static_cast<uint8_t*>(output);
  const uint8_t* src = static_cast<const uint8_t*>(input);
  size_t out_count = 1;
  for (int d = 0; d < 5; ++d) out_count *= static_cast<size_t>(out[d]);
  // The fill doubles: one element, then copies of the filled prefix (log2(count) memcpys, each
  // as fast as the C library makes it on the core).
  const size_t total = out_count * elem_size;
  if (total == 0) return;
  memcpy(dst, pad_value, elem_size);
  for (size_t filled = elem_size; filled < total;) {
    const size_t n = filled < total - filled ? filled : total - filled;
    memcpy(dst + filled, dst, n);
    filled += n;
  }

  const size_t row_bytes = static_cast<size_t>(in[4]) * elem_size;
  for (int32_t i0 = 0; i0 < in[0]; ++i0)
    for (int32_t i1 = 0; i1 < in[1]; ++i1)
      for (int32_t i2 = 0; i2 < in[2]; ++i2)
        for (int32_t i3 = 0; i3 < in[3]; ++i3) {
          size_t o = static_cast<size_t>(i0 + pre[0]);
          o = o * out[1] + static_cast<size_t>(i1 + pre[1]);
          o = o * out[2] + static_cast<size_t>(i2 + pre[2]);
          o = o * out[3] + static_cast<size_t>(i3 + pre[3]);
          o = o * out[4] + static_cast<size_t>(pre[4]);
          memcpy(dst + o * elem_size, src, row_bytes);
          src += row_bytes;
        }
}

// Shared by both dtypes: `before` points at the per-dimension paddings.
static Status check_pad(const OpContext& c, DType dtype, const int32_t* before, size_t n_before) {
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == dtype && out.dtype == dtype, BadOpSignature);
  EMBER_KCHECK(n_before == in.rank, BadOpSignature);
  EMBER_KCHECK(in.rank == out.rank, BadShape);
  for (uint8_t d = 0; d < in.rank; ++d) {
    EMBER_KCHECK(before[d] >= 0, BadOpParameter);
    EMBER_KCHECK(static_cast<int64_t>(out.dims[d]) - in.dims[d] - before[d] >= 0, BadShape);
  }
  return Status::Ok;
}

rt::Status check_pad_s8(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, -1, 0) && c.num_ints >= 1, BadOpSignature);
  EMBER_RETURN_IF_ERROR(check_pad(c, DType::Int8, c.ints + 1, c.num_ints - 1));
  EMBER_KCHECK(c.ints[0] >= -128 && c.ints[0] <= 127, BadOpParameter);
  return Status::Ok;
}

rt::Status run_pad_s8(const rt::OpContext& c) {
  const int8_t value = static_cast<int8_t>(c.ints[0]);
  pad(c.in(0).rank, c.in(0).dims, c.ints + 1, c.out(0).dims, 1, &value, c.in(0).data,
      c.out(0).data);
  return rt::Status::Ok;
}

rt::Status check_pad_f32(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 1, 1, -1, 1), BadOpSignature);
  return check_pad(c, DType::Float32, c.ints, c.num_ints);
}

rt::Status run_pad_f32(const rt::OpContext& c) {
  pad(c.in(0).rank, c.in(0).dims, c.ints, c.out(0).dims, sizeof(float), c.floats, c.in(0).data,
      c.out(0).data);
  return rt::Status::Ok;
}

}  // namespace ember::kernels
