//===- lut_s8_test.cc - Optimized table lookup vs portable, random cases ---===//
//
// 1..600 elements (the word and vector tails), random tables, a third of the cases in place.

#include "kernels/arm/lut_s8.h"

#include "kernels/arm/tier_test.h"
#include "kernels/portable/lut_s8.h"

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
    rt::TensorView want[1] = {make_view(g_want, rt::DType::Int8, 1, dims, false)};
    const rt::OpContext want_ctx{ins, 2, want, 1, nullptr, 0, nullptr, 0};
    const bool refused = kernels::check_lut_s8(want_ctx) != rt::Status::Ok;  // a bad case
    if (!refused) kernels::run_lut_s8(want_ctx);
    for (int32_t j = 0; j < n + 16; ++j) g_got[j] = 0x55;
    if (r.one_in(3)) {  // in place, as the compiler plans it
      for (int32_t j = 0; j < n; ++j) g_got[j] = g_in[j];
      ins[0] = make_view(g_got, rt::DType::Int8, 1, dims, false);
    }
    rt::TensorView got[1] = {make_view(g_got, rt::DType::Int8, 1, dims, false)};
    compare_optimized(o, i, refused, &check_lut_s8, &run_lut_s8, rt::OpContext{ins, 2, got, 1, nullptr, 0, nullptr, 0},
                      g_got, g_want, n);
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
