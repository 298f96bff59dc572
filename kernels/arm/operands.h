//===- operands.h - The operands the compiler adds for optimized kernels -*- C++ -*-===//
//
// conv2d_s8, depthwise_conv2d_s8 and fully_connected_s8 take two optional operands beyond the
// portable ones (kernels/kernels.def): input 5, the folded bias (kernels/arm/fold.h), and
// output 1, a scratch buffer the memory planner places like any activation (the kernel writes
// it; nobody reads it). The portable kernels ignore both; an optimized kernel without them
// runs the portable one.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/arm/requantize_s8.h"
#include "ember/kernels/portable/op_check.h"

namespace ember::kernels::arm {

inline constexpr size_t kFoldedBias = 5;
inline constexpr size_t kScratch = 1;

inline bool has_folded_bias(const OpContext& c) {
  return c.num_inputs > kFoldedBias && !is_absent(c.in(kFoldedBias));
}

/// Scratch bytes the op was given (0 without a scratch output).
inline size_t scratch_bytes_given(const OpContext& c) {
  return c.num_outputs > kScratch ? c.out(kScratch).num_elements() : 0;
}

/// Shape checks of the added operands (their values are checked by each kernel): the folded
/// bias an int32 constant of length o, the scratch an int8 tensor; with a folded bias, the
/// filter (input 1) and the bias (input 2, if present) it was folded from are constants, which
/// check_folded_bias can read.
inline Status check_added_operands(const OpContext& c, int32_t o) {
  if (has_folded_bias(c)) {
    const TensorView& fb = c.in(kFoldedBias);
    EMBER_KCHECK(is_vector(fb, DType::Int32, o), BadShape);
    EMBER_KCHECK(fb.constant && fb.data != nullptr, BadOpSignature);
  }
  if (c.num_outputs > kScratch) EMBER_KCHECK(is_tensor(c.out(kScratch), DType::Int8), BadOpSignature);
  if (has_folded_bias(c)) {
    const TensorView& filter = c.in(1);
    const TensorView& bias = c.in(2);
    EMBER_KCHECK(filter.constant && filter.data != nullptr, BadOpSignature);
    EMBER_KCHECK(is_absent(bias) || (bias.constant && bias.data != nullptr), BadOpSignature);
  }
  return Status::Ok;
}

/// The multiplier (input 3) and shift (input 4) values of the o channels, by the tier's
/// valid_requantization, after the portable check has checked their shapes (told not to check
/// the values itself). Absent data (shape-only unit tests) has no values.
inline Status check_requantization_values(const OpContext& c, int32_t o) {
  const int32_t* multiplier = c.in(3).as<const int32_t>();
  const int32_t* shift = c.in(4).as<const int32_t>();
  if (multiplier == nullptr || shift == nullptr) return Status::Ok;
  EMBER_KCHECK(valid_requantization(multiplier, shift, o), BadQuantization);
  return Status::Ok;
}

/// The folded bias, if any, equals fold(i), the value recomputed from the weights
/// (kernels/arm/fold.h), for every output channel i < o.
template <typename Fold>
inline Status check_folded_bias(const OpContext& c, int32_t o, Fold fold) {
  if (!has_folded_bias(c)) return Status::Ok;
  const int32_t* folded = c.in(kFoldedBias).as<const int32_t>();
  for (int32_t i = 0; i < o; ++i) EMBER_KCHECK(folded[i] == fold(i), BadQuantization);
  return Status::Ok;
}

}  // namespace ember::kernels::arm
