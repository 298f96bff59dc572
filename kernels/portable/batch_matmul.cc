//===- batch_matmul.cc - Matrix products of two activations ---------------===//

#include "ember/kernels/portable/batch_matmul.h"

#include "ember/kernels/portable/op_check.h"
#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

namespace {

// out[b, m, n] = result(row m of a[b], row n of b[b]), each K contiguous values.
template <typename T, typename Out, typename Result>
void for_each_product(int32_t batches, int32_t m, int32_t k, int32_t n, const T* a, const T* b, Out* output,
                      Result result) {
  for (int32_t bt = 0; bt < batches; ++bt)
    for (int32_t i = 0; i < m; ++i)
      for (int32_t j = 0; j < n; ++j)
        *output++ = result(a + (static_cast<size_t>(bt) * m + i) * k, b + (static_cast<size_t>(bt) * n + j) * k);
}

}  // namespace

void batch_matmul_s8(int32_t batches, int32_t m, int32_t k, int32_t n, int32_t a_zp, int32_t b_zp,
                     const QuantS8& q, int32_t multiplier, int32_t shift, const int8_t* a,
                     const int8_t* b, int8_t* output) {
  for_each_product(batches, m, k, n, a, b, output, [&](const int8_t* row, const int8_t* col) {
    int32_t acc = 0;
    for (int32_t x = 0; x < k; ++x) acc += (row[x] - a_zp) * (col[x] - b_zp);
    return requantize_to_s8(acc, multiplier, shift, q.output_zp, q.act_min, q.act_max);
  });
}

void batch_matmul_f32(int32_t batches, int32_t m, int32_t k, int32_t n, const float* a, const float* b,
                      float* output) {
  for_each_product(batches, m, k, n, a, b, output, [&](const float* row, const float* col) {
    float acc = 0.0f;
    for (int32_t x = 0; x < k; ++x) acc += row[x] * col[x];
    return acc;
  });
}

namespace {

// int8 may carry output 1, the optimized kernels' scratch (kernels/arm/batch_matmul_s8.h).
Status check_shapes(const OpContext& c, DType dtype, int ints) {
  EMBER_KCHECK(has_counts(c, 2, -1, ints, 0), BadOpSignature);
  EMBER_KCHECK(c.num_outputs == 1 || (dtype == DType::Int8 && c.num_outputs == 2), BadOpSignature);
  const TensorView& a = c.in(0);
  const TensorView& b = c.in(1);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(is_tensor(a, dtype, 3) && is_tensor(b, dtype, 3) && is_tensor(out, dtype, 3), BadOpSignature);
  EMBER_KCHECK(a.dims[0] == b.dims[0] && out.dims[0] == a.dims[0], BadShape);
  EMBER_KCHECK(a.dims[2] == b.dims[2] && out.dims[1] == a.dims[1] && out.dims[2] == b.dims[1], BadShape);
  return Status::Ok;
}

}  // namespace

rt::Status check_batch_matmul_s8(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(check_shapes(c, DType::Int8, 7));
  // |a - a_zp|, |b - b_zp| <= 255: K <= 2^15 keeps the int32 sum exact.
  EMBER_KCHECK(c.in(0).dims[2] <= (1 << 15), BadShape);
  EMBER_KCHECK(valid_zero_point(c.ints[0]) && valid_zero_point(c.ints[1]) && valid_zero_point(c.ints[2]),
               BadQuantization);
  EMBER_KCHECK(valid_multiplier(c.ints[3]) && valid_shift(c.ints[4]), BadQuantization);
  EMBER_KCHECK(valid_act_s8(c.ints[5], c.ints[6]), BadOpParameter);
  return Status::Ok;
}

rt::Status run_batch_matmul_s8(const rt::OpContext& c) {
  const TensorView& a = c.in(0);
  const QuantS8 q{0, c.ints[2], c.ints[5], c.ints[6]};
  batch_matmul_s8(a.dims[0], a.dims[1], a.dims[2], c.in(1).dims[1], c.ints[0], c.ints[1], q, c.ints[3],
                  c.ints[4], a.as<const int8_t>(), c.in(1).as<const int8_t>(), c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

rt::Status check_batch_matmul_f32(const rt::OpContext& c) { return check_shapes(c, DType::Float32, 0); }

rt::Status run_batch_matmul_f32(const rt::OpContext& c) {
  const TensorView& a = c.in(0);
  batch_matmul_f32(a.dims[0], a.dims[1], a.dims[2], c.in(1).dims[1], a.as<const float>(),
                   c.in(1).as<const float>(), c.out(0).as<float>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
