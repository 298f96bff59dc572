//===- lut_s8_test.cc - Optimized table lookup vs portable, random cases ---===//
//
// 1..600 elements (the word and vector tails), random tables, a third of the cases in place.

#include "ember/kernels/arm/lut_s8.h"

#include "ember/kernels/arm/tier_test.h"
#include "ember/kernels/portable/lut_s8.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxN = 600;
int8_t g_in[kMaxN], g_table[256], g_want[kMaxN], g_got[kMaxN + 16];

}  // namespace

Outcome test_lut_s8(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    const int32_t n = r.one_in(2) ? r.range(1, 40) : r.range(1, kMaxN);
    random_s8(r, g_table, 256);
    random_s8(r, g_in, n);
    const int32_t dims[1] = {n}, table_dims[1] = {256};
    rt::TensorView ins[2] = {make_view(g_in, rt::DType::Int8, 1, dims, false),
                             make_view(g_table, rt::DType::Int8, 1, table_dims, true)};
    compare_same_shape(o, i, r, 3, &kernels::check_lut_s8, &kernels::run_lut_s8, &check_lut_s8, &run_lut_s8, ins, 2,
                       nullptr, 0, 1, dims, g_in, g_got, g_want);
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
