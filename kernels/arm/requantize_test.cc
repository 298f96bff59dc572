//===- requantize_test.cc - The tiers' requantization vs the portable one ---===//
//
// requantize_s8 (every tier's scalar path) against requantize_to_s8 over random and extreme
// accumulators, multipliers and shifts, ties included (multiplier 2^30, small shifts). On the
// MVE tier the vector forms (any shift, and the shift <= -1 and shift >= 0 fast paths) run on
// the same values. Each case also checks the tier's per-channel value check
// (valid_requantization) on a vector with at most one bad lane, at the edges of both ranges.

#include "ember/kernels/arm/primitives_scalar.h"
#include "ember/kernels/arm/requantize_s8.h"
#include "ember/kernels/arm/tier.h"
#include "ember/kernels/arm/tier_test.h"
#include "ember/kernels/portable/op_check.h"

#if EMBER_TIER == EMBER_TIER_MVE
#include "ember/kernels/arm/primitives_mve.h"
#endif

namespace ember::kernels::arm::testing {
namespace {

// n <= 13 channels of valid multipliers and shifts (their range edges often), one lane made
// invalid in half the cases; whether the tier's check and the portable one both give the
// right answer.
bool check_agrees(Rng& r) {
  int32_t mult[13], shift[13];
  const int32_t n = r.range(1, 13);
  random_requant(r, mult, shift, n);
  static const int32_t kGoodM[] = {0, int32_t{1} << 30, INT32_MAX}, kGoodS[] = {-31, 30};
  static const int32_t kBadM[] = {1, (int32_t{1} << 30) - 1, -1, INT32_MIN}, kBadS[] = {-32, 31, INT32_MIN, INT32_MAX};
  for (int32_t l = 0; l < n; ++l) {
    if (r.one_in(4)) mult[l] = kGoodM[r.range(0, 2)];
    if (r.one_in(4)) shift[l] = kGoodS[r.range(0, 1)];
  }
  const bool valid = r.one_in(2);
  if (!valid) {
    const int32_t l = r.range(0, n - 1);
    if (r.one_in(2)) mult[l] = kBadM[r.range(0, 3)];
    else shift[l] = kBadS[r.range(0, 3)];
  }
  return arm::valid_requantization(mult, shift, n) == valid &&
         kernels::valid_requantization(mult, shift, n) == valid;
}

}  // namespace

Outcome test_requantize(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    int32_t acc[4], mult[4], shift[4];
    random_requant(r, mult, shift, 4);
    for (int32_t l = 0; l < 4; ++l) {
      switch (r.range(0, 5)) {
        case 0: acc[l] = r.one_in(2) ? INT32_MIN : INT32_MAX; break;
        case 1: acc[l] = r.range(-64, 64); break;  // ties with multiplier 2^30
        default: acc[l] = static_cast<int32_t>(r.next()) >> r.range(0, 24); break;
      }
      if (r.one_in(3)) mult[l] = int32_t{1} << 30;
    }
    int32_t zp = random_zero_point(r), lo, hi;
    random_act(r, &lo, &hi);
    int8_t want[4], got[4];
    for (int32_t l = 0; l < 4; ++l) {
      want[l] = requantize_to_s8(acc[l], mult[l], shift[l], zp, lo, hi);
      got[l] = requantize_s8(acc[l], mult[l], shift[l], zp, lo, hi);
    }
    bool bad = !check_agrees(r);
    for (int32_t l = 0; l < 4; ++l) bad |= want[l] != got[l];
#if EMBER_TIER == EMBER_TIER_MVE
    const int32x4_t a = vld1q_s32(acc);
    int8_t vec[4], want_neg[4];
    vstrbq_s32(vec, offset_clamp_mve(requantize_mve_any(a, vld1q_s32(mult), vld1q_s32(shift)), zp, lo, hi));
    for (int32_t l = 0; l < 4; ++l) bad |= vec[l] != want[l];
    int32_t neg[4];  // the fast paths take shift <= -1 only
    for (int32_t l = 0; l < 4; ++l) neg[l] = shift[l] < 0 ? shift[l] : -1 - (shift[l] % 31);
    for (int32_t l = 0; l < 4; ++l) want_neg[l] = requantize_to_s8(acc[l], mult[l], neg[l], zp, lo, hi);
    vstrbq_s32(vec, offset_clamp_mve(requantize_mve(a, vld1q_s32(mult), vld1q_s32(neg)), zp, lo, hi));
    for (int32_t l = 0; l < 4; ++l) bad |= vec[l] != want_neg[l];
    for (int32_t l = 0; l < 4; ++l) want_neg[l] = requantize_to_s8(acc[l], mult[0], neg[0], zp, lo, hi);
    vstrbq_s32(vec, offset_clamp_mve(requantize_mve(a, mult[0], neg[0]), zp, lo, hi));
    for (int32_t l = 0; l < 4; ++l) bad |= vec[l] != want_neg[l];
    int32_t pos[4];  // requantize_mve_left takes shift >= 0 only
    for (int32_t l = 0; l < 4; ++l) pos[l] = shift[l] >= 0 ? shift[l] : (-1 - shift[l]) % 31;
    for (int32_t l = 0; l < 4; ++l) want_neg[l] = requantize_to_s8(acc[l], mult[l], pos[l], zp, lo, hi);
    vstrbq_s32(vec, offset_clamp_mve(requantize_mve_left(a, vld1q_s32(mult), vld1q_s32(pos)), zp, lo, hi));
    for (int32_t l = 0; l < 4; ++l) bad |= vec[l] != want_neg[l];
    ++o.optimized;
#endif
    ++o.cases;
    if (bad) {
      ++o.mismatches;
      if (o.first_bad < 0) o.first_bad = i;
    }
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
