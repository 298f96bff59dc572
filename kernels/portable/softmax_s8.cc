//===- softmax_s8.cc - Reference int8 softmax -----------------------------===//
//
// Exact rational rounding: in 32 bits when the row sum fits (rows up to 511 with a sane table),
// else in int64, where e_i * 256 <= 2^39 and the row sum is at most depth * 2^31 even for a
// hostile table, far from int64's limits.

#include "ember/kernels/portable/softmax_s8.h"

#include "ember/kernels/portable/op_check.h"
#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

// num / den rounded half away from zero, den > 0.
static int64_t divide_half_away(int64_t num, int64_t den) {
  return num >= 0 ? (2 * num + den) / (2 * den) : -((-2 * num + den) / (2 * den));
}

void softmax_s8(int32_t rows, int32_t depth, const int8_t* input, const int32_t* table,
                int8_t* output) {
  for (int32_t r = 0; r < rows; ++r) {
    const int8_t* in = input + static_cast<size_t>(r) * depth;
    int8_t* out = output + static_cast<size_t>(r) * depth;
    int32_t m = -128;
    for (int32_t i = 0; i < depth; ++i)
      if (in[i] > m) m = in[i];
    int64_t sum = 0;
    for (int32_t i = 0; i < depth; ++i) sum += table[m - in[i]];
    // The usual case in 32 bits, exactly: for 0 <= num <= 2^31 and 0 < den < 2^32,
    // floor((2 * num + den) / (2 * den)) == (num + floor(den / 2)) / den, whose sum fits
    // uint32. One UDIV instead of a 64-bit division per element.
    const bool narrow = sum > 0 && sum <= INT64_C(0xFFFFFFFF);
    const uint32_t den = static_cast<uint32_t>(sum);
    for (int32_t i = 0; i < depth; ++i) {
      const int32_t e = table[m - in[i]];
      int64_t q = -128;
      if (narrow && e >= 0 && e <= (1 << 23))
        q = static_cast<int64_t>((static_cast<uint32_t>(e) * 256u + den / 2u) / den) - 128;
      else if (sum > 0)
        q = divide_half_away(static_cast<int64_t>(e) * 256, sum) - 128;
      out[i] = static_cast<int8_t>(q < -128 ? -128 : (q > 127 ? 127 : q));
    }
  }
}

rt::Status check_softmax_s8(const rt::OpContext& c) {
  EMBER_KCHECK(has_counts(c, 2, 1, 0, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& table = c.in(1);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(table) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == DType::Int8 && out.dtype == DType::Int8 && table.dtype == DType::Int32,
               BadOpSignature);
  EMBER_KCHECK(table.rank == 1 && table.dims[0] == 256, BadQuantization);
  EMBER_KCHECK(in.rank >= 1 && in.dim(-1) >= 1 && same_shape(in, out), BadShape);
  return Status::Ok;
}

rt::Status run_softmax_s8(const rt::OpContext& c) {
  const int32_t depth = c.in(0).dim(-1);
  softmax_s8(static_cast<int32_t>(c.in(0).num_elements() / depth), depth,
             c.in(0).as<const int8_t>(), c.in(1).as<const int32_t>(), c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
