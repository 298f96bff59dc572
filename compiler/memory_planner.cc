//===- memory_planner.cc - Greedy-by-size placement -----------------------===//

#include "compiler/memory_planner.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace ember::compiler {

namespace {

uint64_t align_up(uint64_t v) { return (v + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment; }
bool lifetimes_meet(const Buffer& a, const Buffer& b) {
  return a.first_op <= b.last_op && b.first_op <= a.last_op;
}

// Places buffers in `order`, each at the lowest aligned offset that conflicts with no placed
// buffer whose lifetime meets its own. Conflicts are open intervals of forbidden start offsets.
std::vector<uint64_t> place_in_order(const std::vector<Buffer>& buffers, const std::vector<size_t>& order,
                                     uint64_t* arena_bytes) {
  std::vector<uint64_t> offsets(buffers.size(), 0);
  std::vector<size_t> placed;
  *arena_bytes = 0;
  for (size_t i : order) {
    const Buffer& b = buffers[i];
    const int64_t size = static_cast<int64_t>(b.size);
    std::vector<std::pair<int64_t, int64_t>> forbidden;  // starts s with lo < s < hi
    for (size_t j : placed) {
      if (!lifetimes_meet(b, buffers[j])) continue;
      const int64_t off = static_cast<int64_t>(offsets[j]), other = static_cast<int64_t>(buffers[j].size);
      if (b.overlaps == static_cast<int>(j))  // b is the output: at or below j's offset - delta
        forbidden.push_back({off - static_cast<int64_t>(b.overlap_delta), off + other});
      else if (buffers[j].overlaps == static_cast<int>(i))  // j is the output over b
        forbidden.push_back({off - size, off + static_cast<int64_t>(buffers[j].overlap_delta)});
      else
        forbidden.push_back({off - size, off + other});
    }
    std::vector<uint64_t> candidates = {0};
    for (const auto& f : forbidden)
      if (f.second > 0) candidates.push_back(align_up(static_cast<uint64_t>(f.second)));
    std::sort(candidates.begin(), candidates.end());
    uint64_t offset = candidates.back();
    for (uint64_t c : candidates) {
      const int64_t s = static_cast<int64_t>(c);
      bool ok = true;
      for (const auto& f : forbidden) ok = ok && (s <= f.first || s >= f.second);
      if (ok) { offset = c; break; }
    }
    offsets[i] = offset;
    placed.push_back(i);
    *arena_bytes = std::max(*arena_bytes, offset + b.size);
  }
  *arena_bytes = align_up(*arena_bytes);
  return offsets;
}

std::vector<size_t> by_size(const std::vector<Buffer>& buffers) {
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].size != buffers[b].size) return buffers[a].size > buffers[b].size;
    return buffers[a].first_op < buffers[b].first_op;
  });
  return order;
}

}  // namespace

std::vector<uint64_t> GreedyBySize::place(const std::vector<Buffer>& buffers, uint64_t* arena_bytes) const {
  return place_in_order(buffers, by_size(buffers), arena_bytes);
}

std::vector<uint64_t> GreedyBest::place(const std::vector<Buffer>& buffers, uint64_t* arena_bytes) const {
  // Bytes alive at each buffer's first use: placing the crowded moments first packs them tight.
  std::vector<uint64_t> crowd(buffers.size(), 0);
  for (size_t i = 0; i < buffers.size(); ++i)
    for (const Buffer& b : buffers)
      if (b.first_op <= buffers[i].first_op && buffers[i].first_op <= b.last_op) crowd[i] += b.size;
  std::vector<size_t> by_crowd = by_size(buffers), by_start = by_size(buffers);
  std::stable_sort(by_crowd.begin(), by_crowd.end(), [&](size_t a, size_t b) { return crowd[a] > crowd[b]; });
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](size_t a, size_t b) { return buffers[a].first_op < buffers[b].first_op; });
  std::vector<uint64_t> best;
  *arena_bytes = UINT64_MAX;
  for (const auto& order : {by_size(buffers), by_crowd, by_start}) {
    uint64_t bytes = 0;
    std::vector<uint64_t> offsets = place_in_order(buffers, order, &bytes);
    if (bytes < *arena_bytes) *arena_bytes = bytes, best = std::move(offsets);
  }
  if (buffers.empty()) *arena_bytes = 0;
  return best;
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
