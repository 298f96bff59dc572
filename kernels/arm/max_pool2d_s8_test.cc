//===- max_pool2d_s8_test.cc - Optimized max pool vs portable, random cases ===//
//
// The pools of random_pool with dilation (windows with no tap inside happen), narrowed
// activation ranges.

#include "ember/kernels/arm/max_pool2d_s8.h"

#include "ember/kernels/arm/tier_test.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxIn = 2 * 20 * 20 * 40, kMaxOut = 2 * 13 * 13 * 40;
int8_t g_in[kMaxIn], g_want[kMaxOut], g_got[kMaxOut + 16];

}  // namespace

Outcome test_max_pool2d_s8(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    const PoolCase p = random_pool(r, true, kMaxIn, kMaxOut);
    int32_t ints[10];
    for (int32_t k = 0; k < 8; ++k) ints[k] = p.window[k];
    random_act(r, &ints[8], &ints[9]);
    const int32_t out_n = element_count(p.out_dims, 4);
    random_s8(r, g_in, element_count(p.in_dims, 4));
    for (int32_t j = 0; j < out_n + 16; ++j) g_got[j] = 0x55;
    rt::TensorView ins[1] = {make_view(g_in, rt::DType::Int8, 4, p.in_dims, false)};
    rt::TensorView want[1] = {make_view(g_want, rt::DType::Int8, 4, p.out_dims, false)};
    rt::TensorView got[1] = {make_view(g_got, rt::DType::Int8, 4, p.out_dims, false)};
    const rt::OpContext want_ctx{ins, 1, want, 1, ints, 10, nullptr, 0};
    const bool refused = kernels::check_max_pool2d_s8(want_ctx) != rt::Status::Ok;  // a bad case
    if (!refused) kernels::run_max_pool2d_s8(want_ctx);
    compare_optimized(o, i, refused, &check_max_pool2d_s8, &run_max_pool2d_s8,
                      rt::OpContext{ins, 1, got, 1, ints, 10, nullptr, 0}, g_got, g_want, out_n);
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
