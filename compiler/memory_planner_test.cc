//===- memory_planner_test.cc - Greedy placement and the lower bound ------===//

#include "compiler/memory_planner.h"

#include <gtest/gtest.h>

namespace ember::compiler {
namespace {

bool overlap(const Buffer& a, uint64_t oa, const Buffer& b, uint64_t ob) {
  const bool live = a.first_op <= b.last_op && b.first_op <= a.last_op;
  return live && oa < ob + b.size && ob < oa + a.size;
}

TEST(GreedyBySize, ReusesMemoryOfDeadBuffers) {
  // A chain a -> b -> c: a and c never live together, so they share bytes.
  const std::vector<Buffer> buffers = {{100, 0, 1}, {50, 1, 2}, {100, 2, 3}};
  uint64_t arena = 0;
  const auto offsets = GreedyBySize().place(buffers, &arena);
  EXPECT_EQ(offsets[0], offsets[2]);
  EXPECT_EQ(arena, 176u);  // b starts at 112 (100 rounded up to 16), ends at 162 -> 176
  int peak = -1;
  EXPECT_EQ(lifetime_lower_bound(buffers, 4, &peak), 150u);
  EXPECT_EQ(peak, 1);
}

TEST(GreedyBest, NeverWorseThanGreedyBySize) {
  // A lifetime pattern where placing by size fragments: a long small buffer and short big ones.
  const std::vector<Buffer> buffers = {{64, 0, 5}, {96, 0, 1}, {96, 2, 3}, {128, 1, 2}, {32, 4, 5}};
  uint64_t by_size = 0, best = 0;
  GreedyBySize().place(buffers, &by_size);
  GreedyBest().place(buffers, &best);
  EXPECT_LE(best, by_size);
  int peak = -1;
  EXPECT_GE(best, lifetime_lower_bound(buffers, 6, &peak));
}

TEST(GreedyBySize, LiveBuffersNeverOverlap) {
  std::vector<Buffer> buffers;
  for (int i = 0; i < 40; ++i)
    buffers.push_back({static_cast<uint64_t>(16 + (i * 37) % 200), i % 7, i % 7 + (i % 5)});
  uint64_t arena = 0;
  const auto offsets = GreedyBest().place(buffers, &arena);
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(offsets[i] % kBufferAlignment, 0u);
    EXPECT_LE(offsets[i] + buffers[i].size, arena);
    for (size_t j = i + 1; j < buffers.size(); ++j)
      EXPECT_FALSE(overlap(buffers[i], offsets[i], buffers[j], offsets[j])) << i << " " << j;
  }
}

TEST(GreedyBest, PartnerChainGoesBelowTheOpByOpBound) {
  // a -> b -> c, each output allowed over its dying input 32 bytes below it.
  std::vector<Buffer> buffers = {{256, 0, 1}, {256, 1, 2}, {256, 2, 3}};
  buffers[1].overlaps = 0, buffers[1].overlap_delta = 32;
  buffers[2].overlaps = 1, buffers[2].overlap_delta = 32;
  uint64_t arena = 0;
  const auto offsets = GreedyBest().place(buffers, &arena);
  int peak = -1;
  EXPECT_EQ(lifetime_lower_bound(buffers, 4, &peak), 512u);
  EXPECT_EQ(arena, 256u + 2 * 32u);  // the chain drifts down by both deltas
  for (size_t i = 1; i < buffers.size(); ++i) {
    const size_t in = static_cast<size_t>(buffers[i].overlaps);
    const bool overlap = offsets[i] < offsets[in] + 256 && offsets[in] < offsets[i] + 256;
    if (overlap) {
      EXPECT_LE(offsets[i] + 32, offsets[in]);
    }
  }
}

}  // namespace
}  // namespace ember::compiler
