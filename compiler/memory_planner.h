//===- memory_planner.h - Offsets for buffers with known lifetimes --------===//
//
// The interface between the plan_memory pass (which knows the graph) and the placement
// algorithms (which know only sizes and lifetimes), as TFLM's micro_memory_planner.h.
//
// Greedy placement (GreedyBySize, and GreedyBest which the compiler uses):
//  1. Order the buffers: by size, largest first (ties: earlier first use first); GreedyBest
//     also tries "most bytes alive around its first use first" and "first use first", and
//     keeps whichever order needs the least memory.
//  2. Place each at the lowest 16-byte-aligned offset where it overlaps no already placed
//     buffer whose lifetime intersects its own.
// Limits: lifetimes are whole ops (a buffer's input and output never share bytes, so no
// in-place execution yet); one region; the result can exceed the lower bound when lifetimes
// fragment the arena.

#pragma once

#include <cstdint>
#include <vector>

namespace ember::compiler {

struct Buffer {
  uint64_t size = 0;
  int first_op = 0;  // live from this op...
  int last_op = 0;   // ...through this one, inclusive
};

inline constexpr uint64_t kBufferAlignment = 16;

class MemoryPlanner {
 public:
  virtual ~MemoryPlanner() = default;
  /// Offsets for `buffers`, same order; `*arena_bytes` receives the bytes the plan needs.
  virtual std::vector<uint64_t> place(const std::vector<Buffer>& buffers, uint64_t* arena_bytes) const = 0;
};

class GreedyBySize final : public MemoryPlanner {
 public:
  std::vector<uint64_t> place(const std::vector<Buffer>& buffers, uint64_t* arena_bytes) const override;
};

class GreedyBest final : public MemoryPlanner {
 public:
  std::vector<uint64_t> place(const std::vector<Buffer>& buffers, uint64_t* arena_bytes) const override;
};

/// The most bytes live at once over all ops, and the first op where that peak occurs.
uint64_t lifetime_lower_bound(const std::vector<Buffer>& buffers, int num_ops, int* peak_op);

}  // namespace ember::compiler
