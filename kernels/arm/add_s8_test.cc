//===- add_s8_test.cc - Optimized add vs portable, random cases -----------===//
//
// The broadcast cases of binary_test_util.cc with zero points at -128 and 127, left shifts
// 0..22, input shifts -31..0 and output shifts -31..30 with the extreme multipliers.

#include "kernels/arm/add_s8.h"

#include "kernels/arm/tier_test.h"

namespace ember::kernels::arm::testing {
namespace {

void draw_add(Rng& r, int32_t* ints) {  // the AddParamsS8 order
  AddParamsS8 p{};
  p.left_shift = r.one_in(2) ? 20 : r.range(0, 22);
  p.a_zp = random_zero_point(r), p.b_zp = random_zero_point(r), p.output_zp = random_zero_point(r);
  int32_t m[3], s[3];
  random_requant(r, m, s, 3);
  p.a_multiplier = m[0], p.b_multiplier = m[1], p.output_multiplier = m[2];
  p.a_shift = s[0] > 0 ? -s[0] : s[0], p.b_shift = s[1] > 0 ? -s[1] : s[1];
  if (r.one_in(4)) p.a_shift = 0;
  p.output_shift = s[2];
  random_act(r, &p.act_min, &p.act_max);
  const int32_t v[12] = {p.left_shift, p.a_zp, p.a_multiplier, p.a_shift, p.b_zp, p.b_multiplier,
                         p.b_shift, p.output_zp, p.output_multiplier, p.output_shift, p.act_min, p.act_max};
  for (int32_t i = 0; i < 12; ++i) ints[i] = v[i];
}

}  // namespace

Outcome test_add_s8(uint32_t seed, int32_t cases) {
  return test_binary_s8(seed, cases, 12, &draw_add, &kernels::check_add_s8, &kernels::run_add_s8, &check_add_s8,
                        &run_add_s8);
}

}  // namespace ember::kernels::arm::testing
