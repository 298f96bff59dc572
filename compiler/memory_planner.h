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
//     A buffer may name a partner it overlaps (an op's output over the input the op consumes,
//     see compiler/in_place.h): it may then start at or below the partner's offset minus
//     `overlap_delta`, or (when `may_rise`: the op can write its rows last-first) at or above
//     the partner's offset plus `overlap_rise`, even though both are live at that op.
//  3. Partners chain (each output the next op's dying input) into units placed as one block.
//     A unit's members get the relative offsets with the least span: each link goes down or
//     up, so a chain of in-place convolutions zigzags inside a band instead of drifting down
//     by every delta (the least span is found by bisection on the band's width, each width
//     tested by one pass over the chain that keeps the range of feasible offsets per member).
// Limits: lifetimes are whole ops; one region per call (plan_memory splits buffers over the
// regions); the result can exceed the lower bound when lifetimes fragment the arena, and fall
// below it only through partners.

#pragma once

#include <cstdint>
#include <vector>

namespace ember::compiler {

struct Buffer {
  uint64_t size = 0;
  int first_op = 0;  // live from this op...
  int last_op = 0;   // ...through this one, inclusive
  /// Index of a buffer this one may overlap (an input that dies at this buffer's first op),
  /// provided this one starts at least `overlap_delta` bytes below it; -1 = none.
  int overlaps = -1;
  uint64_t overlap_delta = 0;
  /// The other way: this one may instead start at least `overlap_rise` bytes above it.
  bool may_rise = false;
  uint64_t overlap_rise = 0;
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

/// The most bytes live at once over all ops, and the first op where that peak occurs: the
/// op-by-op bound, counting partners as distinct bytes.
uint64_t lifetime_lower_bound(const std::vector<Buffer>& buffers, int num_ops, int* peak_op);

}  // namespace ember::compiler
