//===- mul_s8_test.cc - Optimized mul vs portable, random cases -----------===//
//
// The broadcast cases of binary_test_util.cc with zero points at -128 and 127 (products up to
// 255 * 255) and output shifts -31..30 with the extreme multipliers.

#include "ember/kernels/arm/mul_s8.h"

#include "ember/kernels/arm/tier_test.h"

namespace ember::kernels::arm::testing {
namespace {

void draw_mul(Rng& r, int32_t* ints) {  // the MulParamsS8 order
  MulParamsS8 p{};
  p.a_zp = random_zero_point(r), p.b_zp = random_zero_point(r), p.output_zp = random_zero_point(r);
  random_requant(r, &p.output_multiplier, &p.output_shift, 1);
  random_act(r, &p.act_min, &p.act_max);
  const int32_t v[7] = {p.a_zp, p.b_zp, p.output_zp, p.output_multiplier, p.output_shift, p.act_min, p.act_max};
  for (int32_t i = 0; i < 7; ++i) ints[i] = v[i];
}

}  // namespace

Outcome test_mul_s8(uint32_t seed, int32_t cases) {
  return test_binary_s8(seed, cases, 7, &draw_mul, &kernels::check_mul_s8, &kernels::run_mul_s8, &check_mul_s8,
                        &run_mul_s8);
}

}  // namespace ember::kernels::arm::testing
