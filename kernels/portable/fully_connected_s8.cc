//===- fully_connected_s8.cc - Reference int8 fully connected layer -------===//
//
// Row-by-row dot products; the numeric ground truth for the optimized tiers.

#include "ember/kernels/portable/fully_connected_s8.h"

#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

void fully_connected_s8(int32_t rows, int32_t k, int32_t o_count, const QuantS8& q,
                        const int8_t* input, const int8_t* filter, const int32_t* bias,
                        const int32_t* multiplier, const int32_t* shift, int8_t* output) {
  for (int32_t r = 0; r < rows; ++r) {
    const int8_t* in_row = input + static_cast<size_t>(r) * k;
    for (int32_t o = 0; o < o_count; ++o) {
      const int8_t* w = filter + static_cast<size_t>(o) * k;
      int32_t acc = bias != nullptr ? bias[o] : 0;
      for (int32_t i = 0; i < k; ++i) acc = wrapping_add(acc, (in_row[i] - q.input_zp) * w[i]);
      output[static_cast<size_t>(r) * o_count + o] =
          requantize_to_s8(acc, multiplier[o], shift[o], q.output_zp, q.act_min, q.act_max);
    }
  }
}

rt::Status check_linear_shapes(const TensorView& in, const TensorView& filter,
                               const TensorView& out) {
  EMBER_KCHECK(valid_view(in) && valid_view(filter) && valid_view(out), BadShape);
  EMBER_KCHECK(in.rank >= 1 && out.rank >= 1 && filter.rank == 2, BadShape);
  const int32_t k = filter.dims[1], o = filter.dims[0];
  EMBER_KCHECK(k >= 1 && o >= 1 && in.dim(-1) == k && out.dim(-1) == o, BadShape);
  EMBER_KCHECK(in.num_elements() / k == out.num_elements() / o, BadShape);
  return Status::Ok;
}

rt::Status check_fully_connected_s8(const rt::OpContext& c) {
  return check_fully_connected_any_s8(c, true);
}

rt::Status check_fully_connected_any_s8(const rt::OpContext& c, bool values) {
  // Inputs 5 (folded bias) and output 1 (scratch) are optional additions for the optimized
  // kernels (kernels/arm/operands.h); this kernel ignores them.
  EMBER_KCHECK(has_counts(c, -1, -1, 4, 0) && c.num_inputs >= 5 && c.num_inputs <= 6 &&
                   c.num_outputs >= 1 && c.num_outputs <= 2,
               BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& filter = c.in(1);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(in.dtype == DType::Int8 && filter.dtype == DType::Int8 && out.dtype == DType::Int8,
               BadOpSignature);
  EMBER_RETURN_IF_ERROR(check_linear_shapes(in, filter, out));
  EMBER_RETURN_IF_ERROR(check_per_channel(c, 2, filter.dims[0], values));
  return check_quant_s8(QuantS8{c.ints[0], c.ints[1], c.ints[2], c.ints[3]});
}

rt::Status run_fully_connected_s8(const rt::OpContext& c) {
  const int32_t k = c.in(1).dims[1], o = c.in(1).dims[0];
  fully_connected_s8(static_cast<int32_t>(c.in(0).num_elements() / k), k, o,
                     QuantS8{c.ints[0], c.ints[1], c.ints[2], c.ints[3]},
                     c.in(0).as<const int8_t>(), c.in(1).as<const int8_t>(),
                     c.in(2).as<const int32_t>(), c.in(3).as<const int32_t>(),
                     c.in(4).as<const int32_t>(), c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
