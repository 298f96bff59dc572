//===- transpose.cc - Axis permutation of any element type ----------------===//
//
// Walks the output in order (sequential writes) and gathers from the input with per-axis
// strides, like the broadcast walk.

#include "ember/kernels/portable/transpose.h"

#include <string.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

void transpose(int rank, const int32_t* in_dims, const int32_t* perm, size_t elem_size,
               const void* input, void* output) {
  size_t in_stride[5];
  size_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_stride[d] = stride;
    stride *= static_cast<size_t>(in_dims[d]);
  }
  // Output axes aligned to rank 5; leading axes have size 1 and stride 0.
  int32_t od[5];
  size_t st[5];
  for (int d = 0; d < 5; ++d) {
    const int src = d - (5 - rank);
    od[d] = src >= 0 ? in_dims[perm[src]] : 1;
    st[d] = src >= 0 ? in_stride[perm[src]] : 0;
  }
  const uint8_t* in = static_cast<const uint8_t*>(input);
  uint8_t* out = static_cast<uint8_t*>(output);
  size_t o = 0;
  for (int32_t i0 = 0; i0 < od[0]; ++i0)
    for (int32_t i1 = 0; i1 < od[1]; ++i1)
      for (int32_t i2 = 0; i2 < od[2]; ++i2)
        for (int32_t i3 = 0; i3 < od[3]; ++i3) {
          size_t j = i0 * st[0] + i1 * st[1] + i2 * st[2] + i3 * st[3];
          for (int32_t i4 = 0; i4 < od[4]; ++i4, ++o, j += st[4]) {
            if (elem_size == 1) {
              out[o] = in[j];
            } else if (elem_size == 4) {
              memcpy(out + o * 4, in + j * 4, 4);
            } else {
              memcpy(out + o * elem_size, in + j * elem_size, elem_size);
            }
          }
        }
}

static Status check_transpose(const OpContext& c, DType dtype) {
  EMBER_KCHECK(has_counts(c, 1, 1, -1, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == dtype && out.dtype == dtype, BadOpSignature);
  EMBER_KCHECK(c.num_ints == in.rank, BadOpSignature);
  EMBER_KCHECK(out.rank == in.rank, BadShape);
  bool seen[rt::kMaxRank] = {};
  for (uint8_t d = 0; d < in.rank; ++d) {
    const int32_t p = c.ints[d];
    EMBER_KCHECK(p >= 0 && p < in.rank && !seen[p], BadOpParameter);
    seen[p] = true;
    EMBER_KCHECK(out.dims[d] == in.dims[p], BadShape);
  }
  return Status::Ok;
}

rt::Status check_transpose_s8(const rt::OpContext& c) { return check_transpose(c, DType::Int8); }

rt::Status run_transpose_s8(const rt::OpContext& c) {
  transpose(c.in(0).rank, c.in(0).dims, c.ints, 1, c.in(0).data, c.out(0).data);
  return rt::Status::Ok;
}

rt::Status check_transpose_f32(const rt::OpContext& c) {
  return check_transpose(c, DType::Float32);
}

rt::Status run_transpose_f32(const rt::OpContext& c) {
  transpose(c.in(0).rank, c.in(0).dims, c.ints, sizeof(float), c.in(0).data, c.out(0).data);
  return rt::Status::Ok;
}

}  // namespace ember::kernels
