//===- requantize_s8_test.cc - Optimized rescale vs portable, random cases ===//
//
// 1..600 elements (the vector tails), zero points at -128 and 127, the extreme multipliers
// with shifts -31..22, narrowed activation ranges, a third of the cases in place.

#include "kernels/arm/requantize_s8.h"

#include "kernels/arm/tier_test.h"
#include "kernels/portable/requantize_s8.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxN = 600;
int8_t g_in[kMaxN], g_want[kMaxN], g_got[kMaxN + 16];

}  // namespace

Outcome test_requantize_s8(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    const int32_t n = r.one_in(2) ? r.range(1, 40) : r.range(1, kMaxN);
    int32_t ints[6] = {random_zero_point(r), random_zero_point(r), 0, 0, 0, 0};
    random_requant(r, &ints[2], &ints[3], 1);
    if (ints[3] > 22) ints[3] = 22;  // (q - zp) << shift must fit int32
    random_act(r, &ints[4], &ints[5]);
    random_s8(r, g_in, n);
    const int32_t dims[1] = {n};
    rt::TensorView in[1] = {make_view(g_in, rt::DType::Int8, 1, dims, false)};
    rt::TensorView want[1] = {make_view(g_want, rt::DType::Int8, 1, dims, false)};
    const rt::OpContext want_ctx{in, 1, want, 1, ints, 6, nullptr, 0};
    const bool refused = kernels::check_requantize_s8(want_ctx) != rt::Status::Ok;  // a bad case
    if (!refused) kernels::run_requantize_s8(want_ctx);
    for (int32_t j = 0; j < n + 16; ++j) g_got[j] = 0x55;
    if (r.one_in(3)) {  // in place, as the compiler plans it
      for (int32_t j = 0; j < n; ++j) g_got[j] = g_in[j];
      in[0] = make_view(g_got, rt::DType::Int8, 1, dims, false);
    }
    rt::TensorView got[1] = {make_view(g_got, rt::DType::Int8, 1, dims, false)};
    compare_optimized(o, i, refused, &check_requantize_s8, &run_requantize_s8,
                      rt::OpContext{in, 1, got, 1, ints, 6, nullptr, 0}, g_got, g_want, n);
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
