//===- requantize_s8_test.cc - Optimized rescale vs portable, random cases ===//
//
// 1..600 elements (the vector tails), zero points at -128 and 127, the extreme multipliers
// with shifts -31..22, narrowed activation ranges, a third of the cases in place.

#include "ember/kernels/arm/requantize_s8.h"

#include "ember/kernels/arm/tier_test.h"
#include "ember/kernels/portable/requantize_s8.h"

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
    compare_same_shape(o, i, r, 3, &kernels::check_requantize_s8, &kernels::run_requantize_s8, &check_requantize_s8,
                       &run_requantize_s8, in, 1, ints, 6, 1, dims, g_in, g_got, g_want);
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
