//===- batch_matmul_s8.cc - Optimized int8 product of two activations -----===//

#include "ember/kernels/arm/batch_matmul_s8.h"

#include "ember/kernels/arm/mat_mult_s8.h"
#include "ember/kernels/arm/operands.h"
#include "ember/kernels/portable/batch_matmul.h"

namespace ember::kernels::arm {

namespace {

uint32_t sum_s8(const int8_t* x, int32_t n) {
  uint32_t s = 0;
  for (int32_t i = 0; i < n; ++i) s += static_cast<uint32_t>(x[i]);
  return s;
}

}  // namespace

rt::Status check_batch_matmul_s8(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(kernels::check_batch_matmul_s8(c));
  EMBER_KCHECK(valid_requantization(&c.ints[3], &c.ints[4], 1), BadQuantization);
  const size_t given = scratch_bytes_given(c);
  EMBER_KCHECK(given == 0 || given >= batch_matmul_s8_scratch_bytes(c.in(1).dims[1]), BadShape);
  return Status::Ok;
}

rt::Status run_batch_matmul_s8(const rt::OpContext& c) {
  if (scratch_bytes_given(c) == 0) return kernels::run_batch_matmul_s8(c);
  const TensorView& a = c.in(0);
  const int32_t batches = a.dims[0], rows = a.dims[1], k = a.dims[2], n = c.in(1).dims[1];
  const uint32_t za = static_cast<uint32_t>(c.ints[0]), zb = static_cast<uint32_t>(c.ints[1]);
  // The planner places every tensor 16-byte aligned.
  uint32_t* const columns = reinterpret_cast<uint32_t*>(c.out(kScratch).data);
  int32_t* const bias = reinterpret_cast<int32_t*>(columns + n);
  int32_t* const multiplier = bias + n;
  int32_t* const shift = multiplier + n;
  for (int32_t j = 0; j < n; ++j) multiplier[j] = c.ints[3], shift[j] = c.ints[4];
  MatMultS8 m{};
  m.lhs_stride = k;
  m.cols = n;
  m.depth = k;
  m.bias = zb == 0 ? reinterpret_cast<const int32_t*>(columns) : bias;
  m.multiplier = multiplier;
  m.shift = shift;
  m.output_zp = c.ints[2], m.act_min = c.ints[5], m.act_max = c.ints[6];
  m.out_stride = n;
  const size_t a_batch = static_cast<size_t>(rows) * k, b_batch = static_cast<size_t>(n) * k;
  for (int32_t b = 0; b < batches; ++b) {
    const int8_t* const lhs = a.as<const int8_t>() + b * a_batch;
    m.rhs = c.in(1).as<const int8_t>() + b * b_batch;
    int8_t* const out = c.out(0).as<int8_t>() + static_cast<size_t>(b) * rows * n;
    for (int32_t j = 0; j < n; ++j)
      columns[j] = static_cast<uint32_t>(k) * za * zb - za * sum_s8(m.rhs + static_cast<size_t>(j) * k, k);
    if (zb == 0) {
      m.lhs = lhs, m.rows = rows, m.out = out;
      mat_mult_s8(m);
      continue;
    }
    m.rows = 1;
    for (int32_t r = 0; r < rows; ++r) {
      m.lhs = lhs + static_cast<size_t>(r) * k;
      m.out = out + static_cast<size_t>(r) * n;
      const uint32_t row_term = zb * sum_s8(m.lhs, k);
      for (int32_t j = 0; j < n; ++j) bias[j] = static_cast<int32_t>(columns[j] - row_term);
      mat_mult_s8(m);
    }
  }
  return Status::Ok;
}

}  // namespace ember::kernels::arm
