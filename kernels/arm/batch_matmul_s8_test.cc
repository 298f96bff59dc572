//===- batch_matmul_s8_test.cc - Optimized product of two activations vs portable ===//
//
// 1..3 batches of 1..7 rows (the one-row products and the whole-batch one of a zero b zero
// point, a quarter of the cases), depths 1..70 and up to 300, 1..37 columns; zero points,
// multipliers, shifts and bounds as the other tier tests draw them, the zoo's quantization
// (the Cortex-M3's and DSP's fused row loop) in a third.

#include "ember/kernels/arm/batch_matmul_s8.h"

#include "ember/kernels/arm/tier_test.h"
#include "ember/kernels/portable/batch_matmul.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxB = 3, kMaxM = 7, kMaxK = 300, kMaxN = 37;
int8_t g_a[kMaxB * kMaxM * kMaxK], g_b[kMaxB * kMaxN * kMaxK], g_want[kMaxB * kMaxM * kMaxN],
    g_got[kMaxB * kMaxM * kMaxN + 16];
int32_t g_scratch[4 * kMaxN];

}  // namespace

Outcome test_batch_matmul_s8(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    const int32_t batches = r.range(1, kMaxB), m = r.range(1, kMaxM), n = r.range(1, kMaxN);
    const int32_t k = r.one_in(4) ? r.range(1, kMaxK) : r.range(1, 70);
    int32_t ints[7] = {random_zero_point(r), r.one_in(4) ? 0 : random_zero_point(r), random_zero_point(r), 0, 0, 0, 0};
    random_requant(r, &ints[3], &ints[4], 1);
    random_act(r, &ints[5], &ints[6]);
    if (r.one_in(3)) zoo_requant(r, &ints[5], &ints[6], &ints[3], &ints[4], 1);
    random_s8(r, g_a, batches * m * k);
    random_s8(r, g_b, batches * n * k);
    const int32_t a_dims[3] = {batches, m, k}, b_dims[3] = {batches, n, k}, out_dims[3] = {batches, m, n};
    const int32_t scratch_dims[1] = {static_cast<int32_t>(batch_matmul_s8_scratch_bytes(n))};
    rt::TensorView ins[2] = {make_view(g_a, rt::DType::Int8, 3, a_dims, false),
                             make_view(g_b, rt::DType::Int8, 3, b_dims, false)};
    rt::TensorView want[1] = {make_view(g_want, rt::DType::Int8, 3, out_dims, false)};
    rt::TensorView outs[2] = {make_view(g_got, rt::DType::Int8, 3, out_dims, false),
                              make_view(g_scratch, rt::DType::Int8, 1, scratch_dims, false)};
    const rt::OpContext want_ctx{ins, 2, want, 1, ints, 7, nullptr, 0};
    const bool refused = kernels::check_batch_matmul_s8(want_ctx) != rt::Status::Ok;
    if (!refused) kernels::run_batch_matmul_s8(want_ctx);
    const int32_t count = batches * m * n;
    for (int32_t j = 0; j < count + 16; ++j) g_got[j] = 0x55;
    const rt::OpContext ctx{ins, 2, outs, 2, ints, 7, nullptr, 0};
    compare_optimized(o, i, refused, &check_batch_matmul_s8, &run_batch_matmul_s8, ctx, g_got, g_want, count);
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
