//===- memory_planner.cc - Greedy-by-size placement -----------------------===//

#include "compiler/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace ember::compiler {

namespace {
uint64_t align_up(uint64_t v) { return (v + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment; }
bool lifetimes_meet(const Buffer& a, const Buffer& b) {
  return a.first_op <= b.last_op && b.first_op <= a.last_op;
}
}  // namespace

std::vector<uint64_t> GreedyBySize::place(const std::vector<Buffer>& buffers, uint64_t* arena_bytes) const {
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].size != buffers[b].size) return buffers[a].size > buffers[b].size;
    return buffers[a].first_op < buffers[b].first_op;
  });
  std::vector<uint64_t> offsets(buffers.size(), 0);
  std::vector<size_t> placed;
  *arena_bytes = 0;
  for (size_t i : order) {
    // Candidate offsets: 0 and the aligned end of every conflicting placed buffer.
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (size_t j : placed)
      if (lifetimes_meet(buffers[i], buffers[j])) busy.push_back({offsets[j], offsets[j] + buffers[j].size});
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (offset + buffers[i].size <= begin) break;
      offset = std::max(offset, align_up(end));
    }
    offsets[i] = offset;
    placed.push_back(i);
    *arena_bytes = std::max(*arena_bytes, offset + buffers[i].size);
  }
  *arena_bytes = align_up(*arena_bytes);
  return offsets;
}

uint64_t lifetime_lower_bound(const std::vector<Buffer>& buffers, int num_ops, int* peak_op) {
  uint64_t best = 0;
  *peak_op = -1;
  for (int op = 0; op < num_ops; ++op) {
    uint64_t live = 0;
    for (const Buffer& b : buffers)
      if (b.first_op <= op && op <= b.last_op) live += b.size;
    if (live > best) best = live, *peak_op = op;
  }
  return best;
}

}  // namespace ember::compiler
