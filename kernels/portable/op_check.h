//===- op_check.h - Shared operand checks for the kernel adapters -*- C++ -*-===//
//
// Helpers the check_<kernel> adapters share. A check runs once per op at load time, looks only
// at operand counts, dtypes, shapes and integer/float parameters (never at tensor data, which
// may not be bound yet), and returns the Status that names what is wrong. run_<kernel> trusts it.
//
// An absent optional operand (schema index -1) is a default TensorView: rank 0, data nullptr.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/portable/broadcast.h"
#include "ember/runtime/op_context.h"
#include "ember/runtime/status.h"

/// Returns `code` (an rt::Status enumerator name) from the enclosing check when cond is false.
#define EMBER_KCHECK(cond, code)                                  \
  do {                                                            \
    if (!(cond)) return ::ember::rt::Status::code;                \
  } while (0)

namespace ember::kernels {

using rt::DType;
using rt::OpContext;
using rt::Status;
using rt::TensorView;

/// Bytes per element of `dtype`.
inline size_t dtype_size(DType dtype) { return dtype == DType::Int8 ? 1 : 4; }

/// Exact operand and parameter counts; a negative expectation accepts any count.
inline bool has_counts(const OpContext& c, int inputs, int outputs, int ints, int floats) {
  return (inputs < 0 || c.num_inputs == static_cast<size_t>(inputs)) &&
         (outputs < 0 || c.num_outputs == static_cast<size_t>(outputs)) &&
         (ints < 0 || c.num_ints == static_cast<size_t>(ints)) &&
         (floats < 0 || c.num_floats == static_cast<size_t>(floats)) &&
         (c.num_inputs == 0 || c.inputs != nullptr) &&
         (c.num_outputs == 0 || c.outputs != nullptr) &&
         (c.num_ints == 0 || c.ints != nullptr) && (c.num_floats == 0 || c.floats != nullptr);
}

/// The view is well formed: rank within kMaxRank and no negative dimension.
inline bool valid_view(const TensorView& t) {
  if (t.rank > rt::kMaxRank) return false;
  for (uint8_t d = 0; d < t.rank; ++d)
    if (t.dims[d] < 0) return false;
  return true;
}

/// The operand is a well-formed tensor of `dtype`; rank must equal `rank` unless it is negative.
inline bool is_tensor(const TensorView& t, DType dtype, int rank = -1) {
  return valid_view(t) && t.dtype == dtype && (rank < 0 || t.rank == rank);
}

/// An optional operand given as absent.
inline bool is_absent(const TensorView& t) { return t.rank == 0 && t.data == nullptr; }

inline bool same_shape(const TensorView& a, const TensorView& b) {
  if (a.rank != b.rank) return false;
  for (uint8_t d = 0; d < a.rank; ++d)
    if (a.dims[d] != b.dims[d]) return false;
  return true;
}

/// A rank-1 tensor of `dtype` and length n.
inline bool is_vector(const TensorView& t, DType dtype, int32_t n) {
  return is_tensor(t, dtype, 1) && t.dims[0] == n;
}

inline bool valid_zero_point(int32_t zp) { return zp >= -128 && zp <= 127; }
inline bool valid_shift(int32_t shift) { return shift >= -31 && shift <= 30; }
/// Q31 multipliers are normalised into [2^30, 2^31); 0 encodes a zero rescale.
inline bool valid_multiplier(int32_t m) { return m == 0 || m >= (int32_t{1} << 30); }
inline bool valid_act_s8(int32_t lo, int32_t hi) { return -128 <= lo && lo <= hi && hi <= 127; }

/// Whether every one of n per-channel multipliers and shifts is valid. An optimized tier has
/// its own implementation (kernels/arm/requantize_s8.h).
inline bool valid_requantization(const int32_t* multiplier, const int32_t* shift, int32_t n) {
  for (int32_t i = 0; i < n; ++i)
    if (!valid_multiplier(multiplier[i]) || !valid_shift(shift[i])) return false;
  return true;
}

/// One spatial axis of a sliding window (conv or pool). With the effective kernel extent
/// E = dilation*(kernel-1)+1, the bottom/right padding is implied by the output size:
/// pad_after = (out-1)*stride + E - in - pad_before. The axis is consistent when every size is
/// positive, pad_before >= 0 and -stride < pad_after <= pad_before + max(stride-1, 1): no
/// output could be added without more padding, and the end padding is what PyTorch's floor
/// and ceil modes or padding="same" (one more at the end for an even extent) produce.
/// The padded axis (in + pad_before + pad_after, and in + pad_before) fits int32, so every tap
/// index and window end the kernels form (y * stride - pad_before + k * dilation) does too.
/// Pools additionally need `pool`: pad_before at most E / 2 (PyTorch's rule for max and
/// average pools, 1-D to 3-D) and pad_after smaller than E, so every window overlaps the input
/// and an axis has at most about in / stride + 2 outputs.
inline Status check_window_axis(int32_t in, int32_t out, int32_t kernel, int32_t stride,
                                int32_t pad_before, int32_t dilation, bool pool) {
  EMBER_KCHECK(kernel >= 1 && stride >= 1 && dilation >= 1 && pad_before >= 0, BadOpParameter);
  EMBER_KCHECK(kernel <= 65536 && stride <= 65536 && dilation <= 65536 && pad_before <= 65536,
               BadOpParameter);
  EMBER_KCHECK(in >= 1 && out >= 1, BadShape);
  const int64_t extent = static_cast<int64_t>(dilation) * (kernel - 1) + 1;
  const int64_t padded = static_cast<int64_t>(out - 1) * stride + extent;
  const int64_t pad_after = padded - in - pad_before;
  const int64_t extra = stride > 1 ? stride - 1 : 1;
  EMBER_KCHECK(pad_after > -stride && pad_after <= pad_before + extra, BadShape);
  EMBER_KCHECK(padded <= INT32_MAX && int64_t{in} + pad_before <= INT32_MAX, BadShape);
  if (pool) EMBER_KCHECK(2 * pad_before <= extent && pad_after < extent, BadOpParameter);
  return Status::Ok;
}

/// Clamps v to [lo, hi]; NaN passes through, as in torch.clamp.
inline float clamp_float(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

/// Float activation bounds are ordered (neither NaN, lo <= hi).
inline bool valid_act_f32(float lo, float hi) { return lo <= hi; }

/// Broadcast of a binary op's operands a, b to its output (shapes checked valid beforehand).
inline bool broadcast_views(const TensorView& a, const TensorView& b, const TensorView& out,
                            Broadcast* bc) {
  return make_broadcast(a.dims, a.rank, b.dims, b.rank, out.dims, out.rank, bc);
}

/// A broadcasting binary op's operands: inputs a, b and the output well formed, all of `dtype`,
/// and a and b broadcast to the output's shape.
inline Status check_binary_operands(const OpContext& c, DType dtype) {
  const TensorView& a = c.in(0);
  const TensorView& b = c.in(1);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(a) && valid_view(b) && valid_view(out), BadShape);
  EMBER_KCHECK(a.dtype == dtype && b.dtype == dtype && out.dtype == dtype, BadOpSignature);
  Broadcast bc;
  EMBER_KCHECK(broadcast_views(a, b, out, &bc), BadShape);
  return Status::Ok;
}

/// The broadcast of an op that check_binary_operands accepted.
inline Broadcast binary_broadcast(const OpContext& c) {
  Broadcast bc;
  broadcast_views(c.in(0), c.in(1), c.out(0), &bc);
  return bc;
}

}  // namespace ember::kernels
