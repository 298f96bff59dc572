//===- requantize_test.cc - Tests of the requantization primitives --------===//
//
// Hand-computed cases that pin TFLite's rounding (including where it differs from a single
// rounding), and random cases against an independent exact re-derivation in 128-bit integers.

#include "ember/kernels/portable/requantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ember/kernels/portable/quantize_multiplier.h"

namespace ember::kernels {
namespace {

// floor(a*b / 2^31 + 1/2): gemmlowp's doubling high multiply rounds half up.
int32_t ref_srdhm(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const __int128 p = static_cast<__int128>(a) * b;
  __int128 num = 2 * p + (static_cast<__int128>(1) << 31);
  __int128 den = static_cast<__int128>(1) << 32;
  __int128 q = num / den;
  if ((num % den != 0) && (num < 0)) --q;  // floor
  return static_cast<int32_t>(q);
}

int32_t ref_rdbpot(int32_t x, int e) { return static_cast<int32_t>(std::round(std::ldexp(x, -e))); }

TEST(Requantize, SaturatingRoundingDoublingHighMulHandCases) {
  EXPECT_EQ(saturating_rounding_doubling_high_mul(INT32_MIN, INT32_MIN), INT32_MAX);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(1 << 30, 100), 50);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(1 << 30, 3), 2);    // 1.5 -> 2
  EXPECT_EQ(saturating_rounding_doubling_high_mul(1 << 30, -3), -1);  // -1.5 -> -1 (half up)
  EXPECT_EQ(saturating_rounding_doubling_high_mul(INT32_MAX, INT32_MAX), INT32_MAX - 1);
}

TEST(Requantize, RoundingDivideByPotRoundsHalfAwayFromZero) {
  EXPECT_EQ(rounding_divide_by_pot(5, 1), 3);
  EXPECT_EQ(rounding_divide_by_pot(-5, 1), -3);
  EXPECT_EQ(rounding_divide_by_pot(-6, 2), -2);  // -1.5
  EXPECT_EQ(rounding_divide_by_pot(6, 2), 2);
  EXPECT_EQ(rounding_divide_by_pot(-7, 2), -2);
  EXPECT_EQ(rounding_divide_by_pot(7, 0), 7);
  EXPECT_EQ(rounding_divide_by_pot(INT32_MAX, 31), 1);
  EXPECT_EQ(rounding_divide_by_pot(INT32_MIN, 31), -1);
  EXPECT_EQ(rounding_divide_by_pot(1 << 29, 31), 0);
}

TEST(Requantize, MultiplyByQuantizedMultiplierHandCases) {
  EXPECT_EQ(multiply_by_quantized_multiplier(100, 1 << 30, 0), 50);
  EXPECT_EQ(multiply_by_quantized_multiplier(100, 1 << 30, 1), 100);
  EXPECT_EQ(multiply_by_quantized_multiplier(3, 1 << 30, -1), 1);    // 0.75
  EXPECT_EQ(multiply_by_quantized_multiplier(-3, 1 << 30, 0), -1);   // TFLite: -1.5 -> -1
  EXPECT_EQ(multiply_by_quantized_multiplier(-5, 1 << 30, -1), -1);  // -2.5/2: -1.25 -> -1
  EXPECT_EQ(multiply_by_quantized_multiplier(-6, 1 << 30, -1), -2);  // -1.5 -> -2
  EXPECT_EQ(multiply_by_quantized_multiplier(12345, 0, 5), 0);
}

TEST(Requantize, MultiplyByQuantizedMultiplierMatchesExactDerivation) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<int32_t> x_dist(-(1 << 24), 1 << 24);
  std::uniform_int_distribution<int32_t> m_dist(1 << 30, INT32_MAX);
  std::uniform_int_distribution<int> s_dist(-31, 6);
  for (int i = 0; i < 200000; ++i) {
    const int32_t x = x_dist(rng), m = m_dist(rng);
    const int s = s_dist(rng);
    const int32_t shifted = s > 0 ? x * (1 << s) : x;
    const int32_t expected = ref_rdbpot(ref_srdhm(shifted, m), s > 0 ? 0 : -s);
    ASSERT_EQ(multiply_by_quantized_multiplier(x, m, s), expected) << x << " " << m << " " << s;
    // And within one of the single-rounded real product.
    const double real = std::ldexp(static_cast<double>(m), s - 31) * x;
    ASSERT_LE(std::fabs(expected - std::round(real)), 1.0);
  }
}

TEST(Requantize, ExactMultiplierRoundsOnceHalfToEven) {
  // 3 * 2^30 * 2^(0-31) = 1.5 -> 2; 5 * ... = 2.5 -> 2; -3 -> -2 (ties to even).
  EXPECT_EQ(multiply_by_multiplier_exact(3, 1 << 30, 0), 2);
  EXPECT_EQ(multiply_by_multiplier_exact(5, 1 << 30, 0), 2);
  EXPECT_EQ(multiply_by_multiplier_exact(-3, 1 << 30, 0), -2);
  EXPECT_EQ(multiply_by_multiplier_exact(INT32_MAX, INT32_MAX, 30), INT32_MAX);  // saturates
  std::mt19937 rng(2);
  std::uniform_int_distribution<int32_t> x_dist(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> m_dist(1 << 30, INT32_MAX);
  std::uniform_int_distribution<int> s_dist(-31, 0);
  for (int i = 0; i < 200000; ++i) {
    const int32_t x = x_dist(rng), m = m_dist(rng);
    const int s = s_dist(rng);
    // Exact in long double: |x * m| < 2^62 fits the 64-bit mantissa.
    const long double real = std::ldexp(static_cast<long double>(x) * m, s - 31);
    ASSERT_EQ(multiply_by_multiplier_exact(x, m, s), static_cast<int32_t>(std::nearbyintl(real)))
        << x << " " << m << " " << s;
  }
}

TEST(Requantize, RoundingDivideHalfEven) {
  EXPECT_EQ(rounding_divide_half_even(5, 2), 2);  // 2.5 -> 2
  EXPECT_EQ(rounding_divide_half_even(7, 2), 4);  // 3.5 -> 4
  EXPECT_EQ(rounding_divide_half_even(-5, 2), -2);
  EXPECT_EQ(rounding_divide_half_even(-7, 2), -4);
  EXPECT_EQ(rounding_divide_half_even(4, 3), 1);
  EXPECT_EQ(rounding_divide_half_even(-5, 3), -2);
  EXPECT_EQ(rounding_divide_half_even(-4, 3), -1);
}

TEST(QuantizeMultiplier, TfliteValues) {
  int32_t m;
  int s;
  EXPECT_TRUE(quantize_multiplier(0.5, &m, &s));
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(s, 0);
  EXPECT_TRUE(quantize_multiplier(1.0, &m, &s));
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(s, 1);
  EXPECT_TRUE(quantize_multiplier(0.75, &m, &s));
  EXPECT_EQ(m, 1610612736);
  EXPECT_EQ(s, 0);
  EXPECT_TRUE(quantize_multiplier(0.0, &m, &s));
  EXPECT_EQ(m, 0);
  EXPECT_EQ(s, 0);
  EXPECT_TRUE(quantize_multiplier(1e-12, &m, &s));  // flushed to zero like TFLite
  EXPECT_EQ(m, 0);
  // Rounds up to 2^31: renormalised.
  EXPECT_TRUE(quantize_multiplier(std::nextafter(1.0, 0.0), &m, &s));
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(s, 1);
  EXPECT_FALSE(quantize_multiplier(-0.5, &m, &s));
  EXPECT_FALSE(quantize_multiplier(std::ldexp(1.0, 31), &m, &s));
  EXPECT_FALSE(quantize_multiplier(NAN, &m, &s));
}

TEST(QuantizeMultiplier, RoundTripsRandomReals) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> e(-30, 20);
  for (int i = 0; i < 10000; ++i) {
    const double real = std::exp2(e(rng));
    int32_t m;
    int s;
    ASSERT_TRUE(quantize_multiplier(real, &m, &s));
    ASSERT_GE(m, 1 << 30);
    ASSERT_GE(s, -31);
    ASSERT_LE(s, 30);
    ASSERT_NEAR(std::ldexp(static_cast<double>(m), s - 31) / real, 1.0, 1e-9);
  }
}

}  // namespace
}  // namespace ember::kernels
