//===- broadcast.h - Numpy-style broadcasting for binary kernels -*- C++ -*-===//
//
// Binary kernels (int8 add/mul, the float binary ops) read two operands whose shapes broadcast
// to the output's shape. A Broadcast, computed once from the three shapes, gives per-operand
// element strides in the output's index space (0 along broadcast axes), so a kernel walks the
// output once and finds both operands' elements without division.

#pragma once

#include <stddef.h>
#include <stdint.h>

namespace ember::kernels {

inline constexpr int kMaxBroadcastRank = 5;

/// Shapes aligned to rank 5 (leading 1s), with operand strides 0 where an operand broadcasts.
struct Broadcast {
  int32_t out_dims[kMaxBroadcastRank];
  int32_t a_strides[kMaxBroadcastRank];
  int32_t b_strides[kMaxBroadcastRank];
  bool same_shape;  // a, b and out have identical shapes: a flat loop suffices
};

/// Fills `bc` for operands of shapes a, b and output shape out (ranks <= 5, dims >= 0).
/// Returns false unless out is exactly the numpy broadcast of a and b: trailing axes aligned,
/// each operand dim equal to the output dim or 1, out rank = max(a rank, b rank).
inline bool make_broadcast(const int32_t* a_dims, int a_rank, const int32_t* b_dims, int b_rank,
                           const int32_t* out_dims, int out_rank, Broadcast* bc) {
  *bc = Broadcast{};  // defined contents even when the shapes are rejected
  if (a_rank > kMaxBroadcastRank || b_rank > kMaxBroadcastRank || out_rank > kMaxBroadcastRank ||
      a_rank < 0 || b_rank < 0 || out_rank != (a_rank > b_rank ? a_rank : b_rank))
    return false;
  bc->same_shape = a_rank == b_rank;
  int32_t a_stride = 1, b_stride = 1;
  for (int i = kMaxBroadcastRank - 1; i >= 0; --i) {
    const int k = kMaxBroadcastRank - 1 - i;  // axis counted from the end
    const int32_t o = k < out_rank ? out_dims[out_rank - 1 - k] : 1;
    const int32_t a = k < a_rank ? a_dims[a_rank - 1 - k] : 1;
    const int32_t b = k < b_rank ? b_dims[b_rank - 1 - k] : 1;
    if ((a != o && a != 1) || (b != o && b != 1)) return false;
    if (a != o || b != o) bc->same_shape = false;
    bc->out_dims[i] = o;
    bc->a_strides[i] = a == 1 ? 0 : a_stride;
    bc->b_strides[i] = b == 1 ? 0 : b_stride;
    a_stride *= a;
    b_stride *= b;
  }
  return true;
}

/// Number of output elements.
inline size_t broadcast_size(const Broadcast& bc) {
  size_t n = 1;
  for (int i = 0; i < kMaxBroadcastRank; ++i) n *= static_cast<size_t>(bc.out_dims[i]);
  return n;
}

/// Calls f(out_index, a_index, b_index) once per run along the innermost axis, in order: the
/// run has bc.out_dims[4] outputs from out_index on, and steps a and b by a_strides[4] and
/// b_strides[4] (0 where that operand broadcasts). Optimized kernels vectorise such runs.
template <typename F>
inline void for_each_broadcast_run(const Broadcast& bc, F f) {
  const int32_t* d = bc.out_dims;
  const int32_t* sa = bc.a_strides;
  const int32_t* sb = bc.b_strides;
  size_t o = 0;
  for (int32_t i0 = 0; i0 < d[0]; ++i0)
    for (int32_t i1 = 0; i1 < d[1]; ++i1)
      for (int32_t i2 = 0; i2 < d[2]; ++i2)
        for (int32_t i3 = 0; i3 < d[3]; ++i3, o += static_cast<size_t>(d[4])) {
          const size_t a = static_cast<size_t>(i0) * sa[0] + static_cast<size_t>(i1) * sa[1] +
                           static_cast<size_t>(i2) * sa[2] + static_cast<size_t>(i3) * sa[3];
          const size_t b = static_cast<size_t>(i0) * sb[0] + static_cast<size_t>(i1) * sb[1] +
                           static_cast<size_t>(i2) * sb[2] + static_cast<size_t>(i3) * sb[3];
          f(o, a, b);
        }
}

/// Calls f(out_index, a_index, b_index) for every output element in order.
template <typename F>
inline void for_each_broadcast(const Broadcast& bc, F f) {
  if (bc.same_shape) {
    const size_t n = broadcast_size(bc);
    for (size_t i = 0; i < n; ++i) f(i, i, i);
    return;
  }
  const int32_t inner = bc.out_dims[4], sa = bc.a_strides[4], sb = bc.b_strides[4];
  for_each_broadcast_run(bc, [&](size_t o, size_t a, size_t b) {
    for (int32_t i = 0; i < inner; ++i, a += sa, b += sb) f(o++, a, b);
  });
}

}  // namespace ember::kernels
