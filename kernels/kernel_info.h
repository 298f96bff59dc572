//===- kernel_info.h - Names and signatures of the kernels ------*- C++ -*-===//
//
// Host-friendly metadata from kernels.def (no function pointers, so it links without the
// kernels): names for messages and tools, the operand/parameter counts (-1: variadic) a
// verifier or the compiler can check an op against before calling the kernel's own check, the
// in-place rule and the tiers with an optimized kernel.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/kernels/arm/tier.h"
#include "ember/runtime/op_signatures.h"

namespace ember::kernels {

/// The tiers a kernels.def row's `optimized` column names: a bit per Tier (kernels/arm/tier.h).
inline constexpr uint8_t tier_bit(Tier tier) { return static_cast<uint8_t>(1u << static_cast<unsigned>(tier)); }
inline constexpr uint8_t kOptimizedPortable = 0;
inline constexpr uint8_t kOptimizedArm = tier_bit(Tier::Scalar) | tier_bit(Tier::Dsp) | tier_bit(Tier::Mve);
/// Bytes: no tier bit (no optimized kernel), and a bit of its own past the tiers.
inline constexpr uint8_t kOptimizedBytes = 0x80;

struct KernelInfo {
  const char* name;
  int8_t inputs;   // -1: variadic
  int8_t outputs;
  int8_t ints;     // -1: variadic
  int8_t floats;
  rt::InPlaceRule in_place;
  uint8_t optimized;  // tier_bit of every tier with an optimized kernel, or kOptimizedBytes

  bool optimized_on(Tier tier) const { return (optimized & tier_bit(tier)) != 0; }
  /// The portable kernel only moves bytes: the same on every tier, so running it is no fallback.
  bool moves_bytes() const { return optimized == kOptimizedBytes; }
};

/// The kernel with id `id`, or nullptr when id >= kernel_count().
const KernelInfo* kernel_info(size_t id);

/// The name of kernel `id`, or "unknown".
const char* kernel_name(size_t id);

/// The number of kernels in kernels.def.
size_t kernel_count();

}  // namespace ember::kernels
