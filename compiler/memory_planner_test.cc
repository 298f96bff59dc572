//===- memory_planner_test.cc - Greedy placement and the lower bound ------===//

#include "ember/compiler/memory_planner.h"

#include "ember/compiler/in_place.h"

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

// Whether buffer i sits where its partner rule allows: apart, or below by delta, or above by
// rise when it may rise.
bool partner_ok(const std::vector<Buffer>& buffers, const std::vector<uint64_t>& offsets, size_t i) {
  const Buffer& b = buffers[i];
  const size_t in = static_cast<size_t>(b.overlaps);
  const bool apart = offsets[i] + b.size <= offsets[in] || offsets[in] + buffers[in].size <= offsets[i];
  const bool below = offsets[i] + b.overlap_delta <= offsets[in];
  const bool above = b.may_rise && offsets[in] + b.overlap_rise <= offsets[i];
  return apart || below || above;
}

TEST(InPlace, RowStreamDistancesBothWays) {
  // kws: 25 x 5 x 64 int8 in and out. A 3x3 depthwise (pad 1, B 1) needs two input rows
  // (640 B) either way; a pointwise conv (B 4) 512 B either way: its block of 4 pixels may
  // reach 8 pixels past its first output pixel's row start.
  const std::vector<int64_t> act = {1, 25, 5, 64};
  EXPECT_EQ(row_stream_delta(act, act, 1, 1, 1, 1), 640u);
  EXPECT_EQ(row_stream_rise(act, act, 1, 1, 1, 3, 1), 640u);
  EXPECT_EQ(row_stream_delta(act, act, 1, 1, 0, 4), 512u);
  EXPECT_EQ(row_stream_rise(act, act, 1, 1, 0, 1, 4), 512u);
  // Stride 2 (3x3, pad 1) to 13 x 3: output row r reads input rows 2r - 1 to 2r + 1. Top-down
  // the output need only start its first row (192 B) below; bottom-up its last row reads the
  // input's last row, so it must start 25 input rows less 12 output rows above (5,696 B).
  const std::vector<int64_t> half = {1, 13, 3, 64};
  EXPECT_EQ(row_stream_delta(act, half, 1, 2, 1, 1), 192u);
  EXPECT_EQ(row_stream_rise(act, half, 1, 2, 1, 3, 1), 25u * 320 - 12 * 192);
  // Batch 2 or a rank-3 tensor: no rule.
  EXPECT_FALSE(row_stream_rise({2, 25, 5, 64}, {2, 25, 5, 64}, 1, 1, 1, 3, 1).has_value());
}

TEST(GreedyBest, LinksThatMayRiseZigzagInsteadOfDrifting) {
  // kws' chain: ten 8,000 B activations, depthwise links (640 B either way) alternating with
  // pointwise ones (512 B down, 512 B up). Down only, the chain drifts by every delta; with
  // both directions it stays within one buffer plus the largest step.
  std::vector<Buffer> buffers;
  for (int k = 0; k < 10; ++k) {
    Buffer b{8000, k, k + 1};
    if (k > 0) {
      b.overlaps = k - 1;
      b.overlap_delta = k % 2 ? 640 : 512;
      b.may_rise = true;
      b.overlap_rise = k % 2 ? 640 : 512;
    }
    buffers.push_back(b);
  }
  std::vector<Buffer> down_only = buffers;
  for (Buffer& b : down_only) b.may_rise = false;
  uint64_t drifting = 0, zigzag = 0;
  GreedyBest().place(down_only, &drifting);
  const auto offsets = GreedyBest().place(buffers, &zigzag);
  EXPECT_EQ(drifting, 8000u + 5 * 640 + 4 * 512);
  EXPECT_EQ(zigzag, 8000u + 640);
  int rising = 0;
  for (size_t i = 1; i < buffers.size(); ++i) {
    EXPECT_TRUE(partner_ok(buffers, offsets, i)) << i;
    EXPECT_EQ(offsets[i] % kBufferAlignment, 0u);
    rising += offsets[i] > offsets[i - 1];
  }
  EXPECT_GT(rising, 0);
  EXPECT_LT(rising, 9);
}

TEST(GreedyBest, LinksPreferDistancesOfWholeGrains) {
  // The band is a's 496 B; b and c (small, 16 B from their partners either way) fit anywhere
  // in it. Without a grain c would sit 16 B from b; with c's 40 B pixels the distance is a
  // multiple of lcm(16, 40) = 80 bytes.
  std::vector<Buffer> buffers = {{496, 0, 1}, {100, 1, 2}, {100, 2, 3}};
  for (int i : {1, 2}) {
    buffers[i].overlaps = i - 1, buffers[i].overlap_delta = 16;
    buffers[i].may_rise = true, buffers[i].overlap_rise = 16;
  }
  for (const uint64_t grain : {0, 40}) {
    buffers[2].overlap_grain = grain;
    uint64_t arena = 0;
    const auto offsets = GreedyBest().place(buffers, &arena);
    EXPECT_EQ(arena, 496u);
    const int64_t distance = static_cast<int64_t>(offsets[1]) - static_cast<int64_t>(offsets[2]);
    if (grain) {
      EXPECT_EQ(distance % 80, 0) << distance;
    } else {
      EXPECT_EQ(distance, 16);
    }
    EXPECT_TRUE(partner_ok(buffers, offsets, 1));
    EXPECT_TRUE(partner_ok(buffers, offsets, 2));
  }
}

TEST(GreedyBest, RiseNeverUsedWhereItIsNotAllowed) {
  // Random chains and loose buffers: every partner placement obeys its rule; none overlaps
  // anything else it is live with.
  uint32_t seed = 7;
  auto next = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7FFF; };
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<Buffer> buffers;
    const int n = 3 + static_cast<int>(next() % 8);
    for (int k = 0; k < n; ++k) {
      Buffer b{static_cast<uint64_t>(64 + next() % 400), k, k + 1};
      if (k > 0 && next() % 4 != 0) {
        b.overlaps = k - 1;
        b.overlap_delta = next() % 200;
        b.may_rise = next() % 2 == 0;
        b.overlap_rise = next() % 300;
        b.overlap_grain = next() % 3 == 0 ? 1 + next() % 64 : 0;
      }
      buffers.push_back(b);
    }
    buffers.push_back({static_cast<uint64_t>(16 + next() % 300), 0, n});  // lives throughout
    uint64_t arena = 0;
    const auto offsets = GreedyBest().place(buffers, &arena);
    for (size_t i = 0; i < buffers.size(); ++i) {
      EXPECT_LE(offsets[i] + buffers[i].size, arena);
      for (size_t j = i + 1; j < buffers.size(); ++j) {
        const bool partners = buffers[j].overlaps == static_cast<int>(i) || buffers[i].overlaps == static_cast<int>(j);
        if (!partners) {
          EXPECT_FALSE(overlap(buffers[i], offsets[i], buffers[j], offsets[j])) << trial << ": " << i << " " << j;
        }
      }
      if (buffers[i].overlaps >= 0) {
        EXPECT_TRUE(partner_ok(buffers, offsets, i)) << trial << ": " << i;
      }
    }
  }
}

}  // namespace
}  // namespace ember::compiler
