//===- kernel_table_test.cc - Tests of the kernel table and names ---------===//
//
// The table and the metadata both come from kernels.def: same length, every entry filled,
// ids stable for a few anchors, and every check rejects an empty op instead of crashing.

#include "ember/kernels/kernel_table.h"

#include <gtest/gtest.h>

#include <cstring>

#include "ember/kernels/kernel_info.h"

namespace ember::kernels {
namespace {

TEST(KernelTable, MatchesKernelList) {
  ASSERT_EQ(kNumKernels, kernel_count());
  for (size_t i = 0; i < kNumKernels; ++i) {
    EXPECT_NE(kKernelTable[i].check, nullptr);
    EXPECT_NE(kKernelTable[i].run, nullptr);
    ASSERT_NE(kernel_info(i), nullptr);
  }
  EXPECT_EQ(kernel_info(kNumKernels), nullptr);
  EXPECT_STREQ(kernel_name(0), "conv2d_s8");
  EXPECT_STREQ(kernel_name(47 - 2), "copy");  // ids never move: kernels.def is append-only
  EXPECT_STREQ(kernel_name(kNumKernels), "unknown");
  EXPECT_EQ(kernel_info(0)->inputs, -1);  // 5, or 6 with the folded bias (kernels/arm/operands.h)
  EXPECT_EQ(kernel_info(0)->ints, 10);
  const rt::KernelTable table = portable_kernel_table();
  EXPECT_EQ(table.entries, kKernelTable);
  EXPECT_EQ(table.size, kNumKernels);
}

TEST(KernelTable, EveryCheckRejectsAnEmptyOp) {
  const rt::OpContext empty{nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0};
  for (size_t i = 0; i < kNumKernels; ++i)
    EXPECT_EQ(kKernelTable[i].check(empty), rt::Status::BadOpSignature) << kernel_name(i);
}

TEST(KernelTable, EveryCheckRejectsWrongCountsWithoutReadingPastThem) {
  // One input and one output of rank 0, and declared-count mismatches: must never crash.
  rt::TensorView t;
  const int32_t ints[1] = {0};
  const float floats[1] = {0};
  for (size_t i = 0; i < kNumKernels; ++i) {
    const KernelInfo* k = kernel_info(i);
    const size_t n_in = k->inputs < 0 ? 0 : static_cast<size_t>(k->inputs) + 1;
    const rt::OpContext c{&t, n_in > 1 ? 1u : 0u, &t, 1, ints, 1, floats, 1};
    EXPECT_NE(kKernelTable[i].check(c), rt::Status::Ok) << kernel_name(i);
  }
}

}  // namespace
}  // namespace ember::kernels
