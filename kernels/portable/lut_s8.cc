//===- lut_s8.cc - Reference int8 table lookup ----------------------------===//
//
// The table holds the whole function, including both quantizations and any clamp.

#include "ember/kernels/portable/lut_s8.h"

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

void lut_s8(size_t count, const int8_t* input, const int8_t* table, int8_t* output) {
  for (size_t i = 0; i < count; ++i) output[i] = table[input[i] + 128];
}

rt::Status check_lut_s8(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 2, 1, 0, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& table = c.in(1);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(table) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == DType::Int8 && out.dtype == DType::Int8 && table.dtype == DType::Int8,
               BadOpSignature);
  EMBER_KCHECK(table.rank == 1 && table.dims[0] == 256, BadShape);
  EMBER_KCHECK(same_shape(in, out), BadShape);
  return Status::Ok;
}

rt::Status run_lut_s8(const rt::OpContext& c) {
  lut_s8(c.in(0).num_elements(), c.in(0).as<const int8_t>(), c.in(1).as<const int8_t>(),
         c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
