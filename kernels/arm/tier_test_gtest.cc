//===- tier_test_gtest.cc - The tier tests on the host (scalar tier) ------===//
//
// The same randomized cases the QEMU kernel-test firmware runs on each core
// (tests/test_kernels_qemu.py), here for the host build's tier (scalar).

#include <gtest/gtest.h>

#include "ember/kernels/arm/tier.h"
#include "ember/kernels/arm/tier_test.h"

namespace ember::kernels::arm::testing {
namespace {

class TierTest : public ::testing::TestWithParam<int> {};

TEST_P(TierTest, MatchesPortable) {
  const auto& t = kTierTests[GetParam()];
  const int32_t cases = GetParam() == 0 ? 20000 : 1000;
  const Outcome o = t.run(12345u + static_cast<uint32_t>(GetParam()), cases);
  EXPECT_GE(o.cases, cases);
  EXPECT_EQ(o.rejected, 0) << t.name;
  EXPECT_EQ(o.mismatches, 0) << t.name << ": first failing case " << o.first_bad << " (tier "
                             << tier_name(kBuiltTier) << ")";
}

INSTANTIATE_TEST_SUITE_P(Kernels, TierTest,
                         ::testing::Range(0, static_cast<int>(sizeof(kTierTests) / sizeof(kTierTests[0]))),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(kTierTests[info.param].name);
                         });

}  // namespace
}  // namespace ember::kernels::arm::testing
